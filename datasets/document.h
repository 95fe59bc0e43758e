#pragma once
// A raw labelled document as the readers produce it, before tokenization.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rotor {

// The largest position a data file may give a token: bias encodings build offset tables as wide as the positions'
// span, so 2^20 keeps them at megabytes.
constexpr int64_t kMaxTokenPosition = int64_t{1} << 20;

struct Document {
  std::string text;   // valid UTF-8, never empty
  std::string label;  // class name; integer labels are kept as their decimal text
  std::string key;    // stable identity, hashed to assign the document to a split
  std::string where;  // "file:line" or the file path, for error messages
  // Each token's position (FieldNames::positions), one per token of the run's tokenizer; empty: 0..N-1.
  std::vector<int32_t> positions{};
};

// The documents of one named split ("train", "val", "test", ...).
struct DocumentSplit {
  std::string name;
  std::vector<Document> docs;
};

// Which field (JSONL) or column (CSV/TSV) holds what.
struct FieldNames {
  std::string text = "text";
  std::string label = "label";  // empty: unlabelled documents (label left empty)
  std::string key;              // empty: the text itself is the key
  // A record without the key field gets an empty key instead of an error
  // (ids of documents to predict, which are never split by key).
  bool key_optional = false;
  std::string positions{};  // JSONL field of the tokens' positions; empty: none (data.positions_field)
};

// Checks a record and assembles the Document: the text must not be blank and
// the label not empty unless the source is unlabelled (DataError naming `where` and, if not empty, the field). An
// empty `key` means the text itself is the key, unless fields.key_optional.
Document make_document(std::string text, std::string label, std::string key, const std::string& where,
                       const FieldNames& fields);

// True if `text` has nothing but ASCII whitespace.
bool is_blank(std::string_view text);

// Throws DataError unless `path` names a readable regular file.
void require_file(const std::string& path);

// Whole content of a file (for one-document-per-file sources and hashing).
std::string read_file_bytes(const std::string& path);

}  // namespace rotor
