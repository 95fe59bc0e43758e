// Reading: attributes, the file's dataset paths, a dataset's description and
// contents; every string read is bounded before it is allocated.
#include <algorithm>

#include "storage/hdf5_checked.h"
#include "storage/hdf5_file.h"

namespace rotor::hdf5 {

using detail::check;
using detail::check_status;
using detail::fail;
using detail::object_name;
using detail::utf8_string_type;

bool has_attribute(hid_t obj, const char* name) {
  const htri_t exists = H5Aexists(obj, name);
  if (exists < 0) fail(std::string("cannot look for attribute ") + name);
  return exists > 0;
}

namespace {

Id open_attribute(hid_t obj, const char* name) {
  if (!has_attribute(obj, name)) throw Hdf5Error(std::string("missing attribute ") + name);
  return Id(check(H5Aopen(obj, name, H5P_DEFAULT), std::string("cannot open attribute ") + name), H5Aclose);
}

template <class T>
T read_integer_attribute(hid_t obj, const char* name, hid_t mem_type) {
  Id attr = open_attribute(obj, name);
  Id type(check(H5Aget_type(attr.get()), std::string("cannot read attribute ") + name), H5Tclose);
  Id space(check(H5Aget_space(attr.get()), std::string("cannot read attribute ") + name), H5Sclose);
  if (H5Tget_class(type.get()) != H5T_INTEGER || H5Sget_simple_extent_npoints(space.get()) != 1) {
    throw Hdf5Error(std::string("attribute ") + name + " is not a single integer");
  }
  T value{};
  check_status(H5Aread(attr.get(), mem_type, &value), std::string("cannot read attribute ") + name);
  return value;
}

// Reads one string of at most `max_bytes` from a string-typed attribute or
// dataset of `type`; a fixed length is checked before anything is allocated.
template <class Read>
std::string read_string(hid_t type, const std::string& what, size_t max_bytes, Read read) {
  if (H5Tget_class(type) != H5T_STRING) throw Hdf5Error(what + " is not a string");
  const auto too_long = [&](size_t n) {
    return Hdf5Error(what + " holds a string of " + std::to_string(n) + " bytes, more than the " +
                     std::to_string(max_bytes) + " expected");
  };
  if (H5Tis_variable_str(type) > 0) {
    Id mem = utf8_string_type(H5T_VARIABLE, H5T_STR_NULLTERM);
    char* p = nullptr;
    check_status(read(mem.get(), static_cast<void*>(&p)), "cannot read " + what);
    std::string s = p != nullptr ? std::string(p) : std::string();
    H5free_memory(p);
    if (s.size() > max_bytes) throw too_long(s.size());
    return s;
  }
  const size_t n = H5Tget_size(type);
  if (n > max_bytes) throw too_long(n);
  std::string s(n, '\0');
  check_status(read(type, static_cast<void*>(s.data())), "cannot read " + what);
  s.resize(std::min(n, s.find('\0')));
  return s;
}

}  // namespace

int64_t read_int64_attribute(hid_t obj, const char* name) {
  return read_integer_attribute<int64_t>(obj, name, H5T_NATIVE_INT64);
}

uint64_t read_uint64_attribute(hid_t obj, const char* name) {
  return read_integer_attribute<uint64_t>(obj, name, H5T_NATIVE_UINT64);
}

std::string read_string_attribute(hid_t obj, const char* name, size_t max_bytes) {
  Id attr = open_attribute(obj, name);
  Id type(check(H5Aget_type(attr.get()), std::string("cannot read attribute ") + name), H5Tclose);
  Id space(check(H5Aget_space(attr.get()), std::string("cannot read attribute ") + name), H5Sclose);
  if (H5Sget_simple_extent_npoints(space.get()) != 1) {
    throw Hdf5Error(std::string("attribute ") + name + " is not a single string");
  }
  return read_string(type.get(), std::string("attribute ") + name, max_bytes,
                     [&](hid_t mem, void* buf) { return H5Aread(attr.get(), mem, buf); });
}

// Visits in native order and sorts afterwards: for name order, HDF5 1.10.8
// first copies the links of a dense group into a table and, when a damaged
// link heap stops the copy, frees table entries it never filled (found by the
// checkpoint fuzzer; tests/fuzz/corpus/checkpoint/forged-checksum-damaged-links.h5).
std::vector<std::string> dataset_paths(hid_t file) {
  struct Visit {
    hid_t file;
    std::vector<std::string> paths;
    bool failed = false;
  } visit{file, {}};
  const herr_t status = H5Lvisit(
      file, H5_INDEX_NAME, H5_ITER_NATIVE,
      [](hid_t root, const char* name, const H5L_info_t* info, void* data) -> herr_t {
        auto* v = static_cast<Visit*>(data);
        if (info->type != H5L_TYPE_HARD) return 0;
        const hid_t obj = H5Oopen(root, name, H5P_DEFAULT);
        if (obj < 0) {
          v->failed = true;
          return -1;
        }
        if (H5Iget_type(obj) == H5I_DATASET) v->paths.emplace_back(name);
        H5Oclose(obj);
        return 0;
      },
      &visit);
  if (status < 0 || visit.failed) fail("cannot list the datasets");
  std::sort(visit.paths.begin(), visit.paths.end());
  return visit.paths;
}

std::string DatasetInfo::type_name() const {
  switch (type_class) {
    case H5T_FLOAT:
      return "float" + std::to_string(8 * type_size);
    case H5T_INTEGER:
      return (is_signed ? "int" : "uint") + std::to_string(8 * type_size);
    case H5T_STRING:
      return is_vlen_string ? "string" : "fixed-length string";
    default:
      return "an unsupported type";
  }
}

Id open_dataset(hid_t loc, const std::string& name) {
  return Id(check(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), "cannot open dataset " + name), H5Dclose);
}

