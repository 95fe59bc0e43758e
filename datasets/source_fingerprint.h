#pragma once
// The data files a dataset is read from, each with the SHA-1 of its contents:
// the token cache's key hashes them, and a training checkpoint keeps them so
// that a resume notices data edited since (trainers/training/resume.h).
#include <string>
#include <vector>

#include "datasets/data_config.h"

namespace rotor {

struct SourceFingerprint {
  std::string path;  // as the config gives it (or its task resolves it), each file of a folder on its own
  std::string sha1;  // hex, of the file's bytes
};

// Every file `resolved` (its task's sources filled in) reads, in a fixed
// order; none for a generated task. Throws DataError for an unreadable file.
std::vector<SourceFingerprint> source_fingerprints(const DataConfig& resolved);

// One "<sha1>  <path>" line per file (sha1sum's form), and back; a line of
// another form is a DataError naming `where`.
std::string fingerprints_text(const std::vector<SourceFingerprint>& sources);
std::vector<SourceFingerprint> parse_fingerprints(const std::string& text, const std::string& where);

// "" when `current` holds the same files as `recorded`, else the first
// difference: "<path> changed (SHA-1 <12 digits>... then, ... now)", "<path> is new" or
// "<path> is gone". Paths that moved (a resume from another folder) match by
// position when the files are as many.
std::string describe_data_change(const std::vector<SourceFingerprint>& recorded,
                                 const std::vector<SourceFingerprint>& current);

}  // namespace rotor
