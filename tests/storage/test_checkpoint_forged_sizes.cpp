// Checkpoints forged to pass every checksum while declaring far more data
// than they hold: datasets whose chunks were never written (HDF5 reads them
// as zeros) and strings whose declared length has no bytes behind it. The
// reader must refuse them, naming the file, before allocating what they ask.
#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

#include "checkpoint_test_support.h"
#include "storage/checkpoint.h"
#include "storage/hdf5_file.h"

using namespace rotor;
using rotor::test::ScratchDir;

namespace {

// A checkpoint whose datasets `add` creates, with rotor's root attributes, the
// content checksum of `reads` (what a reader trusting the file returns) and a
// resealed whole-file header: only the size checks are left to catch it.
void forge(const std::string& path, const std::function<void(hid_t)>& add, const CheckpointContents& reads) {
  hdf5::File f = hdf5::File::create_in_memory(kIntegrityBlockBytes);
  add(f.id());
  hdf5::write_attribute(f.id(), "rotor_checkpoint", int64_t{1});
  hdf5::write_attribute(f.id(), "format_version", kCheckpointFormatVersion);
  hdf5::write_attribute(f.id(), "content_fnv1a64", content_checksum(reads));
  const std::string image = f.close_to_image();
  rotor::test::write_bytes(path, std::vector<char>(image.begin(), image.end()));
  rotor::test::reseal(path);
}

// A float32 tensor dataset of `n` elements whose chunks are never written.
void add_unwritten_tensor(hid_t file, const std::string& key, hsize_t n) {
  hdf5::Id space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  hdf5::Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  const hsize_t chunk = 1024;
  REQUIRE(H5Pset_chunk(dcpl.get(), 1, &chunk) >= 0);
  hdf5::Id ds(H5Dcreate2(file, key.c_str(), H5T_IEEE_F32LE, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
              H5Dclose);
  REQUIRE(ds);
  hdf5::write_attribute(ds.get(), "kind", std::string("tensor"));
}

// A scalar text dataset declaring a fixed-length string of `bytes` bytes, never written.
void add_unwritten_text(hid_t file, const std::string& key, size_t bytes) {
  hdf5::Id type(H5Tcopy(H5T_C_S1), H5Tclose);
  REQUIRE(H5Tset_size(type.get(), bytes) >= 0);
  hdf5::Id space(H5Screate(H5S_SCALAR), H5Sclose);
  hdf5::Id ds(H5Dcreate2(file, key.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  REQUIRE(ds);
  hdf5::write_attribute(ds.get(), "kind", std::string("text"));
}

std::string forged_read_error(const std::string& path) {
  try {
    read_checkpoint(path);
  } catch (const CheckpointError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("forged checkpoint: datasets each within the file but together far beyond it are refused",
          "[checkpoint][forged]") {
  ScratchDir dir("ckpt-forged-total");
  const std::string path = dir / "many.h5";
  // 64 KiB of real data and three tensors each declaring 40 KiB: every one
  // fits the file, all of them do not (the case: 1,500 x 16 MB in 18 MB).
  CheckpointContents reads;
  reads.blobs["padding"] = std::vector<uint8_t>(64 << 10, 7);
  for (int i = 0; i < 3; ++i) reads.tensors["w" + std::to_string(i)] = Tensor::zeros({10240}, DType::F32);
  forge(
      path,
      [&](hid_t f) {
        const std::vector<uint8_t>& pad = reads.blobs["padding"];
        hdf5::Id blob =
            hdf5::write_dataset(f, "padding", H5T_STD_U8LE, H5T_NATIVE_UINT8, {pad.size()}, pad.data(), true, 1 << 20);
        hdf5::write_attribute(blob.get(), "kind", std::string("blob"));
        for (int i = 0; i < 3; ++i) add_unwritten_tensor(f, "w" + std::to_string(i), 10240);
      },
      reads);
  const size_t file_size = rotor::test::read_bytes(path).size();
  REQUIRE(file_size > 40 << 10);  // each tensor alone fits the file
  REQUIRE(file_size < 184 << 10);
  CHECK(forged_read_error(path) ==
        path + ": its datasets declare 188416 bytes of data in all (4 datasets), more than the file's " +
            std::to_string(file_size) + " bytes (forged or damaged; nothing was read)");
}

TEST_CASE("forged checkpoint: a fixed-length string longer than the file is refused before it is allocated",
          "[checkpoint][forged]") {
  ScratchDir dir("ckpt-forged-string");
  const std::string path = dir / "string.h5";
  CheckpointContents reads;
  reads.texts["config"] = "";  // NUL bytes read back as an empty text
  forge(
      path, [](hid_t f) { add_unwritten_text(f, "config", size_t{1} << 20); }, reads);
  CHECK_THAT(forged_read_error(path),
             Catch::StartsWith(path + ": its datasets declare 1048576 bytes of data in all (1 datasets)"));
}

TEST_CASE("forged checkpoint: texts must be fixed-length strings", "[checkpoint][forged]") {
  ScratchDir dir("ckpt-forged-vlen");
  const std::string path = dir / "vlen.h5";
  CheckpointContents reads;
  reads.texts["config"] = "run: {}";
  forge(
      path,
      [](hid_t f) {
        hdf5::Id type(H5Tcopy(H5T_C_S1), H5Tclose);
        REQUIRE(H5Tset_size(type.get(), H5T_VARIABLE) >= 0);
        REQUIRE(H5Tset_cset(type.get(), H5T_CSET_UTF8) >= 0);
        const char* text = "run: {}";
        hdf5::Id ds = hdf5::write_dataset(f, "config", type.get(), type.get(), {}, &text, false, 0);
        hdf5::write_attribute(ds.get(), "kind", std::string("text"));
      },
      reads);
  CHECK(forged_read_error(path) == path +
                                       ": dataset config (kind text) holds string of shape scalar, expected a scalar "
                                       "fixed-length string of at most 64 MiB");
}

TEST_CASE("hdf5 strings longer than the reader's bound are refused", "[checkpoint][forged]") {
  hdf5::File f = hdf5::File::create_in_memory(0);
  hdf5::Id ds = hdf5::write_string_dataset(f.id(), "text", std::string(300, 'x'));
  hdf5::write_attribute(ds.get(), "kind", std::string("a long kind"));
  CHECK(hdf5::read_string_dataset(ds.get(), 300) == std::string(300, 'x'));
  CHECK_THROWS_WITH(hdf5::read_string_dataset(ds.get(), 299),
                    "dataset text holds a string of 300 bytes, more than the 299 expected");
  CHECK_THROWS_WITH(hdf5::read_string_attribute(ds.get(), "kind", 4),
                    "attribute kind holds a string of 12 bytes, more than the 4 expected");
}
