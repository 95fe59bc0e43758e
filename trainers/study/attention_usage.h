#pragma once
// Does a trained model use positions at all? If attention stays near uniform,
// no position encoding can change what it computes (seen on a genre corpus:
// after 300 steps every head's scores spread by ~0.06 and t5_bias and none
// predicted alike). This measures, for a finished run's best checkpoint on
// up to kAttentionWindows validation windows (eval_windows: all gives several per
// long document), each layer's mean attention entropy
// relative to the uniform one:
//
//   H(b, h, i) = -sum_j p_ij log p_ij / log(K_b)    over the K_b real keys
//
// averaged over heads and real queries (rows with one key are skipped), so 1
// is uniform attention and 0 attends to one key. Stored in the run's attention
// record (run/attention_record.h).
// Softmax attention only (the composed kernel forms the probabilities);
// linear attention is recorded as n/a with the reason.
#include <cstdint>
#include <string>

#include "trainers/run/attention_record.h"

namespace rotor {

constexpr int64_t kAttentionWindows = 256;

// Measures and writes the run's attention record (the run must be finished).
AttentionUsage measure_attention_usage(const std::string& run_dir);

}  // namespace rotor
