// Checkpoint files: round trips of every kind of value, and the messages for
// corrupt, truncated, foreign and too-new files.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>

#include "checkpoint_test_support.h"
#include "storage/checkpoint.h"
#include "storage/hdf5_file.h"

using namespace rotor;
using rotor::test::ScratchDir;

namespace {

bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  const size_t n = static_cast<size_t>(a.numel()) * dtype_size(a.dtype());
  const void* pa = a.dtype() == DType::F32 ? static_cast<const void*>(a.data<float>()) : a.data<double>();
  const void* pb = b.dtype() == DType::F32 ? static_cast<const void*>(b.data<float>()) : b.data<double>();
  return std::memcmp(pa, pb, n) == 0;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

std::string read_error(const std::string& path) {
  try {
    read_checkpoint(path);
  } catch (const CheckpointError& e) {
    return e.what();
  }
  return "(no error)";
}

// Rewrites one root attribute of a written checkpoint with the raw HDF5 API.
void set_root_attribute(const std::string& path, const char* name, int64_t value) {
  hdf5::silence_error_printing();
  hdf5::Id file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
  REQUIRE(file);
  hdf5::Id attr(H5Aopen(file.get(), name, H5P_DEFAULT), H5Aclose);
  REQUIRE(attr);
  REQUIRE(H5Awrite(attr.get(), H5T_NATIVE_INT64, &value) >= 0);
  attr.close();
  file.close();
  rotor::test::reseal(path);
}

}  // namespace

TEST_CASE("checkpoint: every kind of value round-trips bit for bit", "[checkpoint]") {
  ScratchDir dir("ckpt-roundtrip");
  CheckpointContents c;
  std::vector<double> v24(24);
  for (size_t i = 0; i < v24.size(); ++i) v24[i] = std::sin(static_cast<double>(i)) * 1e-3;
  c.tensors["model/layers.0.attn.q.weight"] = Tensor::from_doubles({2, 3, 4}, DType::F32, v24);
  c.tensors["optimizer/m/layers.0.attn.q.weight"] = Tensor::from_doubles({4, 6}, DType::F64, v24);
  c.tensors["model/scale"] = Tensor::scalar(DType::F32, 0.5);
  c.tensors["model/empty"] = Tensor::zeros({0, 3}, DType::F64);
  c.tensors["model/vector"] = Tensor::from_doubles({3}, DType::F64, {1.0 / 3.0, -0.0, 1e300});
  c.integers["state/step"] = 1234;
  c.integers["sampler/cursor"] = std::numeric_limits<int64_t>::min();
  c.integers["rng/state"] = std::numeric_limits<int64_t>::max();
  c.reals["state/best_metric"] = 0.1 + 0.2;
  c.reals["state/loss_sum"] = std::numeric_limits<double>::quiet_NaN();
  c.reals["state/neg_zero"] = -0.0;
  c.reals["state/inf"] = -std::numeric_limits<double>::infinity();
  c.texts["config"] = "run:\n  name: quick\nmodel:\n  position: rope\n";
  c.texts["labels"] = u8"[\"négatif\", \"positif\", \"日本語\", \"🙂\"]";
  c.texts["rope/layout"] = "";
  c.blobs["tokenizer/model"].resize(1000);
  for (size_t i = 0; i < 1000; ++i) c.blobs["tokenizer/model"][i] = static_cast<uint8_t>(i * 7);
  c.blobs["tokenizer/empty"] = {};

  const std::string path = dir / "a.h5";
  write_checkpoint(path, c);
  std::string why;
  CHECK(is_valid_checkpoint(path, &why));
  CHECK(why.empty());
  const CheckpointContents r = read_checkpoint(path);

  CHECK(r.format_version == kCheckpointFormatVersion);
  REQUIRE(r.tensors.size() == c.tensors.size());
  for (const auto& [key, t] : c.tensors) {
    INFO(key);
    REQUIRE(r.tensors.count(key));
    CHECK(r.tensors.at(key).shape() == t.shape());
    CHECK(same_bits(r.tensors.at(key), t));
  }
  CHECK(r.tensors.at("model/scale").rank() == 0);
  CHECK(r.tensors.at("model/empty").shape() == Shape{0, 3});
  CHECK(r.integers == c.integers);
  REQUIRE(r.reals.size() == c.reals.size());
  for (const auto& [key, v] : c.reals) CHECK(same_bits(r.reals.at(key), v));
  CHECK(r.texts == c.texts);
  CHECK(r.blobs == c.blobs);
  CHECK(content_checksum(r) == content_checksum(c));
  // Only the final file is left behind.
  CHECK(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator()) == 1);
}

