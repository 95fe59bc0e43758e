#pragma once
// The unit handed to models: a padded block of token windows.
#include <cstdint>
#include <vector>

namespace rotor {

struct Batch {
  int64_t batch_size = 0;           // B: number of windows
  int64_t seq_len = 0;              // N: longest window in the batch (dynamic padding)
  std::vector<int32_t> tokens;      // [B * N] row-major, padded with 0 (PAD)
  std::vector<int32_t> lengths;     // [B] real tokens per row
  std::vector<int32_t> labels;      // [B] class index
  std::vector<int64_t> doc_ids;     // [B] document index within its split
  std::vector<int32_t> window_ids;  // [B] window index within its document
  // [B * N] row-major, the token each slot must predict (a sequence task's
  // split, tokenized_split.h), kNoTarget on unscored slots and padding; empty
  // when the split has no targets.
  std::vector<int32_t> targets;
  // [B * N] row-major, each token's position (coupled positions, tasks/coupled_positions.h),
  // 0 on padding; empty when the split has none (token t at position t).
  std::vector<int32_t> positions;
  int64_t epoch = 0;  // the training epoch that served it (evaluation: 0); keys per-epoch draws
};

}  // namespace rotor
