#pragma once
// `rotor analyze frequencies`: how a rotary model uses each frequency pair
// (Barbero et al. 2024, "Round and Round We Go! What makes Rotary Positional
// Encodings useful?", arXiv 2410.06205). The logit q.k (before the scale and
// any bias) of rotated q and k splits exactly into one term per pair p = (a, b)
// of head dims, c_p = q_a k_a + q_b k_b, since the pairs cover every dim once.
// Per layer, head and pair, over the valid (query, key) slots of windows of a
// split: the mean norm of q's and of k's pair, the mean c_p (signed; the pairs'
// sum is the mean logit) and the mean share |c_p| / sum_p' |c_p'| (signed terms
// cancel; these shares sum to 1). Fast pairs with large shares carry position,
// slow pairs with large norms act as position-free "semantic" channels.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "datasets/tokenized_split.h"
#include "models/attention_capture.h"
#include "models/model.h"
#include "models/rotary_embedding.h"

namespace rotor {

struct FrequencyPair {
  int64_t first = 0, second = 0;  // the two dims of a head it turns
  double frequency = 0;           // radians per position; 0 never turns (p-RoPE's kept pairs, unrotated dims)
};

// The rotation's r/2 pairs in its layout ((2i, 2i+1) interleaved, (i, i + r/2) half), then the dims it leaves
// unrotated (r..head_dim-1, rope's fraction < 1) as consecutive pairs of frequency 0.
std::vector<FrequencyPair> frequency_pairs(const RotaryEmbedding& rotation, int64_t head_dim);

// contributions[p] = q_a k_a + q_b k_b for each pair p = (a, b) of the head vectors q and k.
void pair_contributions(const double* q, const double* k, const std::vector<FrequencyPair>& pairs,
                        double* contributions);

class FrequencyUse {
 public:
  FrequencyUse(int64_t layers, int64_t heads, std::vector<FrequencyPair> pairs);
  // Adds every valid slot and every (query, key) the layer attends, of every batch row and head.
  void add(const AttentionLogitInputs& layer);
  void count_windows(int64_t windows) { windows_ += windows; }
  // {"windows", "pairs": [{"pair", "dims", "frequency"}], "layers": [{"layer", "heads": [{"head", "q_norm",
  // "k_norm", "mean_contribution", "mean_abs_share" (one value per pair each), "mean_logit"}]}]}
  nlohmann::json to_json() const;

 private:
  size_t at(int64_t layer, int64_t head) const { return static_cast<size_t>(layer * heads_ + head); }
  void add_head(const AttentionLogitInputs& layer, int64_t b, int64_t h, const double* q, const double* k);

  int64_t layers_, heads_, windows_ = 0;
  std::vector<FrequencyPair> pairs_;
  // Sums per [layer][head][pair]: pair norms over slots, contributions over logits, |shares| over shared logits.
  std::vector<double> q_norm_, k_norm_, contribution_, abs_share_;
  std::vector<int64_t> slots_, logits_, shared_;  // counts per [layer][head]
};

// Over the first window (max_len tokens) of up to max_windows documents of the split with 2 tokens or more.
// Throws ConfigError naming model.position.type for an encoding without rotations, for linear attention, and
// when no document of the split has 2 tokens.
FrequencyUse measure_frequency_use(const Model& model, const TokenizedSplit& split, int64_t max_len,
                                   int64_t max_windows);

}  // namespace rotor
