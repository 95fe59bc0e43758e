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
// is uniform attention and 0 attends to one key. Stored in RUN/attention.json.
// Softmax attention only (the composed kernel forms the probabilities);
// linear attention is recorded as n/a with the reason.
#include <cstdint>
#include <string>
#include <vector>

namespace rotor {

struct AttentionUsage {
  bool available = false;
  std::string reason;  // why not, when !available
  std::string split;
  int64_t windows = 0;                // evaluation windows seen (a long document may give several)
  std::vector<double> layer_entropy;  // per layer, relative to uniform

  // Every layer at or above kUniformEntropy: attention never left uniform.
  bool near_uniform() const;
};

constexpr int64_t kAttentionWindows = 256;
constexpr double kUniformEntropy = 0.98;

// RUN/attention.json; not available with reason "not measured" when it does not exist.
bool has_attention_usage(const std::string& run_dir);
AttentionUsage read_attention_usage(const std::string& run_dir);

// Measures and writes RUN/attention.json (the run must be finished).
AttentionUsage measure_attention_usage(const std::string& run_dir);

}  // namespace rotor
