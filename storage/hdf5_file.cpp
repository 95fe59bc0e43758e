#include "storage/hdf5_file.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "storage/hdf5_checked.h"

namespace rotor::hdf5 {
namespace detail {

[[noreturn]] void fail(const std::string& what) {
  const std::string detail = error_detail();
  throw Hdf5Error(detail.empty() ? what : what + " (HDF5: " + detail + ")", detail);
}

std::string object_name(hid_t obj) {
  const ssize_t n = H5Iget_name(obj, nullptr, 0);
  if (n <= 0) return "?";
  std::string s(static_cast<size_t>(n) + 1, '\0');
  H5Iget_name(obj, s.data(), s.size());
  s.resize(static_cast<size_t>(n));
  return s.size() > 1 && s[0] == '/' ? s.substr(1) : s;
}

Id make_plist(hid_t cls) { return Id(check(H5Pcreate(cls), "cannot create a property list"), H5Pclose); }

Id utf8_string_type(size_t size, H5T_str_t padding) {
  Id type(check(H5Tcopy(H5T_C_S1), "cannot create a string type"), H5Tclose);
  check_status(H5Tset_size(type.get(), size), "cannot create a string type");
  check_status(H5Tset_cset(type.get(), H5T_CSET_UTF8), "cannot create a string type");
  check_status(H5Tset_strpad(type.get(), padding), "cannot create a string type");
  return type;
}

}  // namespace detail
namespace {

using detail::check;
using detail::check_status;
using detail::fail;
using detail::make_plist;

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

}  // namespace rotor::hdf5
