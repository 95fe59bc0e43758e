#pragma once
// CSV/TSV reader (RFC 4180): a header row names the columns; fields may be
// quoted with '"', and a quoted field may hold delimiters, doubled quotes and
// line breaks. Streamed line by line.
#include <string>
#include <vector>

#include "datasets/document.h"
#include "datasets/utf8.h"

namespace rotor {

// `delimiter` is ',' for CSV and '\t' for TSV. Throws DataError naming the
// file and line for a missing column, a row with the wrong number of fields,
// a stray or unclosed quote, and when the file has no rows.
std::vector<Document> read_csv(const std::string& path, char delimiter, const FieldNames& fields, Utf8Repairs& repairs);

}  // namespace rotor
