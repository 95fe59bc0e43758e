#include "datasets/text_reader.h"

#include <algorithm>
#include <filesystem>

#include "datasets/data_error.h"

namespace fs = std::filesystem;

namespace rotor {
namespace {

const FieldNames kUnlabelled{"", "", ""};  // the text is the whole file or paragraph, no label

std::string read_repaired(const std::string& path, Utf8Repairs& repairs) {
  std::string bytes = read_file_bytes(path);
  strip_utf8_bom(bytes);
  int64_t replaced = 0;
  std::string text = repair_utf8(bytes, replaced);
  repairs.add(replaced, path);
  return text;
}

std::vector<Document> read_paragraphs(const std::string& path, Utf8Repairs& repairs) {
  const std::string text = read_repaired(path, repairs);
  std::vector<Document> docs;
  std::string paragraph;
  int64_t first_line = 0;
  const auto finish = [&] {
    if (paragraph.empty()) return;
    docs.push_back(make_document(paragraph, "", "", path + ":" + std::to_string(first_line), kUnlabelled));
    paragraph.clear();
  };
  size_t start = 0;
  for (int64_t line = 1; start < text.size(); ++line) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view content(text.data() + start, end - start);
    if (is_blank(content)) {
      finish();
    } else {
      if (paragraph.empty()) first_line = line;
      paragraph.append(paragraph.empty() ? "" : "\n").append(content);
    }
    start = end + 1;
  }
  finish();
  if (docs.empty()) throw DataError(path + ": no documents (the file has no text)");
  return docs;
}

}  // namespace

std::vector<std::string> text_files(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".txt") files.push_back(entry.path().string());
  }
  // Directory iteration order is unspecified; sorting makes it reproducible.
  std::sort(files.begin(), files.end());
  if (files.empty()) throw DataError(dir + ": no documents (expected *.txt files in the folder or below it)");
  return files;
}

std::vector<Document> read_text(const std::string& path, Utf8Repairs& repairs) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return read_paragraphs(path, repairs);
  std::vector<Document> docs;
  for (const std::string& file : text_files(path)) {
    std::string key = fs::relative(file, path).generic_string();
    docs.push_back(make_document(read_repaired(file, repairs), "", std::move(key), file, kUnlabelled));
  }
  return docs;
}

}  // namespace rotor
