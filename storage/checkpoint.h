#pragma once
// Checkpoint files: a typed key-value container stored as one HDF5 file.
// This layer knows nothing of models or trainers; the trainer decides the keys.
//
// Layout: every key is an HDF5 path whose '/'-separated prefix becomes groups:
// key "model/layers.0.attn.q.weight" is dataset "layers.0.attn.q.weight" in
// group "model", read in h5py as f["model/layers.0.attn.q.weight"][...].
//
//   what        HDF5 object                                   attribute kind=
//   tensors     float32/float64 dataset, the tensor's shape;   "tensor"
//               chunked (<= 4 MiB a chunk) + Fletcher32.
//               Rank 0 -> scalar dataspace, no elements ->
//               empty dataset (both unchunked, no Fletcher32)
//   integers    scalar int64 dataset                           "integer"
//   reals       scalar float64 dataset                         "real"
//   texts       scalar fixed-length UTF-8 string dataset of    "text"
//               the text's byte length, NUL-padded
//   blobs       1-D uint8 dataset, chunked + Fletcher32        "blob"
//               (an empty blob: shape (0,), unchunked)
//   root attrs  rotor_checkpoint = 1 (int64), format_version (int64),
//               content_fnv1a64 (uint64, see content_checksum)
//
// Files use the HDF5 1.8 format (superblock and object headers v2, which carry
// their own checksums) behind a 512-byte user block holding the file's size
// and a checksum of all its bytes (checkpoint_integrity.h), verified before
// HDF5 parses the file. Format 2 added that block.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/tensor.h"
#include "storage/checkpoint_error.h"

namespace rotor {

inline constexpr int64_t kCheckpointFormatVersion = 2;

struct CheckpointContents {
  int64_t format_version = kCheckpointFormatVersion;
  std::map<std::string, Tensor> tensors;              // "model/<param>", "optimizer/m/<param>", ...
  std::map<std::string, int64_t> integers;            // "state/step", "sampler/cursor", ...
  std::map<std::string, double> reals;                // "state/best_metric", ...
  std::map<std::string, std::string> texts;           // "config", "labels", ... (UTF-8, no NUL bytes)
  std::map<std::string, std::vector<uint8_t>> blobs;  // "tokenizer/model", ...
};

// Writes `contents` to `path` atomically: the file is built in memory, then a
// temporary `<path>.tmp-<pid>` in the same directory is written, closed, fsynced and renamed over `path`,
// then the directory is fsynced. After a crash at any point, `path` holds
// either its previous contents or the complete new file. Keys must be
// non-empty '/'-separated paths without empty, "." or ".." components, unique
// across all kinds, and no key may be a group prefix of another ("a" and
// "a/b"). Throws CheckpointError naming the file (the temporary is removed).
void write_checkpoint(const std::string& path, const CheckpointContents& contents);

// Reads and fully validates a checkpoint (the whole-file checksum before
// anything else, then HDF5 metadata checksums, Fletcher32
// of every chunked dataset, the content checksum, kinds, types, version).
// Throws CheckpointError "<path>: <what is wrong>".
CheckpointContents read_checkpoint(const std::string& path);

// The same validation as read_checkpoint (it reads everything). On failure
// stores the reason, without the path, in *why (when given).
bool is_valid_checkpoint(const std::string& path, std::string* why = nullptr);

// The 64-bit FNV-1a hash stored in the root attribute content_fnv1a64, over
// this byte stream (integers little-endian, kinds in the order below, keys in
// byte order within a kind):
//   for each tensor:  'T' u64 len(key) key u8 dtype(0=f32,1=f64) u64 rank
//                     rank x i64 extent, the elements' bytes
//   for each integer: 'I' u64 len(key) key i64 value
//   for each real:    'R' u64 len(key) key f64 value (IEEE bits)
//   for each text:    'S' u64 len(key) key u64 len(text) text
//   for each blob:    'B' u64 len(key) key u64 len(blob) blob
uint64_t content_checksum(const CheckpointContents& contents);

}  // namespace rotor
