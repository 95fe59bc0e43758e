#include "storage/hdf5_file.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace rotor::hdf5 {
namespace {

[[noreturn]] void fail(const std::string& what) {
  const std::string detail = error_detail();
  throw Hdf5Error(detail.empty() ? what : what + " (HDF5: " + detail + ")", detail);
}

hid_t check(hid_t id, const std::string& what) {
  if (id < 0) fail(what);
  return id;
}

void check_status(herr_t status, const std::string& what) {
  if (status < 0) fail(what);
}

// The object's path inside its file, for messages.
std::string object_name(hid_t obj) {
  const ssize_t n = H5Iget_name(obj, nullptr, 0);
  if (n <= 0) return "?";
  std::string s(static_cast<size_t>(n) + 1, '\0');
  H5Iget_name(obj, s.data(), s.size());
  s.resize(static_cast<size_t>(n));
  return s.size() > 1 && s[0] == '/' ? s.substr(1) : s;
}

Id make_plist(hid_t cls) { return Id(check(H5Pcreate(cls), "cannot create a property list"), H5Pclose); }

// A UTF-8 string type of `size` bytes (H5T_VARIABLE: variable-length).
Id utf8_string_type(size_t size, H5T_str_t padding) {
  Id type(check(H5Tcopy(H5T_C_S1), "cannot create a string type"), H5Tclose);
  check_status(H5Tset_size(type.get(), size), "cannot create a string type");
  check_status(H5Tset_cset(type.get(), H5T_CSET_UTF8), "cannot create a string type");
  check_status(H5Tset_strpad(type.get(), padding), "cannot create a string type");
  return type;
}

// Link-creation properties that create missing intermediate groups, so a
// dataset "model/layers.0.w" can be written in one call.
Id intermediate_groups_lcpl() {
  Id lcpl = make_plist(H5P_LINK_CREATE);
  check_status(H5Pset_create_intermediate_group(lcpl.get(), 1), "cannot set link properties");
  check_status(H5Pset_char_encoding(lcpl.get(), H5T_CSET_UTF8), "cannot set link properties");
  return lcpl;
}

Id file_access_plist() {
  Id fapl = make_plist(H5P_FILE_ACCESS);
  check_status(H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_SEMI), "cannot set file properties");
#if H5_VERSION_GE(1, 10, 7)
  // Files are written once under a temporary name and renamed, so HDF5's own
  // locks add nothing, and they fail on file systems without flock (NFS).
  check_status(H5Pset_file_locking(fapl.get(), 0, 1), "cannot set file properties");
#endif
  return fapl;
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

herr_t collect_deepest(unsigned, const H5E_error2_t* err, void* data) {
  auto* out = static_cast<std::string*>(data);
  if (out->empty() && err->desc != nullptr && err->desc[0] != '\0') *out = err->desc;
  return 0;
}

}  // namespace

void silence_error_printing() {
  static std::once_flag once;
  std::call_once(once, [] { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); });
}

std::string error_detail() {
  std::string deepest;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, collect_deepest, &deepest);
  return deepest;
}

Id& Id::operator=(Id&& other) noexcept {
  if (this != &other) {
    close();
    id_ = other.id_;
    closer_ = other.closer_;
    other.id_ = H5I_INVALID_HID;
  }
  return *this;
}

herr_t Id::close() {
  herr_t status = 0;
  if (id_ >= 0 && closer_ != nullptr) status = closer_(id_);
  id_ = H5I_INVALID_HID;
  return status;
}

// The core driver allocates, grows and frees its buffer through these
// callbacks; the last free (at close, after HDF5's final flush) copies the
// buffer out. Sizes are exact because the driver grows in 1-byte increments.
struct File::ImageSink {
  std::string bytes;
  size_t size = 0;

