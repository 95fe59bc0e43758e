#include "models/encoder_classifier.h"

#include <limits>
#include <string>

#include "models/offset_pair_bias.h"

namespace rotor {

EncoderClassifier::EncoderClassifier(const ModelConfig& config, DType dtype)
    : config_(config), dtype_(dtype), params_(dtype) {
  const ModelConfig& c = config_;
  // Initial values depend on seed and name only, so the position parameters may be declared first.
  position_ = make_position_encoding(params_, c);
  token_embedding_ =
      params_.declare("embed.tokens.weight", {c.vocab_size, c.d_model}, ParameterInit::normal(c.token_init_std()));
  if (c.pooling == Pooling::cls) cls_ = params_.declare("embed.cls", {c.d_model}, ParameterInit::normal(c.init_std));
  for (int64_t i = 0; i < c.layers; ++i) blocks_.emplace_back(params_, "layers." + std::to_string(i), c);
  if (c.norm == NormPlacement::pre) final_norm_ = LayerNorm::declare(params_, "final_norm", c.d_model, c.norm_eps);
  head_ = Linear::declare(params_, "head", c.d_model, c.num_classes, c.init_std);
  if (c.position.flag("randomized")) random_position_range_ = c.position.integer("max_positions");
}

void EncoderClassifier::initialize(uint64_t seed) {
  params_.allocate(seed);
  position_->initialize(params_, seed);
}

Var EncoderClassifier::embed(const ModelInput& in, std::vector<int32_t>& lengths, const Positions& positions,
                             ForwardContext& ctx) const {
  const ModelConfig& c = config_;
  Var x = embedding(params_.var(token_embedding_), in.tokens, {in.batch, in.seq_len});
  if (c.token_multiplier() != 1.0) x = mul_scalar(x, c.token_multiplier());
  if (cls_ >= 0) {  // prepend the learned CLS vector at position 0
    const Var cls = reshape(params_.var(cls_), {1, 1, c.d_model});
    x = concat({add(Var(Tensor::zeros({in.batch, 1, c.d_model}, dtype_)), cls), x}, 1);
    for (int32_t& len : lengths) ++len;
  }
  return ctx.dropout(position_->add_to_embeddings(params_, x, positions), c.dropout);
}

Positions EncoderClassifier::window_positions(int64_t n, const ForwardContext& ctx) const {
  if (!ctx.training || random_position_range_ == 0) return Positions();
  return random_positions(ctx.position_key(), n, random_position_range_);
}

AttentionInputs EncoderClassifier::attention_inputs(const std::vector<int32_t>& lengths, int64_t n,
                                                    const Positions& positions) const {
  AttentionInputs in;
  in.position = position_.get();
  in.positions = positions;
  in.key_lengths = lengths;
  const bool linear = config_.attention == AttentionKind::linear;
  if (!linear && config_.attention_kernel == AttentionKernel::fused) return in;  // the op takes the lengths
  // Linear attention zeroes padding keys; composed softmax adds -inf to their logits.
  const double pad = linear ? 0.0 : -std::numeric_limits<double>::infinity();
  const double valid = linear ? 1.0 : 0.0;
  const int64_t B = static_cast<int64_t>(lengths.size());
  std::vector<double> v(static_cast<size_t>(B * n));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t j = 0; j < n; ++j) v[b * n + j] = j < lengths[b] ? valid : pad;
  if (linear)
    in.key_keep = Tensor::from_doubles({B, 1, n, 1}, dtype_, v);
  else
    in.logit_mask = Tensor::from_doubles({B, 1, 1, n}, dtype_, v);
  return in;
}

Var EncoderClassifier::pool(const Var& x, const std::vector<int32_t>& lengths) const {
  switch (config_.pooling) {
    case Pooling::cls:
      return reshape(slice(x, 1, 0, 1), {x.size(0), x.size(2)});
    case Pooling::max:
      return masked_max_pool(x, lengths);
    case Pooling::mean:
      break;
  }
  return masked_mean_pool(x, lengths);
}

Var EncoderClassifier::logits(const ModelInput& in, ForwardContext& ctx) const {
  return logits(in, ctx, window_positions(in.seq_len + (cls_ >= 0 ? 1 : 0), ctx));
}

Var EncoderClassifier::logits(const ModelInput& in, ForwardContext& ctx, const Positions& positions) const {
  std::vector<int32_t> lengths = in.lengths;
  const Var x = encode(in, ctx, positions, lengths);
  return head_(params_, ctx.dropout(pool(x, lengths), config_.dropout));
}

Var EncoderClassifier::hidden_states(const ModelInput& in, ForwardContext& ctx) const {
  std::vector<int32_t> lengths = in.lengths;
  return encode(in, ctx, window_positions(in.seq_len + (cls_ >= 0 ? 1 : 0), ctx), lengths);
}

Var EncoderClassifier::encode(const ModelInput& in, ForwardContext& ctx, const Positions& positions,
                              std::vector<int32_t>& lengths) const {
  if (static_cast<int64_t>(in.tokens.size()) != in.batch * in.seq_len ||
      static_cast<int64_t>(in.lengths.size()) != in.batch)
    throw ShapeError("EncoderClassifier: tokens/lengths do not match batch " + std::to_string(in.batch) + " x " +
                     std::to_string(in.seq_len));
  Var x = embed(in, lengths, positions, ctx);
  const int64_t n = x.size(1);
  if (!positions.contiguous() && static_cast<int64_t>(positions.values.size()) != n)
    throw ShapeError("EncoderClassifier: " + std::to_string(positions.values.size()) + " positions for " +
                     std::to_string(n) + " slots");
  AttentionInputs att = attention_inputs(lengths, n, positions);
  att.causal = ctx.causal;
  for (size_t i = 0; i < blocks_.size(); ++i) {
    if (config_.attention == AttentionKind::softmax) {
      LayerBias bias = layer_bias(*position_, params_, static_cast<int64_t>(i), n, positions, ctx.causal);
      att.relative_bias = bias.relative;
      att.pair_bias = std::move(bias.pair);
    }
    ctx.layer = static_cast<int64_t>(i);
    x = blocks_[i].forward(params_, x, att, ctx);
  }
  if (final_norm_) x = (*final_norm_)(params_, x);
  return x;
}

Var EncoderClassifier::loss(const Var& logits, const std::vector<int32_t>& labels, double label_smoothing) const {
  CrossEntropyOptions opt;
  opt.label_smoothing = label_smoothing;
  return cross_entropy(logits, labels, opt);
}

}  // namespace rotor
