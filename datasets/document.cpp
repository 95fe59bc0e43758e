#include "datasets/document.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "datasets/data_error.h"

namespace rotor {

bool is_blank(std::string_view text) { return text.find_first_not_of(" \t\n\r\f\v") == std::string_view::npos; }

Document make_document(std::string text, std::string label, std::string key, const std::string& where,
                       const FieldNames& fields) {
  if (is_blank(text)) {
    throw DataError(where + ": empty text" + (fields.text.empty() ? "" : " in field '" + fields.text + "'"));
  }
  if (label.empty() && !fields.label.empty()) throw DataError(where + ": empty label in field '" + fields.label + "'");
  if (key.empty() && !fields.key_optional) key = text;
  return Document{std::move(text), std::move(label), std::move(key), where, {}};
}

void require_file(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) throw DataError("cannot open '" + path + "': no such file");
  if (!std::filesystem::is_regular_file(status)) {
    throw DataError("cannot read '" + path + "': expected a regular file");
  }
}

std::string read_file_bytes(const std::string& path) {
  require_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError("cannot open '" + path + "': " + std::strerror(errno));
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

}  // namespace rotor
