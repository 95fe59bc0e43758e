#include "models/transformer_encoder.h"

#include <limits>
#include <stdexcept>
#include <string>

#include "models/offset_pair_bias.h"
#include "models/position_groups.h"

namespace rotor {

TransformerEncoder::TransformerEncoder(ParameterStore& params, const ModelConfig& config, DType dtype, bool cls_slot)
    : config_(config), dtype_(dtype) {
  const ModelConfig& c = config_;
  // Initial values depend on seed and name only, so the position parameters may be declared first.
  position_ = make_position_encoding(params, c);
  if (c.interleaved_position.active())
    interleaved_ = make_position_encoding(params, c.with_position(c.interleaved_position.position));
  token_embedding_ =
      params.declare("embed.tokens.weight", {c.vocab_size, c.d_model}, ParameterInit::normal(c.token_init_std()));
  if (cls_slot) cls_ = params.declare("embed.cls", {c.d_model}, ParameterInit::normal(c.init_std));
  for (int64_t i = 0; i < c.layers; ++i) blocks_.emplace_back(params, "layers." + std::to_string(i), c);
  if (c.norm == NormPlacement::pre) final_norm_ = LayerNorm::declare(params, "final_norm", c.d_model, c.norm_eps);
  if (c.position.flag("randomized")) {
    random_position_range_ = c.position.integer("max_positions");
    randomized_evaluation_ = c.position.flag("randomized_evaluation");
  }
}

void TransformerEncoder::initialize(ParameterStore& params, uint64_t seed) const {
  position_->initialize(params, seed);
  if (interleaved_) interleaved_->initialize(params, seed);
}

void TransformerEncoder::constrain(ParameterStore& params) const {
  position_->constrain(params);
  if (interleaved_) interleaved_->constrain(params);
}

const PositionEncoding& TransformerEncoder::layer_encoding(int64_t layer) const {
  return config_.interleaved_position.takes(layer) ? *interleaved_ : *position_;
}

Var TransformerEncoder::embed(const ParameterStore& params, const ModelInput& in, std::vector<int32_t>& lengths,
                              const Positions& positions, ForwardContext& ctx) const {
  const ModelConfig& c = config_;
  Var x = embedding(params.var(token_embedding_), in.tokens, {in.batch, in.seq_len});
  if (c.token_multiplier() != 1.0) x = mul_scalar(x, c.token_multiplier());
  if (cls_ >= 0) {  // prepend the learned CLS vector at position 0
    const Var cls = reshape(params.var(cls_), {1, 1, c.d_model});
    x = concat({add(Var(Tensor::zeros({in.batch, 1, c.d_model}, dtype_)), cls), x}, 1);
    for (int32_t& len : lengths) ++len;
  }
  return ctx.dropout(position_->add_to_embeddings(params, x, positions), c.dropout);
}

Positions TransformerEncoder::window_positions(int64_t n, const ForwardContext& ctx) const {
  if (random_position_range_ == 0 || (!ctx.training && !randomized_evaluation_)) return Positions();
  return random_positions(ctx.position_key(), n, random_position_range_);
}

AttentionInputs TransformerEncoder::attention_inputs(const std::vector<int32_t>& lengths, int64_t n,
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

Var TransformerEncoder::encode(const ParameterStore& params, const ModelInput& in, ForwardContext& ctx,
                               const Positions& positions, std::vector<int32_t>& lengths) const {
  if (static_cast<int64_t>(in.tokens.size()) != in.batch * in.seq_len ||
      static_cast<int64_t>(in.lengths.size()) != in.batch)
    throw ShapeError("TransformerEncoder: tokens/lengths do not match batch " + std::to_string(in.batch) + " x " +
                     std::to_string(in.seq_len));
  if (!in.positions) return encode_window(params, in, ctx, positions, lengths);
  if (!positions.contiguous())
    throw ModelConfigError(
        "model.position.randomized: the data gives each token its position (coupled "
        "positions); randomized positions would replace them. Turn one of them off");
  return encode_at_input_positions(params, in, ctx, lengths);
}

Var TransformerEncoder::encode_at_input_positions(const ParameterStore& params, const ModelInput& in,
                                                  ForwardContext& ctx, std::vector<int32_t>& lengths) const {
  const std::vector<PositionGroup> groups =
      group_rows_by_positions(*in.positions, in.lengths, in.batch, in.seq_len, cls_ >= 0);
  if (groups.size() == 1) return encode_window(params, in, ctx, groups[0].positions, lengths);
  if (ctx.attention_capture)  // a capture holds one forward's layer inputs, not several
    throw std::logic_error("TransformerEncoder: attention capture over rows at different positions");
  std::vector<Var> row_outputs(static_cast<size_t>(in.batch));
  for (const PositionGroup& g : groups) {
    const auto rows = static_cast<int64_t>(g.rows.size());
    std::vector<int32_t> tokens, input_lengths;
    for (int64_t b : g.rows) {
      tokens.insert(tokens.end(), in.tokens.begin() + b * in.seq_len, in.tokens.begin() + (b + 1) * in.seq_len);
      input_lengths.push_back(lengths[static_cast<size_t>(b)]);
    }
    std::vector<int32_t> group_lengths = input_lengths;
    const Var x =
        encode_window(params, ModelInput{tokens, input_lengths, rows, in.seq_len}, ctx, g.positions, group_lengths);
    for (int64_t r = 0; r < rows; ++r) {
      row_outputs[static_cast<size_t>(g.rows[r])] = rows == 1 ? x : slice(x, 0, r, r + 1);
      lengths[static_cast<size_t>(g.rows[r])] = group_lengths[static_cast<size_t>(r)];
    }
  }
  return concat(row_outputs, 0);
}

Var TransformerEncoder::encode_window(const ParameterStore& params, const ModelInput& in, ForwardContext& ctx,
                                      const Positions& positions, std::vector<int32_t>& lengths) const {
  Var x = embed(params, in, lengths, positions, ctx);
  const int64_t n = x.size(1);
  if (!positions.contiguous() && static_cast<int64_t>(positions.values.size()) != n)
    throw ShapeError("TransformerEncoder: " + std::to_string(positions.values.size()) + " positions for " +
                     std::to_string(n) + " slots");
  AttentionInputs att = attention_inputs(lengths, n, positions);
  att.causal = ctx.causal;
  for (size_t i = 0; i < blocks_.size(); ++i) {
    att.position = &layer_encoding(static_cast<int64_t>(i));
    if (config_.attention == AttentionKind::softmax) {
      LayerBias bias = layer_bias(*att.position, params, static_cast<int64_t>(i), n, positions, ctx.causal);
      att.relative_bias = bias.relative;
      att.pair_bias = std::move(bias.pair);
    }
    ctx.layer = static_cast<int64_t>(i);
    x = blocks_[i].forward(params, x, att, ctx);
  }
  if (final_norm_) x = (*final_norm_)(params, x);
  return x;
}

}  // namespace rotor
