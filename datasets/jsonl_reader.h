#pragma once
// JSON Lines reader: one JSON object per line, streamed line by line.
#include <string>
#include <vector>

#include "datasets/document.h"
#include "datasets/utf8.h"

namespace rotor {

// Reads every non-blank line of `path` as a document. The text field must be
// a string; the label a string or an integer; the key (if named) a string or a
// number. Throws DataError naming the file and line on any bad record, and when
// the file holds no documents at all.
std::vector<Document> read_jsonl(const std::string& path, const FieldNames& fields, Utf8Repairs& repairs);

}  // namespace rotor
