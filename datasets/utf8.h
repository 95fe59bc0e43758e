#pragma once
// UTF-8 validation and repair. Readers never pass invalid UTF-8 on: each
// invalid sequence becomes U+FFFD, and the repairs are counted so that the
// dataset can warn once instead of once per document.
#include <cstdint>
#include <string>
#include <string_view>

namespace rotor {

// Returns `text` with every maximal invalid subpart replaced by U+FFFD (the
// Unicode "best practice" used by browsers and ICU), and adds the number of
// replacements to `replaced`.
std::string repair_utf8(std::string_view text, int64_t& replaced);

// Removes a UTF-8 byte order mark ("\xEF\xBB\xBF") from the start of
// `first_line` (editors on Windows write one); true if there was one.
bool strip_utf8_bom(std::string& first_line);

// The repairs made while reading one dataset: how many, and where the first was.
struct Utf8Repairs {
  int64_t count = 0;
  std::string first_at;  // "file:line" of the first repair

  void add(int64_t replaced, const std::string& where) {
    if (replaced > 0 && count == 0) first_at = where;
    count += replaced;
  }
};

}  // namespace rotor
