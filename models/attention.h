#pragma once
// Multi-head self-attention with pluggable position handling: rotary q/k
// (RoPE), an additive logit bias (T5, ALiBi) and the key-padding mask.
// `attention: linear` replaces softmax by the elu(x)+1 feature map; with RoPE
// it follows the RoFormer paper's eq. 19 (rotation in the numerator only).
#include <string>

#include "models/forward_context.h"
#include "models/layers.h"
#include "models/model_config.h"
#include "models/rotary_embedding.h"

namespace rotor {

// What the encoder computes once per forward and every layer shares.
struct AttentionInputs {
  Tensor logit_mask;  // softmax: constant added to the logits, broadcast to [B, H, N, N] (-inf = masked key)
  Var logit_bias;     // softmax: learned [H, N, N] bias (T5), or undefined
  Tensor key_keep;    // linear: [B, 1, N, 1], 1 for valid keys and 0 for padding
  RotaryEmbedding* rope = nullptr;
};

class MultiHeadAttention {
 public:
  MultiHeadAttention(ParameterStore& store, const std::string& prefix, const ModelConfig& config);
  // x: [B, N, d_model] -> [B, N, d_model]
  Var forward(const ParameterStore& store, const Var& x, const AttentionInputs& in, ForwardContext& ctx) const;

 private:
  Var split_heads(const Var& x) const;  // [B, N, d] -> [B, H, N, dh]
  Var merge_heads(const Var& x) const;  // [B, H, N, dh] -> [B, N, d]
  Var softmax_attention(const Var& q, const Var& k, const Var& v, const AttentionInputs& in,
                        ForwardContext& ctx) const;
  Var linear_attention(const Var& q, const Var& k, const Var& v, const AttentionInputs& in) const;

  Linear q_, k_, v_, out_;
  int64_t heads_, head_dim_;
  double attention_dropout_;
  bool linear_, rotary_value_;
};

}  // namespace rotor
