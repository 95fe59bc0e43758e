#pragma once
// Shared by the datasets tests: fixture paths, temporary folders, and the
// message of an expected DataError.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "datasets/data_config.h"
#include "datasets/data_error.h"

namespace rotor::test {

inline std::string fixture(const std::string& name) { return std::string(ROTOR_DATASETS_FIXTURES) + "/" + name; }

// A fresh folder under the system temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "rotor-datasets-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string path(const std::string& name) const { return path_ + "/" + name; }
  std::string write(const std::string& name, const std::string& content) const {
    std::ofstream(path(name), std::ios::binary) << content;
    return path(name);
  }

 private:
  std::string path_;
};

// A small generated sequence task in `layout`, not cached: `train` training samples, 40 in each held-out split,
// inputs of 3..12 symbols plus a test_20 split, windows of `max_len` tokens.
inline DataConfig small_sequence_task(const std::string& task, SequenceLayout layout, int64_t train, int64_t max_len) {
  DataConfig c;
  c.task = task;
  c.labelled = false;
  c.cache = false;
  c.train_size = train;
  c.eval_size = 40;
  c.generated.min_len = 3;
  c.generated.max_len = 12;
  c.generated.test_lengths = {20};
  c.sequence_layout = layout;
  c.max_len = max_len;
  return c;
}

// Runs `f`, which must throw DataError, and returns the message.
template <typename F>
std::string data_error_of(F&& f) {
  try {
    f();
  } catch (const DataError& e) {
    return e.what();
  }
  FAIL("expected a DataError");
  return {};
}

}  // namespace rotor::test
