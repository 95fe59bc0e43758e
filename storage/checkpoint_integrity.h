#pragma once
// Whole-file integrity of checkpoint files, verified before HDF5 parses a
// byte. HDF5's parser trusts the file's metadata; a damaged file can crash it
// (a bad free() in link iteration, issue 11), so only bytes that match the
// checksum written with them ever reach it.
//
// A checkpoint file starts with a 512-byte HDF5 user block, which HDF5 (and
// h5py) skip; rotor fills it after HDF5 has produced the rest of the file:
//   "rotor checkpoint\nbytes <file size>\nfnv1a64 <16 hex digits>\n"
// then NUL bytes up to 512. The hash (FNV-1a 64) covers every byte after the
// block. Any other block content is damage.
#include <cstddef>
#include <string>

namespace rotor {

inline constexpr size_t kIntegrityBlockBytes = 512;

// Fills the first kIntegrityBlockBytes of `image`, the bytes of an HDF5 file
// created with a user block of that size.
void seal_checkpoint_image(std::string& image);

// Why `image` (a whole file's bytes) is not an intact sealed checkpoint, or
// "" when it is.
std::string checkpoint_image_problem(const std::string& image);

}  // namespace rotor
