#include "storage/checkpoint.h"

#include <fmt/core.h>

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <stdexcept>

#include "engine/fnv1a.h"
#include "storage/checkpoint_fs.h"
#include "storage/checkpoint_integrity.h"
#include "storage/hdf5_file.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "content_checksum hashes in-memory bytes and assumes a little-endian host"
#endif

namespace rotor {
namespace {

constexpr size_t kMaxChunkBytes = size_t{4} << 20;
// Texts are configs and label lists (kilobytes); kinds are single words.
constexpr size_t kMaxTextBytes = size_t{64} << 20;
constexpr size_t kMaxKindBytes = 64;
constexpr const char* kMarkerAttr = "rotor_checkpoint";
constexpr const char* kVersionAttr = "format_version";
constexpr const char* kChecksumAttr = "content_fnv1a64";
constexpr const char* kKindAttr = "kind";

// A reason a file is not a valid checkpoint, without the path.
struct Invalid : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// FNV-1a over the entries; every variable-length field is preceded by its
// size, so that different contents cannot concatenate to the same bytes.
class ContentHash : public Fnv1a {
 public:
  void entry(char kind, const std::string& key) {
    value(kind);
    sized(key.data(), key.size());
  }
  void sized(const void* data, size_t n) {
    value(static_cast<uint64_t>(n));
    bytes(data, n);
  }
};

// ---- writing ----

void check_key(const std::string& key) {
  if (key.empty()) throw Invalid("empty key");
  size_t start = 0;
  while (true) {
    const size_t slash = key.find('/', start);
    const std::string part = key.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (part.empty() || part == "." || part == "..") {
      throw Invalid("bad key '" + key + "' (expected '/'-separated names, none empty, '.' or '..')");
    }
    if (slash == std::string::npos) return;
    start = slash + 1;
  }
}

void check_contents(const CheckpointContents& c) {
  if (c.format_version != kCheckpointFormatVersion) {
    throw Invalid("cannot write format version " + std::to_string(c.format_version) + " (this rotor writes " +
                  std::to_string(kCheckpointFormatVersion) + ")");
  }
  std::set<std::string> keys;
  auto add = [&](const std::string& key) {
    check_key(key);
    if (!keys.insert(key).second) throw Invalid("key '" + key + "' is used by two kinds of value");
  };
  for (const auto& [key, t] : c.tensors) {
    add(key);
    if (!t.defined()) throw Invalid("tensor '" + key + "' is undefined");
  }
  for (const auto& kv : c.integers) add(kv.first);
  for (const auto& kv : c.reals) add(kv.first);
  for (const auto& [key, text] : c.texts) {
    add(key);
    if (text.find('\0') != std::string::npos) {
      throw Invalid("text '" + key + "' contains a NUL byte (store binary data as a blob)");
    }
  }
  for (const auto& kv : c.blobs) add(kv.first);
  for (const std::string& key : keys) {
    for (size_t slash = key.find('/'); slash != std::string::npos; slash = key.find('/', slash + 1)) {
      if (keys.count(key.substr(0, slash))) {
        throw Invalid("key '" + key.substr(0, slash) + "' is a value and also the group of '" + key + "'");
      }
    }
  }
}

std::vector<hsize_t> to_dims(const Shape& shape) { return std::vector<hsize_t>(shape.begin(), shape.end()); }

void write_contents(hid_t root, const CheckpointContents& c) {
  for (const auto& [key, t] : c.tensors) {
    const bool f32 = t.dtype() == DType::F32;
    const void* data = f32 ? static_cast<const void*>(t.data<float>()) : static_cast<const void*>(t.data<double>());
    hdf5::Id ds =
        hdf5::write_dataset(root, key, f32 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE,
                            f32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE, to_dims(t.shape()), data, true, kMaxChunkBytes);
    hdf5::write_attribute(ds.get(), kKindAttr, std::string("tensor"));
  }
  for (const auto& [key, v] : c.integers) {
    hdf5::Id ds = hdf5::write_dataset(root, key, H5T_STD_I64LE, H5T_NATIVE_INT64, {}, &v, false, 0);
    hdf5::write_attribute(ds.get(), kKindAttr, std::string("integer"));
  }
  for (const auto& [key, v] : c.reals) {
    hdf5::Id ds = hdf5::write_dataset(root, key, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {}, &v, false, 0);
    hdf5::write_attribute(ds.get(), kKindAttr, std::string("real"));
  }
  for (const auto& [key, text] : c.texts) {
    hdf5::Id ds = hdf5::write_string_dataset(root, key, text);
    hdf5::write_attribute(ds.get(), kKindAttr, std::string("text"));
  }
  for (const auto& [key, blob] : c.blobs) {
    hdf5::Id ds = hdf5::write_dataset(root, key, H5T_STD_U8LE, H5T_NATIVE_UINT8, {blob.size()}, blob.data(), true,
                                      kMaxChunkBytes);
    hdf5::write_attribute(ds.get(), kKindAttr, std::string("blob"));
  }
  hdf5::write_attribute(root, kMarkerAttr, int64_t{1});
  hdf5::write_attribute(root, kVersionAttr, c.format_version);
  hdf5::write_attribute(root, kChecksumAttr, content_checksum(c));
}

// ---- reading ----

// The whole file's bytes, verified (see checkpoint_integrity.h) before HDF5
// parses any of them.
std::string read_verified_image(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw Invalid(std::string("cannot open: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw Invalid("is a directory, not a checkpoint file");
  if (st.st_size == 0) throw Invalid("empty file (0 bytes; an interrupted copy?)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Invalid(std::string("cannot open: ") + std::strerror(errno));
  std::string image(static_cast<size_t>(st.st_size), '\0');
  in.read(image.data(), static_cast<std::streamsize>(image.size()));
  image.resize(static_cast<size_t>(in.gcount()));
  if (in.bad()) throw Invalid(std::string("cannot read: ") + std::strerror(errno));
  const std::string problem = checkpoint_image_problem(image);
  if (!problem.empty()) throw Invalid(problem);
  return image;
}

std::string shape_text(const std::vector<hsize_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

// Reads dataset `key` into `out` and turns HDF5's failures into reasons.
void read_checked(hid_t ds, const std::string& key, const hdf5::DatasetInfo& info, hid_t mem_type, void* out) {
  try {
    hdf5::read_dataset(ds, mem_type, out);
  } catch (const hdf5::Hdf5Error& e) {
    if (info.fletcher32 && e.detail.find("Fletcher32") != std::string::npos) {
      throw Invalid("dataset " + key + " failed its Fletcher32 checksum (file corrupt)");
    }
    throw Invalid(std::string("file corrupt or unreadable: ") + e.what());
  }
}

void expect(bool ok, const std::string& key, const hdf5::DatasetInfo& info, const std::string& kind,
            const char* wanted) {
  if (!ok) {
    throw Invalid("dataset " + key + " (kind " + kind + ") holds " + info.type_name() + " of shape " +
                  (info.scalar ? "scalar" : shape_text(info.dims)) + ", expected " + wanted);
  }
}

// Bytes of data a dataset declares: its extents times its element size.
long double declared_bytes(const hdf5::DatasetInfo& info) {
  long double bytes = static_cast<long double>(info.type_size);
  for (hsize_t d : info.dims) bytes *= static_cast<long double>(d);
  return bytes;
}

// rotor stores data uncompressed, so all datasets together declare no more
// bytes than the file has. Checked for every dataset before any is read: many
// datasets each smaller than the file could otherwise add up to an
// allocation far beyond it.
void check_declared_sizes(hid_t root, const std::vector<std::string>& keys, long long file_size) {
  long double total = 0;
  for (const std::string& key : keys) total += declared_bytes(hdf5::describe(hdf5::open_dataset(root, key).get()));
  if (total > static_cast<long double>(file_size)) {
    throw Invalid(
        fmt::format("its datasets declare {:.0f} bytes of data in all ({} datasets), more than the file's {} bytes "
                    "(forged or damaged; nothing was read)",
                    static_cast<double>(total), keys.size(), file_size));
  }
}

void read_entry(hid_t root, const std::string& key, CheckpointContents& c) {
  hdf5::Id ds = hdf5::open_dataset(root, key);
  const hdf5::DatasetInfo info = hdf5::describe(ds.get());
  if (!hdf5::has_attribute(ds.get(), kKindAttr)) {
    throw Invalid("dataset " + key + " has no attribute kind (not written by rotor)");
  }
  const std::string kind = hdf5::read_string_attribute(ds.get(), kKindAttr, kMaxKindBytes);
  if (kind == "tensor") {
    expect(info.type_class == H5T_FLOAT && (info.type_size == 4 || info.type_size == 8), key, info, kind,
           "float32 or float64 data");
    const DType dtype = info.type_size == 4 ? DType::F32 : DType::F64;
    Tensor t = Tensor::empty(Shape(info.dims.begin(), info.dims.end()), dtype);
    if (t.numel() > 0) {
      if (dtype == DType::F32) {
        read_checked(ds.get(), key, info, H5T_NATIVE_FLOAT, t.data<float>());
      } else {
        read_checked(ds.get(), key, info, H5T_NATIVE_DOUBLE, t.data<double>());
      }
    }
    c.tensors.emplace(key, std::move(t));
  } else if (kind == "integer") {
    expect(info.type_class == H5T_INTEGER && info.type_size == 8 && info.is_signed && info.scalar, key, info, kind,
           "a scalar int64");
    int64_t v = 0;
    read_checked(ds.get(), key, info, H5T_NATIVE_INT64, &v);
    c.integers.emplace(key, v);
  } else if (kind == "real") {
    expect(info.type_class == H5T_FLOAT && info.type_size == 8 && info.scalar, key, info, kind, "a scalar float64");
    double v = 0;
    read_checked(ds.get(), key, info, H5T_NATIVE_DOUBLE, &v);
    c.reals.emplace(key, v);
  } else if (kind == "text") {
    // Fixed length: its size is known, and checked, before anything is allocated.
    expect(info.type_class == H5T_STRING && !info.is_vlen_string && info.scalar && info.type_size <= kMaxTextBytes, key,
           info, kind, "a scalar fixed-length string of at most 64 MiB");
    c.texts.emplace(key, hdf5::read_string_dataset(ds.get(), kMaxTextBytes));
  } else if (kind == "blob") {
    expect(info.type_class == H5T_INTEGER && info.type_size == 1 && !info.is_signed && info.dims.size() == 1, key, info,
           kind, "a 1-D uint8 array");
    std::vector<uint8_t> blob(static_cast<size_t>(info.dims[0]));
    if (!blob.empty()) read_checked(ds.get(), key, info, H5T_NATIVE_UINT8, blob.data());
    c.blobs.emplace(key, std::move(blob));
  } else {
    throw Invalid("dataset " + key + " has unknown kind '" + kind + "' (expected tensor, integer, real, text or blob)");
  }
}

CheckpointContents read_contents(const std::string& path) {
  const std::string image = read_verified_image(path);
  const auto file_size = static_cast<long long>(image.size());
  hdf5::File file = [&] {
    try {
      return hdf5::File::open_image(image, path);
    } catch (const hdf5::Hdf5Error& e) {
      throw Invalid("damaged or truncated HDF5 file (HDF5: " + (e.detail.empty() ? "cannot open it" : e.detail) + ")");
    }
  }();
  const hid_t root = file.id();
  try {
    if (!hdf5::has_attribute(root, kMarkerAttr)) {
      throw Invalid(std::string("not a rotor checkpoint (missing attribute ") + kMarkerAttr + ")");
    }
    const int64_t marker = hdf5::read_int64_attribute(root, kMarkerAttr);
    if (marker != 1) {
      throw Invalid(std::string("not a rotor checkpoint (attribute ") + kMarkerAttr + " is " + std::to_string(marker) +
                    ", expected 1)");
    }
    if (!hdf5::has_attribute(root, kVersionAttr)) {
      throw Invalid(std::string("damaged checkpoint (missing attribute ") + kVersionAttr + ")");
    }
    CheckpointContents c;
    c.format_version = hdf5::read_int64_attribute(root, kVersionAttr);
    if (c.format_version > kCheckpointFormatVersion) {
      throw Invalid("format version " + std::to_string(c.format_version) + " is newer than this rotor (" +
                    std::to_string(kCheckpointFormatVersion) + "); update rotor to read it");
    }
    if (c.format_version < 1) throw Invalid("invalid format version " + std::to_string(c.format_version));
    if (!hdf5::has_attribute(root, kChecksumAttr)) {
      throw Invalid(std::string("damaged checkpoint (missing attribute ") + kChecksumAttr + ")");
    }
    const uint64_t stored = hdf5::read_uint64_attribute(root, kChecksumAttr);
    const std::vector<std::string> keys = hdf5::dataset_paths(root);
    check_declared_sizes(root, keys, file_size);
    for (const std::string& key : keys) read_entry(root, key, c);
    const uint64_t computed = content_checksum(c);
    if (computed != stored) {
      throw Invalid(fmt::format("content checksum mismatch (file corrupt or edited): stored {:016x}, computed {:016x}",
                                stored, computed));
    }
    return c;
  } catch (const hdf5::Hdf5Error& e) {
    throw Invalid(std::string("file corrupt or unreadable: ") + e.what());
  }
}

}  // namespace

uint64_t content_checksum(const CheckpointContents& c) {
  ContentHash h;
  for (const auto& [key, t] : c.tensors) {
    h.entry('T', key);
    h.value(static_cast<uint8_t>(t.dtype() == DType::F32 ? 0 : 1));
    h.value(static_cast<uint64_t>(t.rank()));
    for (int64_t d : t.shape()) h.value(d);
    if (t.dtype() == DType::F32) {
      h.bytes(t.data<float>(), sizeof(float) * static_cast<size_t>(t.numel()));
    } else {
      h.bytes(t.data<double>(), sizeof(double) * static_cast<size_t>(t.numel()));
    }
  }
  for (const auto& [key, v] : c.integers) {
    h.entry('I', key);
    h.value(v);
  }
  for (const auto& [key, v] : c.reals) {
    h.entry('R', key);
    h.value(v);
  }
  for (const auto& [key, text] : c.texts) {
    h.entry('S', key);
    h.sized(text.data(), text.size());
  }
  for (const auto& [key, blob] : c.blobs) {
    h.entry('B', key);
    h.sized(blob.data(), blob.size());
  }
  return h.hash();
}

void write_checkpoint(const std::string& path, const CheckpointContents& contents) {
  try {
    check_contents(contents);
  } catch (const Invalid& e) {
    throw CheckpointError(path + ": " + e.what());
  }
  // Built in memory, so that a full disk fails in a plain write() (HDF5 is
  // never left holding a half-written file), and sealed before it is written.
  std::string image;
  try {
    hdf5::File file = hdf5::File::create_in_memory(kIntegrityBlockBytes);
    write_contents(file.id(), contents);
    image = file.close_to_image();
  } catch (const hdf5::Hdf5Error& e) {
    throw CheckpointError(path + ": cannot write checkpoint: " + e.what());
  }
  seal_checkpoint_image(image);
  checkpoint_fs::write_file_atomically(path, image);
}

CheckpointContents read_checkpoint(const std::string& path) {
  try {
    return read_contents(path);
  } catch (const Invalid& e) {
    throw CheckpointError(path + ": " + e.what());
  }
}

bool is_valid_checkpoint(const std::string& path, std::string* why) {
  try {
    read_contents(path);
    return true;
  } catch (const Invalid& e) {
    if (why != nullptr) *why = e.what();
    return false;
  }
}

}  // namespace rotor
