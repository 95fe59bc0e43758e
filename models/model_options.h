#pragma once
// The model options with a fixed set of values, as enums, each with its name
// table (the machinery: engine/option_names.h).
#include <array>
#include <utility>

#include "engine/ops.h"  // RotaryLayout, HiddenActivation
#include "engine/option_names.h"

namespace rotor {

enum class NormPlacement { pre, post };  // layer norm before (pre-LN) or after (post-LN) each residual
enum class Pooling { mean, cls, max };
enum class AttentionKind { softmax, linear };  // linear: elu(x)+1 feature map
// How softmax attention is computed: the fused O(N)-memory op, or composed
// from matmul/softmax/dropout ops (the reference; holds B x H x N x N buffers).
enum class AttentionKernel { fused, composed };
// RoPE's frequency schedules beyond the training length (models/rope_scaling.cpp cites each).
enum class RopeScaling { none, linear, ntk, yarn, llama3, dynamic_ntk, longrope };
// Linear attention with a rotating encoding: rotate phi(q), phi(k) in the numerator only (RoFormer eq. 19, the
// paper's text), or rotate q and k before the feature map (as RoFormer's released code).
enum class LinearRotation { after_feature_map, before_feature_map };
// T5 bias table's start: N(0, model.init_std) like every weight, or Hugging Face transformers' T5
// (T5PreTrainedModel._init_weights: relative_attention_bias ~ N(0, d_model^-1/2)), the default.
enum class T5TableInit { init_std, inverse_sqrt_d_model };
// Token embeddings: BERT's N(0, init_std) as drawn ("1"), or Vaswani's
// (tensor2tensor) N(0, d^-1/2) multiplied by sqrt(d_model), unit RMS ("sqrt_d").
enum class EmbeddingScale { one, sqrt_d };

template <>
struct OptionNames<NormPlacement> {
  static constexpr std::array<std::pair<NormPlacement, const char*>, 2> table{
      {{NormPlacement::pre, "pre"}, {NormPlacement::post, "post"}}};
};
template <>
struct OptionNames<Pooling> {
  static constexpr std::array<std::pair<Pooling, const char*>, 3> table{
      {{Pooling::mean, "mean"}, {Pooling::cls, "cls"}, {Pooling::max, "max"}}};
};
template <>
struct OptionNames<AttentionKind> {
  static constexpr std::array<std::pair<AttentionKind, const char*>, 2> table{
      {{AttentionKind::softmax, "softmax"}, {AttentionKind::linear, "linear"}}};
};
template <>
struct OptionNames<AttentionKernel> {
  static constexpr std::array<std::pair<AttentionKernel, const char*>, 2> table{
      {{AttentionKernel::fused, "fused"}, {AttentionKernel::composed, "composed"}}};
};
template <>
struct OptionNames<HiddenActivation> {  // the MLP's activation, the engine's enum
  static constexpr std::array<std::pair<HiddenActivation, const char*>, 3> table{
      {{HiddenActivation::gelu_erf, "gelu"},
       {HiddenActivation::gelu_tanh, "gelu_tanh"},
       {HiddenActivation::relu, "relu"}}};
};
template <>
struct OptionNames<RopeScaling> {
  static constexpr std::array<std::pair<RopeScaling, const char*>, 7> table{{{RopeScaling::none, "none"},
                                                                             {RopeScaling::linear, "linear"},
                                                                             {RopeScaling::ntk, "ntk"},
                                                                             {RopeScaling::yarn, "yarn"},
                                                                             {RopeScaling::llama3, "llama3"},
                                                                             {RopeScaling::dynamic_ntk, "dynamic_ntk"},
                                                                             {RopeScaling::longrope, "longrope"}}};
};
template <>
struct OptionNames<LinearRotation> {
  static constexpr std::array<std::pair<LinearRotation, const char*>, 2> table{
      {{LinearRotation::after_feature_map, "after_feature_map"},
       {LinearRotation::before_feature_map, "before_feature_map"}}};
};
template <>
struct OptionNames<T5TableInit> {
  static constexpr std::array<std::pair<T5TableInit, const char*>, 2> table{
      {{T5TableInit::init_std, "init_std"}, {T5TableInit::inverse_sqrt_d_model, "inverse_sqrt_d_model"}}};
};
template <>
struct OptionNames<EmbeddingScale> {
  static constexpr std::array<std::pair<EmbeddingScale, const char*>, 2> table{
      {{EmbeddingScale::one, "1"}, {EmbeddingScale::sqrt_d, "sqrt_d"}}};
};
template <>
struct OptionNames<RotaryLayout> {
  static constexpr std::array<std::pair<RotaryLayout, const char*>, 2> table{
      {{RotaryLayout::interleaved, "interleaved"}, {RotaryLayout::half, "half"}}};
};

}  // namespace rotor
