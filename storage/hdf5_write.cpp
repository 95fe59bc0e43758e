// Writing: datasets (chunked and checksummed on request), string datasets and
// scalar attributes; names are '/'-separated paths, missing groups are created.
#include <algorithm>

#include "storage/hdf5_checked.h"
#include "storage/hdf5_file.h"

namespace rotor::hdf5 {
namespace {

using detail::check;
using detail::check_status;
using detail::make_plist;
using detail::utf8_string_type;

// Link-creation properties that create missing intermediate groups, so a
// dataset "model/layers.0.w" can be written in one call.
Id intermediate_groups_lcpl() {
  Id lcpl = make_plist(H5P_LINK_CREATE);
  check_status(H5Pset_create_intermediate_group(lcpl.get(), 1), "cannot set link properties");
  check_status(H5Pset_char_encoding(lcpl.get(), H5T_CSET_UTF8), "cannot set link properties");
  return lcpl;
}

// Chunk extents for `dims`: the whole dataset when it fits in `max_bytes`,
// else as many whole innermost rows as fit (cutting a single row if needed).
std::vector<hsize_t> chunk_dims(const std::vector<hsize_t>& dims, size_t elem_size, size_t max_bytes) {
  std::vector<hsize_t> chunk = dims;
  const hsize_t max_elems = std::max<hsize_t>(1, max_bytes / std::max<size_t>(1, elem_size));
  hsize_t inner = 1;  // elements in one step of dimension i, given the chunk so far
  for (size_t i = dims.size(); i-- > 0;) {
    const hsize_t fit = std::max<hsize_t>(1, max_elems / inner);
    chunk[i] = std::min(dims[i], fit);
    inner *= chunk[i];
  }
  return chunk;
}

void write_scalar_attribute(hid_t obj, const char* name, hid_t file_type, hid_t mem_type, const void* value) {
  Id space(check(H5Screate(H5S_SCALAR), "cannot create a dataspace"), H5Sclose);
  Id attr(check(H5Acreate2(obj, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                std::string("cannot create attribute ") + name),
          H5Aclose);
  check_status(H5Awrite(attr.get(), mem_type, value), std::string("cannot write attribute ") + name);
}

}  // namespace

Id write_dataset(hid_t loc, const std::string& name, hid_t file_type, hid_t mem_type, const std::vector<hsize_t>& dims,
                 const void* data, bool checksummed, size_t max_chunk_bytes) {
  const bool scalar = dims.empty();
  Id space(check(scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                 "cannot create a dataspace for " + name),
           H5Sclose);
  Id dcpl = make_plist(H5P_DATASET_CREATE);
  bool empty = false;
  for (hsize_t d : dims) empty = empty || d == 0;
  if (checksummed && !scalar && !empty) {
    const std::vector<hsize_t> chunk = chunk_dims(dims, H5Tget_size(file_type), max_chunk_bytes);
    check_status(H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()),
                 "cannot chunk dataset " + name);
    check_status(H5Pset_fletcher32(dcpl.get()), "cannot add a Fletcher32 checksum to " + name);
  }
  Id lcpl = intermediate_groups_lcpl();
  Id ds(check(H5Dcreate2(loc, name.c_str(), file_type, space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT),
              "cannot create dataset " + name),
        H5Dclose);
  if (!empty) {
    check_status(H5Dwrite(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "cannot write dataset " + name);
  }
  return ds;
}

Id write_string_dataset(hid_t loc, const std::string& name, const std::string& text) {
  // Fixed length, padded with NULs: the bytes sit in the raw data, not in
  // the (unchecksummed) global heap where variable-length strings live.
  Id type = utf8_string_type(std::max<size_t>(1, text.size()), H5T_STR_NULLPAD);
  std::string padded = text;
  padded.resize(std::max<size_t>(1, text.size()), '\0');
  return write_dataset(loc, name, type.get(), type.get(), {}, padded.data(), false, 0);
}

void write_attribute(hid_t obj, const char* name, int64_t value) {
  write_scalar_attribute(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value);
}

void write_attribute(hid_t obj, const char* name, uint64_t value) {
  write_scalar_attribute(obj, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &value);
}

void write_attribute(hid_t obj, const char* name, const std::string& value) {
  Id type = utf8_string_type(value.size() + 1, H5T_STR_NULLTERM);
  write_scalar_attribute(obj, name, type.get(), type.get(), value.c_str());
}

}  // namespace rotor::hdf5