TEST_CASE("checkpoint: rewriting a path replaces its contents", "[checkpoint]") {
  ScratchDir dir("ckpt-rewrite");
  const std::string path = dir / "a.h5";
  write_checkpoint(path, rotor::test::small_contents(1.0f));
  CheckpointContents second = rotor::test::small_contents(2.0f);
  second.integers["state/step"] = 43;
  write_checkpoint(path, second);
  const CheckpointContents r = read_checkpoint(path);
  CHECK(r.integers.at("state/step") == 43);
  CHECK(r.tensors.at("model/head.weight").at(0) == 2000.0);
}

TEST_CASE("checkpoint: a multi-megabyte tensor writes and reads quickly", "[checkpoint]") {
  ScratchDir dir("ckpt-large");
  CheckpointContents c;
  Tensor big = Tensor::empty({2048, 1024}, DType::F32);  // 8 MiB: two Fletcher32 chunks
  float* p = big.data<float>();
  for (int64_t i = 0; i < big.numel(); ++i) p[i] = static_cast<float>(i) * 0.001f;  // all distinct
  c.tensors["model/embed.weight"] = big;
  c.tensors["optimizer/v/embed.weight"] = big.to(DType::F64);  // 16 MiB

  const auto start = std::chrono::steady_clock::now();
  const std::string path = dir / "big.h5";
  write_checkpoint(path, c);
  const CheckpointContents r = read_checkpoint(path);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds < 10.0);
  CHECK(same_bits(r.tensors.at("model/embed.weight"), big));
  CHECK(same_bits(r.tensors.at("optimizer/v/embed.weight"), c.tensors.at("optimizer/v/embed.weight")));

  // Damage the second chunk: the whole-file checksum catches it, and behind
  // it (a resealed file) the checksum of that chunk.
  const size_t second_chunk = static_cast<size_t>(1024) * 1024;  // first element of row 1024
  REQUIRE(rotor::test::flip_byte_in(path, p + second_chunk + 5, 64));
  CHECK_THAT(read_error(path), Catch::StartsWith(path + ": whole-file checksum mismatch (file damaged;"));
  rotor::test::reseal(path);
  const std::string msg = read_error(path);
  CHECK_THAT(msg, Catch::Contains(path) && Catch::Contains("model/embed.weight") && Catch::Contains("Fletcher32"));
}

TEST_CASE("checkpoint: bad contents are refused before anything is written", "[checkpoint]") {
  ScratchDir dir("ckpt-badkeys");
  const std::string path = dir / "a.h5";
  auto refused = [&](CheckpointContents c, const std::string& expected) {
    INFO(expected);
    CHECK_THROWS_WITH(write_checkpoint(path, c), Catch::Contains(path) && Catch::Contains(expected));
  };
  CheckpointContents c;
  c.integers[""] = 1;
  refused(c, "empty key");
  c = {};
  c.integers["a//b"] = 1;
  refused(c, "bad key 'a//b'");
  c = {};
  c.integers["a/../b"] = 1;
  refused(c, "bad key 'a/../b'");
  c = {};
  c.integers["state/step"] = 1;
  c.reals["state/step"] = 1.0;
  refused(c, "key 'state/step' is used by two kinds");
  c = {};
  c.integers["state"] = 1;
  c.reals["state/loss"] = 1.0;
  refused(c, "key 'state' is a value and also the group of 'state/loss'");
  c = {};
  c.texts["config"] = std::string("a\0b", 3);
  refused(c, "text 'config' contains a NUL byte");
  c = {};
  c.tensors["model/w"] = Tensor();
  refused(c, "tensor 'model/w' is undefined");
  c = {};
  c.format_version = 3;
  refused(c, "cannot write format version 3");
  CHECK(std::filesystem::is_empty(dir.path()));
}

