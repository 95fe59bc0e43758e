#pragma once
// Read-only access to the golden HDF5 files written by tools/golden/make_golden.py.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/shape.h"
#include "models/model_config.h"

namespace rotor::test {

class GoldenFile {
 public:
  explicit GoldenFile(const std::string& path);
  ~GoldenFile();
  GoldenFile(const GoldenFile&) = delete;
  GoldenFile& operator=(const GoldenFile&) = delete;

  bool has_attr(const char* name) const;
  std::string attr_string(const char* name) const;
  double attr_double(const char* name) const;
  std::vector<double> attr_doubles(const char* name) const;  // a float64 array (LongRoPE's factors)
  int64_t attr_int(const char* name) const;
  std::vector<std::string> attr_names() const;

  std::vector<std::string> names(const std::string& group) const;
  Shape shape(const std::string& dataset) const;
  std::vector<double> doubles(const std::string& dataset) const;
  std::vector<int64_t> ints(const std::string& dataset) const;

 private:
  int64_t file_;
  std::string path_;
};

// Sets every root attribute `<prefix><key>` naming a position key as p.set(key, value), the value read
// as the key's declared type (a boolean is stored as int64 0 or 1; tools/golden/README.md).
void set_position_keys(const GoldenFile& f, PositionConfig& p, const std::string& prefix = "model.position.");
// model.interleaved_position from the file's model.interleaved_position.* attributes, if it has them.
void set_interleaved_position(const GoldenFile& f, ModelConfig& c);

}  // namespace rotor::test
