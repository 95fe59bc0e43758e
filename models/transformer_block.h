#pragma once
// One encoder layer: self-attention and an MLP (GELU or ReLU), each wrapped in a
// residual connection with layer norm before (pre-LN) or after (post-LN).
#include <string>

#include "models/attention.h"

namespace rotor {

class TransformerBlock {
 public:
  TransformerBlock(ParameterStore& store, const std::string& prefix, const ModelConfig& config);
  Var forward(const ParameterStore& store, const Var& x, const AttentionInputs& in, ForwardContext& ctx) const;

 private:
  Var mlp(const ParameterStore& store, const Var& x) const;

  LayerNorm attn_norm_, mlp_norm_;
  MultiHeadAttention attn_;
  Linear fc1_, fc2_;
  bool pre_norm_;
  double dropout_;
  HiddenActivation activation_;
};

}  // namespace rotor
