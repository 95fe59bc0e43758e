#pragma once
// Checked HDF5 calls shared by the files of the HDF5 layer (hdf5_file.cpp,
// hdf5_write.cpp, hdf5_read.cpp); not part of its interface.
#include <string>

#include "storage/hdf5_file.h"

namespace rotor::hdf5::detail {

// Throws Hdf5Error with `what` and HDF5's most specific message, if any.
[[noreturn]] void fail(const std::string& what);

inline hid_t check(hid_t id, const std::string& what) {
  if (id < 0) fail(what);
  return id;
}

inline void check_status(herr_t status, const std::string& what) {
  if (status < 0) fail(what);
}

// The object's path inside its file, for messages.
std::string object_name(hid_t obj);

Id make_plist(hid_t cls);

// A UTF-8 string type of `size` bytes (H5T_VARIABLE: variable-length).
Id utf8_string_type(size_t size, H5T_str_t padding);

}  // namespace rotor::hdf5::detail
