#include "datasets/utf8.h"

namespace rotor {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Length of the sequence announced by `lead` (0 if it is no valid lead byte)
// and the allowed range of the byte after it, which excludes overlong forms,
// surrogates and code points above U+10FFFF.
struct LeadByte {
  int continuation_bytes;
  unsigned char second_min, second_max;
};

LeadByte classify(unsigned char lead) {
  if (lead >= 0xC2 && lead <= 0xDF) return {1, 0x80, 0xBF};
  if (lead == 0xE0) return {2, 0xA0, 0xBF};
  if (lead == 0xED) return {2, 0x80, 0x9F};
  if (lead >= 0xE1 && lead <= 0xEF) return {2, 0x80, 0xBF};
  if (lead == 0xF0) return {3, 0x90, 0xBF};
  if (lead >= 0xF1 && lead <= 0xF3) return {3, 0x80, 0xBF};
  if (lead == 0xF4) return {3, 0x80, 0x8F};
  return {0, 0, 0};
}

}  // namespace

std::string repair_utf8(std::string_view text, int64_t& replaced) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {
      out += static_cast<char>(lead);
      ++i;
      continue;
    }
    const LeadByte kind = classify(lead);
    size_t end = i + 1;  // one past the last byte that still fits the sequence
    bool complete = kind.continuation_bytes > 0;
    for (int k = 0; complete && k < kind.continuation_bytes; ++k, ++end) {
      const unsigned char lo = k == 0 ? kind.second_min : 0x80;
      const unsigned char hi = k == 0 ? kind.second_max : 0xBF;
      complete = end < text.size() && static_cast<unsigned char>(text[end]) >= lo &&
                 static_cast<unsigned char>(text[end]) <= hi;
      if (!complete) break;
    }
    if (complete) {
      out.append(text.substr(i, end - i));
    } else {
      out += kReplacement;
      ++replaced;
    }
    i = end;
  }
  return out;
}

bool strip_utf8_bom(std::string& first_line) {
  if (first_line.rfind("\xEF\xBB\xBF", 0) != 0) return false;
  first_line.erase(0, 3);
  return true;
}

}  // namespace rotor
