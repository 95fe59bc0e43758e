#include "datasets/folder_reader.h"

#include <algorithm>
#include <filesystem>

#include "datasets/data_error.h"

namespace fs = std::filesystem;

namespace rotor {

std::vector<std::string> folder_files(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw DataError("cannot open folder '" + dir + "': no such directory");
  std::vector<std::string> files;
  for (const auto& class_dir : fs::directory_iterator(dir)) {
    if (!class_dir.is_directory()) continue;
    for (const auto& file : fs::directory_iterator(class_dir.path())) {
      if (file.is_regular_file() && file.path().extension() == ".txt") files.push_back(file.path().string());
    }
  }
  // Directory iteration order is unspecified; sorting makes it reproducible.
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    throw DataError(dir + ": no documents (expected class folders with *.txt files: " + dir + "/<label>/*.txt)");
  }
  return files;
}

std::vector<Document> read_folder(const std::string& dir, Utf8Repairs& repairs) {
  const FieldNames fields{"", "", ""};  // the text is the whole file, the label its folder
  std::vector<Document> docs;
  for (const std::string& path : folder_files(dir)) {
    const fs::path p(path);
    const std::string label = p.parent_path().filename().string();
    int64_t replaced = 0;
    std::string text = repair_utf8(read_file_bytes(path), replaced);
    repairs.add(replaced, path);
    docs.push_back(make_document(std::move(text), label, label + "/" + p.filename().string(), path, fields));
  }
  return docs;
}

}  // namespace rotor
