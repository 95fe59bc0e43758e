#include "golden_file.h"

#include <algorithm>

#include <hdf5.h>

#include <stdexcept>
#include <type_traits>
#include <variant>

#include "models/position_encoding.h"

namespace rotor::test {
namespace {

void check(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("golden file: " + what);
}

template <class T>
std::vector<T> read(hid_t file, const std::string& name, hid_t type) {
  const hid_t ds = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  check(ds >= 0, "no dataset " + name);
  const hid_t space = H5Dget_space(ds);
  std::vector<T> out(static_cast<size_t>(H5Sget_simple_extent_npoints(space)));
  const herr_t st = H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data());
  H5Sclose(space);
  H5Dclose(ds);
  check(st >= 0, "cannot read " + name);
  return out;
}

}  // namespace

GoldenFile::GoldenFile(const std::string& path) : path_(path) {
  file_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  check(file_ >= 0, "cannot open " + path);
}

GoldenFile::~GoldenFile() { H5Fclose(file_); }

bool GoldenFile::has_attr(const char* name) const { return H5Aexists(file_, name) > 0; }

namespace {
// The attribute `name`, which must hold a value of HDF5 class `want`.
hid_t open_attr(hid_t file, const char* name, H5T_class_t want) {
  const hid_t a = H5Aopen(file, name, H5P_DEFAULT);
  check(a >= 0, "no attribute " + std::string(name));
  const hid_t type = H5Aget_type(a);
  const H5T_class_t got = H5Tget_class(type);
  H5Tclose(type);
  if (got != want) H5Aclose(a);
  check(got == want, "attribute " + std::string(name) + " has another type");
  return a;
}

template <class T>
T read_attr(hid_t file, const char* name, H5T_class_t want, hid_t type) {
  const hid_t a = open_attr(file, name, want);
  T v{};
  const herr_t st = H5Aread(a, type, &v);
  H5Aclose(a);
  check(st >= 0, "cannot read attribute " + std::string(name));
  return v;
}
}  // namespace

std::string GoldenFile::attr_string(const char* name) const {
  const hid_t a = open_attr(file_, name, H5T_STRING);
  const hid_t type = H5Aget_type(a);
  std::string s(H5Tget_size(type), '\0');
  const herr_t st = H5Aread(a, type, s.data());
  H5Tclose(type);
  H5Aclose(a);
  check(st >= 0, "cannot read attribute " + std::string(name));
  return s.substr(0, s.find('\0'));
}

double GoldenFile::attr_double(const char* name) const {
  return read_attr<double>(file_, name, H5T_FLOAT, H5T_NATIVE_DOUBLE);
}
std::vector<double> GoldenFile::attr_doubles(const char* name) const {
  const hid_t a = open_attr(file_, name, H5T_FLOAT);
  const hid_t space = H5Aget_space(a);
  const hssize_t n = H5Sget_simple_extent_npoints(space);
  H5Sclose(space);
  std::vector<double> v(static_cast<size_t>(std::max<hssize_t>(n, 0)));
  const herr_t st = n > 0 ? H5Aread(a, H5T_NATIVE_DOUBLE, v.data()) : 0;
  H5Aclose(a);
  check(n >= 0 && st >= 0, "cannot read attribute " + std::string(name));
  return v;
}
int64_t GoldenFile::attr_int(const char* name) const {
  return read_attr<int64_t>(file_, name, H5T_INTEGER, H5T_NATIVE_INT64);
}

std::vector<std::string> GoldenFile::attr_names() const {
  std::vector<std::string> out;
  hsize_t at = 0;
  H5Aiterate2(
      file_, H5_INDEX_NAME, H5_ITER_INC, &at,
      [](hid_t, const char* name, const H5A_info_t*, void* data) -> herr_t {
        static_cast<std::vector<std::string>*>(data)->push_back(name);
        return 0;
      },
      &out);
  return out;
}

std::vector<std::string> GoldenFile::names(const std::string& group) const {
  std::vector<std::string> out;
  H5Literate_by_name(
      file_, group.c_str(), H5_INDEX_NAME, H5_ITER_INC, nullptr,
      [](hid_t, const char* name, const H5L_info_t*, void* data) -> herr_t {
        static_cast<std::vector<std::string>*>(data)->push_back(name);
        return 0;
      },
      &out, H5P_DEFAULT);
  return out;
}

Shape GoldenFile::shape(const std::string& dataset) const {
  const hid_t ds = H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT);
  check(ds >= 0, "no dataset " + dataset);
  const hid_t space = H5Dget_space(ds);
  const int rank = H5Sget_simple_extent_ndims(space);
  std::vector<hsize_t> dims(static_cast<size_t>(rank));
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  H5Sclose(space);
  H5Dclose(ds);
  return Shape(dims.begin(), dims.end());
}

std::vector<double> GoldenFile::doubles(const std::string& d) const {
  return read<double>(file_, d, H5T_NATIVE_DOUBLE);
}
std::vector<int64_t> GoldenFile::ints(const std::string& d) const { return read<int64_t>(file_, d, H5T_NATIVE_INT64); }

void set_position_keys(const GoldenFile& f, PositionConfig& p, const std::string& prefix) {
  for (const std::string& name : f.attr_names()) {
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string key = name.substr(prefix.size());
    if (key == "type" || key == "every" || key == "first") continue;  // model.interleaved_position's own
    const PositionOption* option = find_position_option(key);
    check(option != nullptr, name + ": no position encoding declares " + key);
    const char* attr = name.c_str();
    p.set(key, std::visit(
                   [&](const auto& declared) -> PositionValue {
                     using T = std::decay_t<decltype(declared)>;
                     if constexpr (std::is_same_v<T, bool>) {
                       const int64_t v = f.attr_int(attr);
                       check(v == 0 || v == 1, name + ": a boolean is 0 or 1");
                       return v == 1;
                     } else if constexpr (std::is_same_v<T, int64_t>) {
                       return f.attr_int(attr);
                     } else if constexpr (std::is_same_v<T, double>) {
                       return f.attr_double(attr);
                     } else if constexpr (std::is_same_v<T, std::vector<double>>) {
                       return f.attr_doubles(attr);
                     } else {
                       return f.attr_string(attr);
                     }
                   },
                   option->default_value));
  }
}

void set_interleaved_position(const GoldenFile& f, ModelConfig& c) {
  const std::string prefix = "model.interleaved_position.";
  if (!f.has_attr((prefix + "every").c_str())) return;
  c.interleaved_position.every = f.attr_int((prefix + "every").c_str());
  c.interleaved_position.first = f.attr_int((prefix + "first").c_str());
  c.interleaved_position.position.type = f.attr_string((prefix + "type").c_str());
  set_position_keys(f, c.interleaved_position.position, prefix);
}

}  // namespace rotor::test
