#pragma once
// Folder-per-class reader: `dir/<label>/*.txt`, one document per file (the
// aclImdb layout, where `dir` is one split such as aclImdb/train).
#include <string>
#include <vector>

#include "datasets/document.h"
#include "datasets/utf8.h"

namespace rotor {

// Every sub-folder of `dir` is a class; its *.txt files are the documents,
// read in sorted order. The key is "<label>/<file name>". Throws DataError for
// a missing folder, an empty file, and a folder without any *.txt file.
std::vector<Document> read_folder(const std::string& dir, Utf8Repairs& repairs);

// The *.txt files of `dir/<label>/`, sorted: what read_folder reads.
std::vector<std::string> folder_files(const std::string& dir);

}  // namespace rotor