TEST_CASE("checkpoint: damaged data is detected and named", "[checkpoint]") {
  ScratchDir dir("ckpt-corrupt");
  const std::string path = dir / "step-00000100.h5";
  const CheckpointContents c = rotor::test::small_contents();

  SECTION("any damage fails the whole-file checksum before HDF5 reads the file") {
    write_checkpoint(path, c);
    const std::vector<char> head = rotor::test::head_bytes(c.tensors.at("model/head.weight"), 8);
    REQUIRE(rotor::test::flip_byte_in(path, head.data(), head.size(), 9));
    CHECK_THAT(read_error(path), Catch::StartsWith(path + ": whole-file checksum mismatch (file damaged; computed "));
  }
  // The sections below reseal the damaged file, to check the defences inside it.
  SECTION("a tensor's data fails its Fletcher32 checksum") {
    write_checkpoint(path, c);
    const std::vector<char> head = rotor::test::head_bytes(c.tensors.at("model/head.weight"), 8);
    REQUIRE(rotor::test::flip_byte_in(path, head.data(), head.size(), 9));
    rotor::test::reseal(path);
    const std::string msg = read_error(path);
    CHECK(msg == path + ": dataset model/head.weight failed its Fletcher32 checksum (file corrupt)");
    std::string why;
    CHECK_FALSE(is_valid_checkpoint(path, &why));
    CHECK(why == "dataset model/head.weight failed its Fletcher32 checksum (file corrupt)");
  }
  SECTION("a blob's data fails its Fletcher32 checksum") {
    CheckpointContents d = c;
    d.blobs["tokenizer/model"] = {'s', 'p', 'm', '-', 'm', 'o', 'd', 'e', 'l', '-', 'b', 'y', 't', 'e', 's'};
    write_checkpoint(path, d);
    REQUIRE(rotor::test::flip_byte_in(path, "spm-model-bytes", 15, 3));
    rotor::test::reseal(path);
    CHECK_THAT(read_error(path), Catch::Contains("dataset tokenizer/model failed its Fletcher32 checksum"));
  }
  SECTION("an integer (not chunked) fails the content checksum") {
    CheckpointContents d = c;
    const int64_t marker = 0x0123456789abcdefLL;
    d.integers["state/step"] = marker;
    write_checkpoint(path, d);
    REQUIRE(rotor::test::flip_byte_in(path, &marker, sizeof marker, 2));
    rotor::test::reseal(path);
    CHECK_THAT(read_error(path), Catch::StartsWith(path + ": content checksum mismatch (file corrupt"));
  }
  SECTION("a text fails the content checksum") {
    CheckpointContents d = c;
    d.texts["config"] = "a distinctive resolved config text";
    write_checkpoint(path, d);
    REQUIRE(rotor::test::flip_byte_in(path, "distinctive", 11, 4));
    rotor::test::reseal(path);
    CHECK_THAT(read_error(path), Catch::Contains("content checksum mismatch"));
  }
  SECTION("an edited content checksum is a mismatch") {
    write_checkpoint(path, c);
    set_root_attribute(path, "content_fnv1a64", 12345);
    CHECK_THAT(read_error(path), Catch::Contains("content checksum mismatch"));
  }
}

TEST_CASE("checkpoint: truncated or empty files give clear errors", "[checkpoint]") {
  ScratchDir dir("ckpt-truncated");
  const std::string path = dir / "x.h5";

  SECTION("truncated") {
    write_checkpoint(path, rotor::test::small_contents());
    std::vector<char> bytes = rotor::test::read_bytes(path);
    const size_t full = bytes.size();
    bytes.resize(full / 2);
    rotor::test::write_bytes(path, bytes);
    CHECK(read_error(path) == path + ": truncated or extended file: its header says " + std::to_string(full) +
                                  " bytes, the file has " + std::to_string(full / 2) + " (an interrupted copy?)");
  }
  SECTION("cut off inside the header") {
    write_checkpoint(path, rotor::test::small_contents());
    std::vector<char> bytes = rotor::test::read_bytes(path);
    bytes.resize(100);
    rotor::test::write_bytes(path, bytes);
    CHECK_THAT(read_error(path), Catch::StartsWith(path + ": truncated or extended file: its header says "));
  }
  SECTION("damaged HDF5 behind a resealed header") {
    write_checkpoint(path, rotor::test::small_contents());
    std::vector<char> bytes = rotor::test::read_bytes(path);
    bytes.resize(kIntegrityBlockBytes + 100);
    rotor::test::write_bytes(path, bytes);
    rotor::test::reseal(path);
    CHECK_THAT(read_error(path), Catch::StartsWith(path + ": damaged or truncated HDF5 file"));
  }
  SECTION("empty") {
    rotor::test::write_bytes(path, {});
    CHECK(read_error(path) == path + ": empty file (0 bytes; an interrupted copy?)");
  }
}

