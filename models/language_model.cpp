#include "models/language_model.h"

#include <string>

namespace rotor {
namespace {

// Sets ctx.causal for one forward and gives the caller's value back afterwards.
class CausalOverride {
 public:
  CausalOverride(ForwardContext& ctx, bool causal) : ctx_(ctx), saved_(ctx.causal) { ctx.causal = causal; }
  ~CausalOverride() { ctx_.causal = saved_; }
  CausalOverride(const CausalOverride&) = delete;
  CausalOverride& operator=(const CausalOverride&) = delete;

 private:
  ForwardContext& ctx_;
  bool saved_;
};

}  // namespace

LanguageModel::LanguageModel(const ModelConfig& config, LanguageModelKind kind, DType dtype)
    : Model(config, dtype, /*cls_slot=*/false), kind_(kind) {
  ParameterStore& params = parameters();
  if (kind_ == LanguageModelKind::masked) {
    transform_ = Linear::declare(params, "lm_head.transform", config.d_model, config.d_model, config.init_std);
    transform_norm_ = LayerNorm::declare(params, "lm_head.norm", config.d_model, config.norm_eps);
  }
  output_bias_ = params.declare("lm_head.bias", {config.vocab_size}, ParameterInit::zeros(), /*weight_decay=*/false);
}

Var LanguageModel::output(const Var& hidden) const {
  const ParameterStore& params = parameters();
  Var h = hidden;
  if (transform_) h = (*transform_norm_)(params, gelu((*transform_)(params, h)));
  return linear(h, params.var(encoder().token_embedding()), params.var(output_bias_));
}

Var LanguageModel::logits(const ModelInput& in, ForwardContext& ctx) const {
  const CausalOverride attention(ctx, kind_ == LanguageModelKind::causal);
  std::vector<int32_t> lengths = in.lengths;
  return output(encoder().encode(parameters(), in, ctx, encoder().window_positions(in.seq_len, ctx), lengths));
}

Var LanguageModel::loss(const Var& logits, const std::vector<int32_t>& targets) const {
  const int64_t vocab = logits.size(-1);
  if (logits.rank() != 3 || static_cast<int64_t>(targets.size()) != logits.size(0) * logits.size(1))
    throw ShapeError("LanguageModel::loss: " + std::to_string(targets.size()) + " targets for logits of " +
                     std::to_string(logits.numel() / vocab) + " slots");
  return cross_entropy(reshape(logits, {logits.size(0) * logits.size(1), vocab}), targets);
}

}  // namespace rotor
