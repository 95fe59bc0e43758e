#pragma once
// A thin RAII layer over the HDF5 C API: owned ids, checked calls, and the few
// dataset/attribute shapes the checkpoint format needs. Failures throw
// Hdf5Error whose message says what was being done and, when HDF5 left one,
// the most specific line of its error stack. HDF5's own stack printing is
// switched off the first time a File is made, so users never see it.
//
// Why not HDF5's C++ API (H5Cpp, Debian's libhdf5-cpp): its exceptions carry
// only the failing function's name and it prints HDF5's error stack unless
// every call is wrapped; users of a corrupt checkpoint need "which file, which
// dataset, what is wrong", which this layer builds from the error stack.
//
// Not thread-safe (Debian's HDF5 is built without thread safety): use one
// thread at a time.
//
// Defined in three files: hdf5_file.cpp (errors, owned ids, files),
// hdf5_write.cpp and hdf5_read.cpp; hdf5_checked.h holds their checked calls.
#include <hdf5.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/error.h"

namespace rotor::hdf5 {

struct Hdf5Error : Error {
  Hdf5Error(const std::string& what, std::string hdf5_detail = "") : Error(what), detail(std::move(hdf5_detail)) {}
  std::string detail;  // HDF5's most specific message, "" if none
};

// Turns off HDF5's automatic error-stack printing (idempotent).
void silence_error_printing();

// The most specific description on this thread's HDF5 error stack ("" if
// empty). Read it right after the failing call: the next call clears it.
std::string error_detail();

// Owns one hid_t and closes it with the function it was opened with.
class Id {
 public:
  using Closer = herr_t (*)(hid_t);
  Id() = default;
  Id(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  ~Id() { close(); }
  Id(Id&& other) noexcept : id_(other.id_), closer_(other.closer_) { other.id_ = H5I_INVALID_HID; }
  Id& operator=(Id&& other) noexcept;
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;

  hid_t get() const { return id_; }
  explicit operator bool() const { return id_ >= 0; }
  herr_t close();  // closes now; the status of the close (0 when nothing to close)

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

class File {
 public:
  // A new file (replacing any at `path`) in the HDF5 1.8 format: version-2
  // superblock and object headers, which carry metadata checksums and are
  // readable by every HDF5 (and h5py) since 1.8.
  static File create(const std::string& path);
  // The same, built in memory (HDF5's core driver): nothing touches the disk,
  // so HDF5 never meets a full disk; close_to_image() gives the bytes. The
  // first `userblock` bytes (0, or a power of two >= 512) are reserved for
  // the caller; HDF5 and h5py skip them.
  static File create_in_memory(size_t userblock);
  // Opens the bytes of a whole file (read into memory by the caller) read-only,
  // so that HDF5 parses exactly those bytes; `name` is for messages.
  static File open_image(const std::string& bytes, const std::string& name);

  File(File&&) noexcept;
  File& operator=(File&&) noexcept;
  ~File();

  hid_t id() const { return id_.get(); }
  // Flushes and closes; throws if HDF5 could not write the file out.
  void close();
  // For a file from create_in_memory: closes it and returns the whole file's
  // bytes, exactly as HDF5 would have written them to disk.
  std::string close_to_image();

 private:
  struct ImageSink;  // receives the in-memory file's buffer when HDF5 frees it
  File(Id id, std::unique_ptr<ImageSink> sink);
  Id id_;
  std::unique_ptr<ImageSink> sink_;
};

// ---- writing (names are '/'-separated paths; missing groups are created) ----

// A dataset of `file_type` with extents `dims` (empty: a scalar dataspace),
// filled from `data` given as `mem_type`. With `checksummed`, a non-empty
// array dataset is chunked (chunks of at most `max_chunk_bytes`, whole rows
// kept together) and carries a Fletcher32 checksum per chunk. Returns it open
// so the caller can attach attributes.
Id write_dataset(hid_t loc, const std::string& name, hid_t file_type, hid_t mem_type, const std::vector<hsize_t>& dims,
                 const void* data, bool checksummed, size_t max_chunk_bytes);
// A scalar fixed-length UTF-8 string dataset, NUL-padded, of the text's byte
// length (h5py reads bytes; `.asstr()[()]` gives str). The text must not
// contain NUL bytes (trailing ones would be lost).
Id write_string_dataset(hid_t loc, const std::string& name, const std::string& text);

void write_attribute(hid_t obj, const char* name, int64_t value);
void write_attribute(hid_t obj, const char* name, uint64_t value);
// Fixed-length strings, so they live in the (checksummed) object header.
void write_attribute(hid_t obj, const char* name, const std::string& value);

// ---- reading ----

bool has_attribute(hid_t obj, const char* name);              // throws if HDF5 cannot tell
int64_t read_int64_attribute(hid_t obj, const char* name);    // throws if missing or not an integer
uint64_t read_uint64_attribute(hid_t obj, const char* name);  // throws if missing or not an integer
// Fixed or variable length; throws if longer than `max_bytes` (a fixed length
// is checked before anything is allocated).
std::string read_string_attribute(hid_t obj, const char* name, size_t max_bytes);

// Full paths (without the leading '/') of every dataset in the file, sorted.
std::vector<std::string> dataset_paths(hid_t file);

struct DatasetInfo {
  H5T_class_t type_class = H5T_NO_CLASS;
  size_t type_size = 0;    // bytes per element (for vlen strings: of the pointer)
  bool is_signed = false;  // integers only
  bool is_vlen_string = false;
  bool scalar = false;        // scalar dataspace (no extents)
  std::vector<hsize_t> dims;  // empty when scalar
  bool fletcher32 = false;
  std::string type_name() const;  // "float32", "int64", "uint8", "string", ...
};

Id open_dataset(hid_t loc, const std::string& name);
DatasetInfo describe(hid_t dataset);
// Reads the whole dataset converted to `mem_type` into `out` (sized by the caller).
void read_dataset(hid_t dataset, hid_t mem_type, void* out);
// Reads a scalar string dataset (variable- or fixed-length) of at most
// `max_bytes`, checked as for attributes.
std::string read_string_dataset(hid_t dataset, size_t max_bytes);

}  // namespace rotor::hdf5
