#pragma once
// T5 relative position bias: a learned [num_buckets, heads] table indexed by
// the bucket of (key - query) and added to the attention logits. Unlike T5 we
// keep the 1/sqrt(d) logit scaling, so only the bias is new.
#include <cstdint>
#include <vector>

#include "engine/ops.h"

namespace rotor {

// HF/Mesh-TF bidirectional bucketing: half the buckets for keys to the right;
// within a half, distances below num_buckets/4 are exact and the rest are
// log-spaced up to max_distance (beyond it: the last bucket).
int64_t t5_bucket(int64_t relative_position, int64_t num_buckets, int64_t max_distance);

class T5RelativeBias {
 public:
  T5RelativeBias(int64_t num_buckets, int64_t max_distance) : num_buckets_(num_buckets), max_distance_(max_distance) {}
  // table: [num_buckets, heads] -> bias [heads, N, N], bias[h, i, j] = table[bucket(j - i), h]
  Var bias(const Var& table, int64_t length);

 private:
  // Bucket of every (i, j) pair for this length, [N * N]. Looked up from a
  // per-offset table (cached for the longest length seen), so no log is
  // taken per forward and memory stays O(N) across lengths.
  std::vector<int32_t> buckets(int64_t length);
  int64_t num_buckets_, max_distance_;
  std::vector<int32_t> by_offset_;  // bucket of j - i at index (j - i) + (size - 1) / 2
};

}  // namespace rotor
