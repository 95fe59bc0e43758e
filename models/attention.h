#pragma once
// Multi-head self-attention, the one place the attention computation lives.
// Position handling comes through the PositionEncoding hooks: rotation of q/k
// (and v) after projection, a logit temperature, an additive per-offset logit
// bias [H, 2N-1] and an additive bias b_h(i, j) of both positions (a
// PairBias). Softmax attention runs as the fused O(N)-memory op (engine
// attention(), which takes the [H, 2N-1] table, the pair bias and the key
// lengths as they are) or, with `attention_kernel: composed`, from matmul/
// softmax/dropout ops: the reference, which expands the table and composes
// the pair bias to [H, N, N] here. Causal (AttentionInputs::causal) restricts
// query i to keys j <= i on both kernels: the encodings give their causal
// forms (PositionEncoding::relative_bias), evaluated only where j <= i.
// Every softmax layer's queries pass the log-length query scaling
// (model.position.logn_scaling, models/logn_query_scaling.h) after the rotation.
// `attention: linear` replaces softmax by the elu(x)+1 feature map; with RoPE
// it follows the RoFormer paper's eq. 19 (rotation in the numerator only) or
// rotates before the feature map (model.linear_rotation). Causal linear
// attention keeps the same numerator and denominator summed over j <= i only,
// as running sums (engine causal_linear_attention): O(dh^2) state per head.
#include <string>

#include "models/forward_context.h"
#include "models/layers.h"
#include "models/logn_query_scaling.h"
#include "models/model_config.h"
#include "models/position_encoding.h"

namespace rotor {

// What one layer's attention reads besides its input.
struct AttentionInputs {
  const PositionEncoding* position = nullptr;  // never null in a forward
  Positions positions;                         // of the N slots; empty: 0..N-1
  std::vector<int32_t> key_lengths;            // [B]: keys j < key_lengths[b] are valid (fused softmax)
  Tensor logit_mask;  // composed softmax: constant added to the logits, broadcast to [B, H, N, N] (-inf = masked key)
  Tensor key_keep;    // linear: [B, 1, N, 1], 1 for valid keys and 0 for padding
  Var relative_bias;  // softmax: [H, 2N-1] per-offset bias of this layer, or undefined
  std::shared_ptr<const PairBias> pair_bias;  // softmax: b_h(i, j) of this layer, or null
  bool causal = false;                        // query i attends keys j <= i only (softmax and linear)
};

// [H, 2N-1] per-offset bias -> [H, N, N] with out[h][i][j] = bias[h][(i - j) + (N - 1)].
Var expand_relative_bias(const Var& per_offset, int64_t length);

class MultiHeadAttention {
 public:
  MultiHeadAttention(ParameterStore& store, const std::string& prefix, const ModelConfig& config);
  // x: [B, N, d_model] -> [B, N, d_model]
  Var forward(const ParameterStore& store, const Var& x, const AttentionInputs& in, ForwardContext& ctx) const;

 private:
  Var merge_heads(const Var& x) const;  // [B, H, N, dh] -> [B, N, d]
  Var softmax_attention(const ParameterStore& store, const Var& q, const Var& k, const Var& v,
                        const AttentionInputs& in, ForwardContext& ctx) const;
  Var composed_softmax(const ParameterStore& store, const Var& q, const Var& k, const Var& v, double scale,
                       const AttentionInputs& in, ForwardContext& ctx) const;
  // Hands what the layer's logits are made of to ctx.attention_capture, if any.
  void capture(const Var& q, const Var& k, double scale, const AttentionInputs& in, const Tensor& contextual_bias,
               ForwardContext& ctx) const;
  Var linear_attention(const Var& q, const Var& k, const Var& v, const AttentionInputs& in) const;

  Linear q_, k_, v_, out_;
  int64_t heads_, head_dim_;
  double attention_dropout_;
  AttentionKind kind_;
  LinearRotation linear_rotation_;
  AttentionKernel kernel_;
  LognQueryScaling logn_;
};

}  // namespace rotor
