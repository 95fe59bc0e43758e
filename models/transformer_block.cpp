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
  // The residual steps are fused ops; each takes its dropout site's key where dropout() took it, after
  // the branch it drops ran, so the masks stay the composed ops'. `y` lets go of each branch output once added.
  Var y = attn_.forward(store, pre_norm_ ? attn_norm_(store, x) : x, in, ctx);
  ForwardContext::DropoutSite site = ctx.dropout_site(dropout_);
  if (pre_norm_) {
    const ResidualNorm r = mlp_norm_.after_residual(store, x, y, site.p, site.key);
    y = mlp(store, r.n);
    site = ctx.dropout_site(dropout_);
    return add_dropout(r.h, y, site.p, site.key);
  }
  const Var h = attn_norm_.after_residual(store, x, y, site.p, site.key).n;
  y = mlp(store, h);
  site = ctx.dropout_site(dropout_);
  return mlp_norm_.after_residual(store, h, y, site.p, site.key).n;
}

}  // namespace rotor
