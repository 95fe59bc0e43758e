#pragma once
// RoPE / RoFormer: q and k of every head are rotated after projection; pair i
// at position m turns by m * theta_i, so q_m . k_n depends only on m - n.
// Frequencies and angles are computed in double (float angles past ~1e4
// positions lose the relative property). One table for the longest length
// seen is kept, and shorter lengths are views of its first rows, so memory
// stays O(N r) however many lengths dynamic padding produces (the cache is
// bounded by the longest input and guarded for concurrent const use). Tables
// are never parameters and are never scaled: YaRN's attention factor is a
// logit temperature (RopeEncoding::logit_scale), not a table multiplier.
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "engine/ops.h"
#include "models/model_config.h"
#include "models/positions.h"

namespace rotor {

// RoPE's model.position.* keys (layout, base, fraction, rotary_value, scaling,
// scaling_factor, original_max_len, llama3's low_freq_factor and
// high_freq_factor, resonance), declared here once for every encoding built on
// this rotation.
std::vector<PositionOption> rotary_options();
// The rows of rotary_options() named in `keys` (an encoding that reads only some of them).
std::vector<PositionOption> rotary_options(const std::vector<std::string>& keys);
// Rotation turns pairs of dims: throws ModelConfigError naming model.position.type when a head's are odd.
void require_even_head_dim(const ModelConfig& config);

struct RotaryTables {
  Tensor cos, sin;  // [N, r/2], float64
};

class RotaryEmbedding {
 public:
  // head_dim: per-head dims; the first config.rotary_dims() of them rotate.
  RotaryEmbedding(int64_t head_dim, const PositionConfig& config);
  // Pairs rotating at `inverse_frequencies` (2 dims each); a frequency of 0
  // leaves its pair exactly unrotated (cos 0 = 1, sin 0 = 0), as p-RoPE does.
  RotaryEmbedding(RotaryLayout layout, std::vector<double> inverse_frequencies);

  // theta_i for i < r/2 after the configured scaling (models/rope_scaling.h), at
  // the training length (dynamic_ntk's frequencies there are plain RoPE's, longrope's take the short factors).
  static std::vector<double> inverse_frequencies(int64_t rotary_dims, const PositionConfig& config);
  // The attention factor of a scaling factor s > 1: YaRN's 0.1 ln(s) + 1,
  // LongRoPE's sqrt(1 + ln(s) / ln(original_max_len)); 1 for the other scalings.
  // Both multiply q and k by it (cos and sin, in Hugging Face's code), i.e. the
  // logits by its square; rotor scales the whole logit, which is the same when
  // every dim rotates (fraction 1).
  static double attention_factor(const PositionConfig& config);

  int64_t rotary_dims() const { return rotary_dims_; }
  RotaryLayout layout() const { return layout_; }
  const std::vector<double>& frequencies() const { return inv_freq_; }

  // Angles for positions 0..length-1 (views of the cached table) or for
  // explicit positions.
  RotaryTables tables(int64_t length) const;
  RotaryTables tables_at(const std::vector<int64_t>& positions) const;

  // x: [..., N, head_dim] rotated for `positions` (empty: 0..N-1, from the cache).
  Var apply(const Var& x, const Positions& positions = Positions()) const;
  // The tables for the N slots at `positions`; with a length-dependent schedule
  // (dynamic_ntk) the frequencies of the forward's reach, the last position + 1.
  RotaryTables tables(int64_t length, const Positions& positions) const;

 private:
  int64_t rotary_dims_;
  RotaryLayout layout_;
  std::vector<double> inv_freq_;
  // dynamic_ntk: the frequencies for a forward reaching a length; empty for a fixed schedule.
  std::function<std::vector<double>(int64_t)> frequencies_at_;
  mutable std::mutex cache_mutex_;
  mutable RotaryTables cache_;  // positions 0..cache_.cos.size(0)-1
};

}  // namespace rotor
