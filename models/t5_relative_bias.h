#pragma once
// T5 relative position bias: a learned [num_buckets, heads] table indexed by
// the bucket of (key - query) and added to the attention logits. Unlike T5 we
// keep the 1/sqrt(d) logit scaling, so only the bias is new.
#include <cstdint>

#include "engine/ops.h"

namespace rotor {

// HF/Mesh-TF bidirectional bucketing: half the buckets for keys to the right;
// within a half, distances below num_buckets/4 are exact and the rest are
// log-spaced up to max_distance (beyond it: the last bucket).
int64_t t5_bucket(int64_t relative_position, int64_t num_buckets, int64_t max_distance);
// T5's decoder (unidirectional) bucketing: every bucket for keys at or before
// the query, distance max(i - j, 0) (keys after the query share bucket 0; a
// causal mask never reads them); exact below num_buckets/2, log-spaced above.
int64_t t5_causal_bucket(int64_t relative_position, int64_t num_buckets, int64_t max_distance);

// table: [num_buckets, heads] -> per-offset bias [heads, 2N-1] with element
// [h][(i - j) + (N - 1)] = table[bucket(j - i), h], bucket t5_causal_bucket when
// `causal`, else t5_bucket. Only 2N-1 buckets are computed per call, so nothing needs caching.
Var t5_relative_bias(const Var& table, int64_t length, int64_t num_buckets, int64_t max_distance, bool causal);

}  // namespace rotor
