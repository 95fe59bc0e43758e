#pragma once
// Helpers for the checkpoint tests: a scratch folder per test, raw file bytes,
// and damaging a written file in place.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "storage/checkpoint.h"
#include "storage/checkpoint_integrity.h"

namespace rotor::test {

// A fresh folder under the system temp dir, removed with its contents.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag) {
    static int counter = 0;
    path_ = (std::filesystem::temp_directory_path() /
             ("rotor-test-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(++counter)))
                .string();
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_bytes(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Flips one bit of the byte `offset` bytes into the first occurrence of
// `pattern` in the file; false if the pattern is not there.
inline bool flip_byte_in(const std::string& path, const void* pattern, size_t n, size_t offset = 0) {
  std::vector<char> bytes = read_bytes(path);
  const char* p = static_cast<const char*>(pattern);
  const auto at = std::search(bytes.begin(), bytes.end(), p, p + n);
  if (at == bytes.end()) return false;
  at[static_cast<std::ptrdiff_t>(offset)] ^= 0x10;
  write_bytes(path, bytes);
  return true;
}

// Recomputes the whole-file checksum of an edited checkpoint, as someone who
// edits a file on purpose would: what is left to catch the edit are the
// checks inside the file (HDF5's, Fletcher32, the content checksum).
inline void reseal(const std::string& path) {
  const std::vector<char> bytes = read_bytes(path);
  std::string image(bytes.begin(), bytes.end());
  seal_checkpoint_image(image);
  write_bytes(path, std::vector<char>(image.begin(), image.end()));
}

// A small checkpoint with one of each kind; `fill` varies the tensor values.
inline CheckpointContents small_contents(float fill = 1.0f) {
  CheckpointContents c;
  std::vector<double> w(12);
  for (size_t i = 0; i < w.size(); ++i) w[i] = fill * (1000.0 + 0.25 * static_cast<double>(i));
  c.tensors["model/head.weight"] = Tensor::from_doubles({3, 4}, DType::F32, w);
  c.integers["state/step"] = 42;
  c.reals["state/best_metric"] = 0.875;
  c.texts["config"] = "model:\n  dim: 16\n";
  c.blobs["tokenizer/model"] = {1, 2, 3, 4, 5};
  return c;
}

// The bytes of the first `n` elements of a float32 tensor, to find them in a file.
inline std::vector<char> head_bytes(const Tensor& t, size_t n) {
  const char* p = reinterpret_cast<const char*>(t.data<float>());
  return std::vector<char>(p, p + n * sizeof(float));
}

}  // namespace rotor::test