TEST_CASE("checkpoint: missing or foreign files give clear errors", "[checkpoint]") {
  ScratchDir dir("ckpt-foreign");
  const std::string path = dir / "x.h5";

  SECTION("missing") { CHECK(read_error(path) == path + ": cannot open: No such file or directory"); }
  SECTION("a directory") {
    std::filesystem::create_directory(path);
    CHECK(read_error(path) == path + ": is a directory, not a checkpoint file");
  }
  SECTION("not HDF5") {
    const std::string text = "step: 100\nthis is not HDF5\n";
    rotor::test::write_bytes(path, std::vector<char>(text.begin(), text.end()));
    CHECK(read_error(path) == path + ": not a rotor checkpoint (no 'rotor checkpoint' header at its start)");
  }
  SECTION("a plain HDF5 file (or one written before format 2)") {
    {
      hdf5::File f = hdf5::File::create(path);
      f.close();
    }
    CHECK(read_error(path) == path +
                                  ": an HDF5 file without rotor's integrity header (not a rotor checkpoint, or "
                                  "written by rotor before checkpoint format 2)");
  }
  SECTION("HDF5 without the rotor marker") {
    {
      hdf5::File f = hdf5::File::create_in_memory(kIntegrityBlockBytes);
      const double x = 1.0;
      hdf5::write_dataset(f.id(), "data/x", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {1}, &x, false, 0);
      const std::string image = f.close_to_image();
      rotor::test::write_bytes(path, std::vector<char>(image.begin(), image.end()));
    }
    rotor::test::reseal(path);
    CHECK(read_error(path) == path + ": not a rotor checkpoint (missing attribute rotor_checkpoint)");
  }
  SECTION("a newer format version") {
    write_checkpoint(path, rotor::test::small_contents());
    set_root_attribute(path, "format_version", 7);
    CHECK(read_error(path) == path + ": format version 7 is newer than this rotor (2); update rotor to read it");
  }
  SECTION("a dataset added by hand") {
    write_checkpoint(path, rotor::test::small_contents());
    {
      hdf5::Id file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
      REQUIRE(file);
      const int64_t x = 3;
      hdf5::write_dataset(file.get(), "extra/x", H5T_STD_I64LE, H5T_NATIVE_INT64, {}, &x, false, 0);
    }
    rotor::test::reseal(path);
    CHECK(read_error(path) == path + ": dataset extra/x has no attribute kind (not written by rotor)");
  }
}

TEST_CASE("checkpoint: no flipped byte anywhere in the file goes unnoticed", "[checkpoint]") {
  // Metadata is covered by HDF5's own checksums (1.8 format), chunked data by
  // Fletcher32, and everything else by the content checksum: a damaged file
  // either fails validation or still reads back exactly what was written.
  ScratchDir dir("ckpt-flips");
  const std::string path = dir / "a.h5";
  const CheckpointContents c = rotor::test::small_contents();
  write_checkpoint(path, c);
  const std::vector<char> original = rotor::test::read_bytes(path);
  const uint64_t expected = content_checksum(c);
  int detected = 0;
  for (size_t offset = 0; offset < original.size(); offset += 17) {
    std::vector<char> bytes = original;
    bytes[offset] ^= 0x04;
    rotor::test::write_bytes(path, bytes);
    std::string why;
    if (!is_valid_checkpoint(path, &why)) {
      ++detected;
      INFO(offset << ": " << why);
      CHECK_FALSE(why.empty());
    } else {
      INFO(offset << ": accepted, so the contents must be intact");
      CHECK(content_checksum(read_checkpoint(path)) == expected);
    }
  }
  CHECK(detected > 0);
}
