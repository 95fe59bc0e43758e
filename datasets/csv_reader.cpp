#include "datasets/csv_reader.h"

#include <fstream>
#include <optional>

#include "datasets/data_error.h"
#include "datasets/utf8.h"

namespace rotor {
namespace {

// Splits the stream into records; a quoted field may continue on later lines.
class CsvRecords {
 public:
  CsvRecords(std::istream& in, const std::string& path, char delimiter) : in_(in), path_(path), delimiter_(delimiter) {}

  // The next record's fields, or nullopt at the end of the file. Blank lines
  // between records are skipped.
  std::optional<std::vector<std::string>> next() {
    std::string line;
    do {
      if (!std::getline(in_, line)) return std::nullopt;
      if (++line_number_ == 1) strip_utf8_bom(line);
      strip_cr(line);
    } while (line.empty());
    record_line_ = line_number_;

    std::vector<std::string> fields(1);
    bool in_quotes = false, after_quote = false;
    size_t quote_line = 0;
    while (true) {
      for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (in_quotes) {
          if (c != '"') {
            fields.back() += c;
          } else if (i + 1 < line.size() && line[i + 1] == '"') {
            fields.back() += '"';
            ++i;
          } else {
            in_quotes = false;
            after_quote = true;
          }
        } else if (c == delimiter_) {
          fields.emplace_back();
          after_quote = false;
        } else if (after_quote) {
          fail(line_number_, i, "expected a delimiter or end of line after a closing quote");
        } else if (c == '"') {
          if (!fields.back().empty()) fail(line_number_, i, "quote inside an unquoted field");
          in_quotes = true;
          quote_line = line_number_;
        } else {
          fields.back() += c;
        }
      }
      if (!in_quotes) return fields;
      // The quoted field goes on: the line break belongs to it.
      if (!std::getline(in_, line)) {
        throw DataError(path_ + ":" + std::to_string(quote_line) +
                        ": unclosed quote (a quoted field starts here and the file ends before its closing '\"')");
      }
      ++line_number_;
      strip_cr(line);
      fields.back() += '\n';
    }
  }

  // First line of the record last returned.
  size_t record_line() const { return record_line_; }

 private:
  static void strip_cr(std::string& line) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
  }

  [[noreturn]] void fail(size_t line, size_t index, const std::string& message) const {
    throw DataError(path_ + ":" + std::to_string(line) + ":" + std::to_string(index + 1) + ": " + message);
  }

  std::istream& in_;
  const std::string& path_;
  char delimiter_;
  size_t line_number_ = 0;
  size_t record_line_ = 0;
};

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// Index of column `name` in the header; -1 if `name` is empty (optional column).
int64_t column_index(const std::vector<std::string>& header, const std::string& name, const std::string& path,
                     bool optional = false) {
  if (name.empty()) return -1;
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return static_cast<int64_t>(i);
  }
  if (optional) return -1;
  throw DataError(path + ":1: no column '" + name + "' in the header (columns: " + join(header) + ")");
}

}  // namespace

std::vector<Document> read_csv(const std::string& path, char delimiter, const FieldNames& fields,
                               Utf8Repairs& repairs) {
  require_file(path);
  std::ifstream in(path, std::ios::binary);
  CsvRecords records(in, path, delimiter);
  const auto header = records.next();
  if (!header) throw DataError(path + ": no documents (the file is empty; expected a header row)");
  const int64_t text_col = column_index(*header, fields.text, path);
  const int64_t label_col = column_index(*header, fields.label, path);
  const int64_t key_col = column_index(*header, fields.key, path, fields.key_optional);

  std::vector<Document> docs;
  while (auto row = records.next()) {
    const std::string where = path + ":" + std::to_string(records.record_line());
    if (row->size() != header->size()) {
      throw DataError(where + ": expected " + std::to_string(header->size()) + " fields as in the header, found " +
                      std::to_string(row->size()));
    }
    int64_t replaced = 0;
    std::string text = repair_utf8((*row)[text_col], replaced);
    std::string label = label_col >= 0 ? repair_utf8((*row)[label_col], replaced) : std::string();
    std::string key = key_col >= 0 ? repair_utf8((*row)[key_col], replaced) : std::string();
    repairs.add(replaced, where);
    docs.push_back(make_document(std::move(text), std::move(label), std::move(key), where, fields));
  }
  if (in.bad()) throw DataError("error while reading '" + path + "'");
  if (docs.empty()) throw DataError(path + ": no documents (only a header row)");
  return docs;
}

}  // namespace rotor
