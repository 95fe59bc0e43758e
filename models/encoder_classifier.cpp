#include "models/encoder_classifier.h"

#include <cmath>
#include <limits>
#include <string>

#include "models/alibi.h"
#include "models/sinusoidal_encoding.h"

namespace rotor {

EncoderClassifier::EncoderClassifier(const ModelConfig& config, DType dtype)
    : config_(config), dtype_(dtype), params_(dtype) {
  config_.validate();
  const ModelConfig& c = config_;
  const PositionConfig& p = c.position;
  token_embedding_ = params_.declare("embed.tokens.weight", {c.vocab_size, c.d_model}, ParameterInit::normal(c.init_std));
  if (p.type == "learned")
    position_embedding_ =
        params_.declare("embed.positions.weight", {p.max_len, c.d_model}, ParameterInit::normal(c.init_std));
  if (c.pooling == "cls") cls_ = params_.declare("embed.cls", {c.d_model}, ParameterInit::normal(c.init_std));
  if (p.type == "t5_bias") {
    t5_ = std::make_unique<T5RelativeBias>(p.num_buckets, p.max_distance);
    if (!p.per_layer)
      t5_table_ = params_.declare("position.t5_bias.weight", {p.num_buckets, c.heads}, ParameterInit::normal(c.init_std));
  }
  if (p.type == "rope") rope_ = std::make_unique<RotaryEmbedding>(c.head_dim(), p);
  for (int64_t i = 0; i < c.layers; ++i) {
    const std::string prefix = "layers." + std::to_string(i);
    blocks_.emplace_back(params_, prefix, c);
    if (p.type == "t5_bias" && p.per_layer)
      t5_layer_tables_.push_back(
          params_.declare(prefix + ".attn.t5_bias.weight", {p.num_buckets, c.heads}, ParameterInit::normal(c.init_std)));
  }
  final_norm_ = LayerNorm::declare(params_, "final_norm", c.d_model, c.norm_eps);
  head_ = Linear::declare(params_, "head", c.d_model, c.num_classes, c.init_std);
}

Var EncoderClassifier::embed(const ModelInput& in, std::vector<int32_t>& lengths, ForwardContext& ctx) {
  const ModelConfig& c = config_;
  Var x = embedding(params_.var(token_embedding_), in.tokens, {in.batch, in.seq_len});
  if (c.position.type == "sinusoidal") x = mul_scalar(x, std::sqrt(static_cast<double>(c.d_model)));  // Vaswani
  if (cls_ >= 0) {  // prepend the learned CLS vector at position 0
    const Var cls = reshape(params_.var(cls_), {1, 1, c.d_model});
    x = concat({add(Var(Tensor::zeros({in.batch, 1, c.d_model}, dtype_)), cls), x}, 1);
    for (int32_t& len : lengths) ++len;
  }
  const int64_t n = x.size(1);
  if (c.position.type == "sinusoidal") {
    // One table for the longest length seen; shorter inputs use its first rows.
    if (!sinusoidal_.defined() || sinusoidal_.size(0) < n) sinusoidal_ = sinusoidal_table(n, c.d_model, dtype_);
    x = add(x, Var(sinusoidal_.view(0, {n, c.d_model})));
  }
  if (c.position.type == "learned") {
    if (n > c.position.max_len)
      throw ModelConfigError("input of " + std::to_string(n) + " positions is longer than model.position.max_len = " +
                             std::to_string(c.position.max_len) + " of the learned position table");
    std::vector<int32_t> positions(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) positions[i] = static_cast<int32_t>(i);
    x = add(x, embedding(params_.var(position_embedding_), positions, {n}));
  }
  return ctx.dropout(x, c.dropout);
}

AttentionInputs EncoderClassifier::attention_inputs(const std::vector<int32_t>& lengths, int64_t n) {
  const int64_t B = static_cast<int64_t>(lengths.size());
  AttentionInputs in;
  in.rope = rope_.get();
  std::vector<double> keep(static_cast<size_t>(B * n));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t j = 0; j < n; ++j) keep[b * n + j] = j < lengths[b] ? 1.0 : 0.0;
  if (config_.attention == "linear") {
    in.key_keep = Tensor::from_doubles({B, 1, n, 1}, dtype_, keep);
    return in;
  }
  std::vector<double> mask(keep.size());
  for (size_t i = 0; i < keep.size(); ++i) mask[i] = keep[i] > 0 ? 0.0 : -std::numeric_limits<double>::infinity();
  in.logit_mask = Tensor::from_doubles({B, 1, 1, n}, dtype_, mask);
  if (config_.position.type == "alibi") {  // constant: fold it into the mask
    NoGradGuard constant;
    in.logit_mask = add(Var(in.logit_mask), Var(alibi_bias(config_.heads, n, dtype_))).value();
  }
  return in;
}

Var EncoderClassifier::pool(const Var& x, const std::vector<int32_t>& lengths) const {
  if (config_.pooling == "cls") return reshape(slice(x, 1, 0, 1), {x.size(0), x.size(2)});
  if (config_.pooling == "max") return masked_max_pool(x, lengths);
  return masked_mean_pool(x, lengths);
}

Var EncoderClassifier::logits(const ModelInput& in, ForwardContext& ctx) {
  if (static_cast<int64_t>(in.tokens.size()) != in.batch * in.seq_len ||
      static_cast<int64_t>(in.lengths.size()) != in.batch)
    throw ShapeError("EncoderClassifier: tokens/lengths do not match batch " + std::to_string(in.batch) + " x " +
                     std::to_string(in.seq_len));
  std::vector<int32_t> lengths = in.lengths;
  Var x = embed(in, lengths, ctx);
  const int64_t n = x.size(1);
  AttentionInputs att = attention_inputs(lengths, n);
  if (t5_ && t5_table_ >= 0) att.logit_bias = t5_->bias(params_.var(t5_table_), n);
  for (size_t i = 0; i < blocks_.size(); ++i) {
    if (t5_ && t5_table_ < 0) att.logit_bias = t5_->bias(params_.var(t5_layer_tables_[i]), n);
    x = blocks_[i].forward(params_, x, att, ctx);
  }
  x = final_norm_(params_, x);
  return head_(params_, ctx.dropout(pool(x, lengths), config_.dropout));
}

Var EncoderClassifier::loss(const Var& logits, const std::vector<int32_t>& labels, double label_smoothing) const {
  CrossEntropyOptions opt;
  opt.label_smoothing = label_smoothing;
  return cross_entropy(logits, labels, opt);
}

}  // namespace rotor
