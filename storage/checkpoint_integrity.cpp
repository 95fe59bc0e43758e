#include "storage/checkpoint_integrity.h"

#include <cstring>

#include <fmt/format.h>

#include "engine/fnv1a.h"

namespace rotor {
namespace {

constexpr const char* kTitle = "rotor checkpoint\n";

uint64_t body_hash(const std::string& image) {
  return fnv1a(image.data() + kIntegrityBlockBytes, image.size() - kIntegrityBlockBytes);
}

std::string block_for(size_t size, uint64_t hash) {
  std::string block = fmt::format("{}bytes {}\nfnv1a64 {:016x}\n", kTitle, size, hash);
  block.resize(kIntegrityBlockBytes, '\0');
  return block;
}

bool starts_with(const std::string& image, const char* prefix, size_t n) {
  return image.size() >= n && std::memcmp(image.data(), prefix, n) == 0;
}

}  // namespace

void seal_checkpoint_image(std::string& image) {
  const std::string block = block_for(image.size(), body_hash(image));
  std::memcpy(image.data(), block.data(), block.size());
}

std::string checkpoint_image_problem(const std::string& image) {
  static const char kHdf5Signature[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
  if (starts_with(image, kHdf5Signature, 8)) {
    return "an HDF5 file without rotor's integrity header (not a rotor checkpoint, or written by rotor before "
           "checkpoint format 2)";
  }
  if (!starts_with(image, kTitle, std::strlen(kTitle))) {
    return "not a rotor checkpoint (no 'rotor checkpoint' header at its start)";
  }
  unsigned long long stated = 0;
  if (std::sscanf(image.c_str() + std::strlen(kTitle), "bytes %llu", &stated) != 1) {
    return "damaged header (no file size in it)";
  }
  if (image.size() < kIntegrityBlockBytes || stated != image.size()) {
    return "truncated or extended file: its header says " + std::to_string(stated) + " bytes, the file has " +
           std::to_string(image.size()) + " (an interrupted copy?)";
  }
  const uint64_t computed = body_hash(image);
  if (image.compare(0, kIntegrityBlockBytes, block_for(image.size(), computed)) != 0) {
    return fmt::format("whole-file checksum mismatch (file damaged; computed {:016x}, the header holds another value)",
                       computed);
  }
  return "";
}

}  // namespace rotor
