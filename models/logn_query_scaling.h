#pragma once
// Log-length query scaling, an option of every encoding
// (model.position.logn_scaling): Qwen's use_logn_attn (QwenLM/Qwen,
// modeling_qwen.py: logn_list = [log(i, seq_length) if i > seq_length else 1
// for i in 1..], query *= logn_list[position]). The query at position p
// (1-based n = p + 1) is multiplied by log(n) / log(L), L the training length
// (model.position.original_max_len), once n passes L; up to L it is left
// exactly as it is. Keys pass untouched, so the logits of a query past L are
// sharpened by log_L(n): softmax's entropy then stays near its training value
// as the number of keys grows. MultiHeadAttention applies it to every
// softmax layer's queries after the encoding's rotation (models/attention.cpp,
// softmax_attention), the one place every encoding's queries pass. Qwen skips
// it in training, where its windows never pass L; rotor applies it whenever a
// position does (randomized positions in training too), so training and
// evaluation see the same function of position.
#include <cstdint>
#include <vector>

#include "engine/ops.h"
#include "models/model_config.h"
#include "models/positions.h"

namespace rotor {

// logn_scaling and the training length it measures from (original_max_len), declared for every encoding.
std::vector<PositionOption> logn_scaling_options();

class LognQueryScaling {
 public:
  explicit LognQueryScaling(const PositionConfig& config);

  bool enabled() const { return training_length_ > 0; }
  // The factor of the query at 0-based `position`: log(position + 1) / log(L) past L, else 1.
  double factor(int64_t position) const;
  // q: [B, H, N, dh] at `positions` (empty: 0..N-1). q itself when no slot passes L.
  Var apply(const Var& q, const Positions& positions) const;

 private:
  int64_t training_length_ = 0;  // 0: off
};

}  // namespace rotor
