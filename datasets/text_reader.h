#pragma once
// Plain-text reader (data.format text): unlabelled documents for language
// models. A folder of *.txt files (searched recursively) gives one document
// per file; a single file is cut at blank lines, so that a book or a corpus
// dump in one file still splits into train/val/test by paragraph.
#include <string>
#include <vector>

#include "datasets/document.h"
#include "datasets/utf8.h"

namespace rotor {

// The documents of `path`, with empty labels. A folder: every *.txt file
// below it in sorted path order, the key its path relative to `path` (so a
// document keeps its split when the folder moves). A file: its paragraphs
// (runs of non-blank lines) in order, each keyed by its text and located
// "file:line". Throws DataError naming the file for a missing source, an
// empty file in a folder, and a source without any text.
std::vector<Document> read_text(const std::string& path, Utf8Repairs& repairs);

// The *.txt files below folder `dir`, sorted: what read_text reads.
std::vector<std::string> text_files(const std::string& dir);

}  // namespace rotor
