#pragma once
// What one softmax attention layer's logits are made of, handed to a watcher
// during a forward (ForwardContext::attention_capture): q and k after
// projection and rotation, the logit scale, the per-offset bias table, the
// pair bias, the content-dependent bias (CoPE), the key lengths and the causal cut. With them a diagnostic can
// recompute the probabilities the fused kernel used without the kernel ever
// holding them (engine/kernels/attention_rows.h), on either kernel, at O(N)
// memory per row. Linear attention has no softmax logits and calls nothing.
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/pair_bias.h"
#include "engine/tensor.h"

namespace rotor {

struct AttentionLogitInputs {
  int64_t layer = 0;
  Tensor q, k;                                // [B, H, N, dh], rotated where the encoding rotates
  double scale = 1.0;                         // applied to q . k
  Tensor relative_bias;                       // [H, 2N - 1], or undefined
  std::shared_ptr<const PairBias> pair_bias;  // or null
  Tensor contextual_bias;                     // [B, H, N, N] a term computed from q and k (CoPE), or undefined
  std::vector<int32_t> key_lengths;           // [B]: keys j < key_lengths[b] are valid
  bool causal = false;                        // query i attends keys j <= i only
};

class AttentionCapture {
 public:
  virtual ~AttentionCapture() = default;
  virtual void capture(const AttentionLogitInputs& inputs) = 0;
};

}  // namespace rotor
