#include "models/transformer_block.h"

namespace rotor {

TransformerBlock::TransformerBlock(ParameterStore& store, const std::string& prefix, const ModelConfig& c)
    : attn_norm_(LayerNorm::declare(store, prefix + ".attn_norm", c.d_model, c.norm_eps)),
      mlp_norm_(LayerNorm::declare(store, prefix + ".mlp_norm", c.d_model, c.norm_eps)),
      attn_(store, prefix + ".attn", c),
      fc1_(Linear::declare(store, prefix + ".mlp.fc1", c.d_model, c.d_ff, c.init_std)),
      fc2_(Linear::declare(store, prefix + ".mlp.fc2", c.d_ff, c.d_model, c.init_std)),
      pre_norm_(c.norm == NormPlacement::pre),
      dropout_(c.dropout),
      activation_(c.activation) {}

Var TransformerBlock::mlp(const ParameterStore& store, const Var& x) const {
  // fc2 applies the activation itself: the block keeps fc1's output for the backward, not a second [N, d_ff].
  return fc2_(store, fc1_(store, x), activation_);
}

Var TransformerBlock::forward(const ParameterStore& store, const Var& x, const AttentionInputs& in,
                              ForwardContext& ctx) const {
  if (pre_norm_) {
    Var h = add(x, ctx.dropout(attn_.forward(store, attn_norm_(store, x), in, ctx), dropout_));
    return add(h, ctx.dropout(mlp(store, mlp_norm_(store, h)), dropout_));
  }
  Var h = attn_norm_(store, add(x, ctx.dropout(attn_.forward(store, x, in, ctx), dropout_)));
  return mlp_norm_(store, add(h, ctx.dropout(mlp(store, h), dropout_)));
}

}  // namespace rotor