DatasetInfo describe(hid_t dataset) {
  const std::string what = "cannot inspect dataset " + object_name(dataset);
  DatasetInfo info;
  Id type(check(H5Dget_type(dataset), what), H5Tclose);
  info.type_class = H5Tget_class(type.get());
  info.type_size = H5Tget_size(type.get());
  info.is_signed = info.type_class == H5T_INTEGER && H5Tget_sign(type.get()) == H5T_SGN_2;
  info.is_vlen_string = info.type_class == H5T_STRING && H5Tis_variable_str(type.get()) > 0;

  Id space(check(H5Dget_space(dataset), what), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0) fail(what);
  info.scalar = H5Sget_simple_extent_type(space.get()) == H5S_SCALAR;
  info.dims.resize(static_cast<size_t>(rank));
  if (rank > 0) check_status(H5Sget_simple_extent_dims(space.get(), info.dims.data(), nullptr), what);

  Id dcpl(check(H5Dget_create_plist(dataset), what), H5Pclose);
  const int nfilters = H5Pget_nfilters(dcpl.get());
  for (int i = 0; i < nfilters; ++i) {
    unsigned flags = 0;
    size_t nvalues = 0;
    const H5Z_filter_t f =
        H5Pget_filter2(dcpl.get(), static_cast<unsigned>(i), &flags, &nvalues, nullptr, 0, nullptr, nullptr);
    info.fletcher32 = info.fletcher32 || f == H5Z_FILTER_FLETCHER32;
  }
  return info;
}

void read_dataset(hid_t dataset, hid_t mem_type, void* out) {
  // Named before the read: the name lookup is an HDF5 call too, and would
  // clear the read's error stack if evaluated after it (clang's order).
  const std::string what = "cannot read dataset " + object_name(dataset);
  check_status(H5Dread(dataset, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out), what);
}

std::string read_string_dataset(hid_t dataset, size_t max_bytes) {
  const std::string name = object_name(dataset);
  Id type(check(H5Dget_type(dataset), "cannot read dataset " + name), H5Tclose);
  Id space(check(H5Dget_space(dataset), "cannot read dataset " + name), H5Sclose);
  if (H5Sget_simple_extent_npoints(space.get()) != 1) throw Hdf5Error("dataset " + name + " is not a single string");
  return read_string(type.get(), "dataset " + name, max_bytes,
                     [&](hid_t mem, void* buf) { return H5Dread(dataset, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf); });
}

}  // namespace rotor::hdf5