  static void* allocate(size_t n, H5FD_file_image_op_t, void* self) {
    static_cast<ImageSink*>(self)->size = n;
    return std::malloc(n);
  }
  static void* copy(void* dst, const void* src, size_t n, H5FD_file_image_op_t, void*) {
    return std::memcpy(dst, src, n);
  }
  static void* resize(void* p, size_t n, H5FD_file_image_op_t, void* self) {
    static_cast<ImageSink*>(self)->size = n;
    return std::realloc(p, n);
  }
  static herr_t release(void* p, H5FD_file_image_op_t op, void* self) {
    auto* sink = static_cast<ImageSink*>(self);
    if (op == H5FD_FILE_IMAGE_OP_FILE_CLOSE && p != nullptr) sink->bytes.assign(static_cast<char*>(p), sink->size);
    std::free(p);
    return 0;
  }
  static void* share(void* self) { return self; }
  static herr_t unshare(void*) { return 0; }
};

File::File(Id id, std::unique_ptr<ImageSink> sink) : id_(std::move(id)), sink_(std::move(sink)) {}
File::File(File&&) noexcept = default;
File& File::operator=(File&&) noexcept = default;
File::~File() { id_.close(); }  // before the sink it may write to

File File::create(const std::string& path) {
  silence_error_printing();
  Id fapl = file_access_plist();
  check_status(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_V18), "cannot set file properties");
  const hid_t id = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get());
  return File(Id(check(id, "cannot create HDF5 file " + path), H5Fclose), nullptr);
}

File File::create_in_memory(size_t userblock) {
  silence_error_printing();
  auto sink = std::make_unique<ImageSink>();
  Id fapl = file_access_plist();
  check_status(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_V18), "cannot set file properties");
  check_status(H5Pset_fapl_core(fapl.get(), /*increment=*/1, /*backing_store=*/0), "cannot set file properties");
  H5FD_file_image_callbacks_t callbacks{ImageSink::allocate, ImageSink::copy,    ImageSink::resize, ImageSink::release,
                                        ImageSink::share,    ImageSink::unshare, sink.get()};
  check_status(H5Pset_file_image_callbacks(fapl.get(), &callbacks), "cannot set file properties");
  Id fcpl = make_plist(H5P_FILE_CREATE);
  check_status(H5Pset_userblock(fcpl.get(), userblock), "cannot reserve a user block");
  const hid_t id = H5Fcreate("rotor-in-memory.h5", H5F_ACC_TRUNC, fcpl.get(), fapl.get());
  return File(Id(check(id, "cannot create an in-memory HDF5 file"), H5Fclose), std::move(sink));
}

File File::open_image(const std::string& bytes, const std::string& name) {
  silence_error_printing();
  Id fapl = file_access_plist();
  check_status(H5Pset_fapl_core(fapl.get(), size_t{1} << 20, /*backing_store=*/0), "cannot set file properties");
  // HDF5 copies the image; `bytes` need not outlive the file.
  check_status(H5Pset_file_image(fapl.get(), const_cast<char*>(bytes.data()), bytes.size()),
               "cannot hand the file image to HDF5");
  // The core driver refuses a name that exists on disk when given an image.
  const std::string image_name = "(in memory) " + name;
  const hid_t id = H5Fopen(image_name.c_str(), H5F_ACC_RDONLY, fapl.get());
  return File(Id(check(id, "cannot open HDF5 file " + name), H5Fclose), nullptr);
}

void File::close() {
  if (id_.close() < 0) fail("cannot write the file out");
}

std::string File::close_to_image() {
  if (!sink_) throw Hdf5Error("internal: close_to_image on a file not made by create_in_memory");
  close();
  return std::move(sink_->bytes);
}

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

namespace {

void write_scalar_attribute(hid_t obj, const char* name, hid_t file_type, hid_t mem_type, const void* value) {
  Id space(check(H5Screate(H5S_SCALAR), "cannot create a dataspace"), H5Sclose);
  Id attr(check(H5Acreate2(obj, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                std::string("cannot create attribute ") + name),
          H5Aclose);
  check_status(H5Awrite(attr.get(), mem_type, value), std::string("cannot write attribute ") + name);
}

}  // namespace

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
