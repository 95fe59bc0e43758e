#include "models/attention.h"

#include <cmath>
#include <limits>
#include <vector>

#include "models/offset_pair_bias.h"

namespace rotor {

Var expand_relative_bias(const Var& per_offset, int64_t n) {
  return expand_offset_table(per_offset, Positions().list(n));
}

namespace {

// `mask` (or none) plus -inf where key j comes after query i: [.., N, N].
Tensor with_causal_mask(const Tensor& mask, int64_t n, DType dtype) {
  std::vector<double> future(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) future[i * n + j] = -std::numeric_limits<double>::infinity();
  const Tensor causal = Tensor::from_doubles({1, 1, n, n}, dtype, future);
  if (!mask.defined()) return causal;
  NoGradGuard constant;
  return add(Var(mask), Var(causal)).value();
}

}  // namespace

MultiHeadAttention::MultiHeadAttention(ParameterStore& store, const std::string& prefix, const ModelConfig& c)
    : q_(Linear::declare(store, prefix + ".q", c.d_model, c.d_model, c.init_std)),
      k_(Linear::declare(store, prefix + ".k", c.d_model, c.d_model, c.init_std)),
      v_(Linear::declare(store, prefix + ".v", c.d_model, c.d_model, c.init_std)),
      out_(Linear::declare(store, prefix + ".out", c.d_model, c.d_model, c.init_std)),
      heads_(c.heads),
      head_dim_(c.head_dim()),
      attention_dropout_(c.attention_dropout),
      kind_(c.attention),
      linear_rotation_(c.linear_rotation),
      kernel_(c.attention_kernel),
      logn_(c.position) {}

Var MultiHeadAttention::merge_heads(const Var& x) const {
  return reshape(permute(x, {0, 2, 1, 3}), {x.size(0), x.size(2), heads_ * head_dim_});
}

Var MultiHeadAttention::forward(const ParameterStore& store, const Var& x, const AttentionInputs& in,
                                ForwardContext& ctx) const {
  // q, k, v in [B, H, N, dh] from one product (engine project_heads), the parameters still .q, .k, .v.
  const std::vector<Var> qkv = project_heads(x, {store.var(q_.weight), store.var(k_.weight), store.var(v_.weight)},
                                             {store.var(q_.bias), store.var(k_.bias), store.var(v_.bias)}, heads_);
  const Var &q = qkv[0], &k = qkv[1];
  Var v = qkv[2];
  if (in.position->rotates_values()) v = in.position->rotate(v, PositionEncoding::Role::value, in.positions);
  Var o = kind_ == AttentionKind::linear ? linear_attention(q, k, v, in) : softmax_attention(store, q, k, v, in, ctx);
  return out_(store, merge_heads(o));
}

Var MultiHeadAttention::softmax_attention(const ParameterStore& store, const Var& q, const Var& k, const Var& v,
                                          const AttentionInputs& in, ForwardContext& ctx) const {
  const PositionEncoding& pos = *in.position;
  const Var qr =
      logn_.apply(pos.rotates() ? pos.rotate(q, PositionEncoding::Role::query, in.positions) : q, in.positions);
  const Var kr = pos.rotates() ? pos.rotate(k, PositionEncoding::Role::key, in.positions) : k;
  const double scale = pos.logit_scale() / std::sqrt(static_cast<double>(head_dim_));
  if (kernel_ == AttentionKernel::composed) return composed_softmax(store, qr, kr, v, scale, in, ctx);
  capture(qr, kr, scale, in, Tensor(), ctx);
  AttentionOptions opt;
  opt.scale = scale;
  opt.key_lengths = in.key_lengths;
  opt.bias = in.relative_bias;
  opt.pair_bias = in.pair_bias;
  opt.causal = in.causal;
  opt.dropout_key = ctx.next_dropout_key();  // the key the composed path's dropout site would take
  opt.dropout = ctx.dropout_rate(attention_dropout_);
  return attention(qr, kr, v, opt);  // [B, H, N, dh]
}

void MultiHeadAttention::capture(const Var& q, const Var& k, double scale, const AttentionInputs& in,
                                 const Tensor& contextual_bias, ForwardContext& ctx) const {
  if (ctx.attention_capture == nullptr) return;
  ctx.attention_capture->capture({ctx.layer, q.value(), k.value(), scale,
                                  in.relative_bias.defined() ? in.relative_bias.value() : Tensor(), in.pair_bias,
                                  contextual_bias, in.key_lengths, in.causal});
}

Var MultiHeadAttention::composed_softmax(const ParameterStore& store, const Var& q, const Var& k, const Var& v,
                                         double scale, const AttentionInputs& in, ForwardContext& ctx) const {
  // Scale q (N x dh) rather than the logits (N x N): one fewer N^2 buffer per layer.
  Var logits = matmul(mul_scalar(q, scale), k, false, true);
  Tensor mask = in.causal ? with_causal_mask(in.logit_mask, q.size(2), q.dtype()) : in.logit_mask;
  Var contextual;  // CoPE's term, from the logits before any other bias (its gates are sigmoid(q.k))
  if (in.position->contextual()) {
    contextual = in.position->contextual_bias(store, ctx.layer, q, mask.defined() ? add(logits, Var(mask)) : logits);
    logits = add(logits, contextual);
  }
  capture(q, k, scale, in, contextual.defined() ? contextual.value() : Tensor(), ctx);
  if (in.relative_bias.defined()) {
    const Var bias = expand_relative_bias(in.relative_bias, q.size(2));
    if (bias.requires_grad()) {
      logits = add(logits, bias);
    } else {  // a constant (ALiBi) joins the mask: no [B, H, N, N] graph node kept until backward
      NoGradGuard constant;
      mask = add(Var(mask), bias).value();
    }
  }
  if (in.pair_bias) logits = add(logits, in.pair_bias->compose(q.size(2)));
  Var p = softmax(logits, mask);
  if (ctx.attention_observer != nullptr) ctx.attention_observer->observe(ctx.layer, p.value(), in.key_lengths);
  return matmul(ctx.dropout(p, attention_dropout_), v);  // [B, H, N, dh]
}

Var MultiHeadAttention::linear_attention(const Var& q, const Var& k, const Var& v, const AttentionInputs& in) const {
  const PositionEncoding& pos = *in.position;
  auto rotated = [&](const Var& x, PositionEncoding::Role role) {
    return pos.rotates() ? pos.rotate(x, role, in.positions) : x;
  };
  // phi(x) = elu(x) + 1 > 0; padding keys contribute nothing.
  auto phi = [](const Var& x) { return add_scalar(elu(x), 1.0); };
  const Var keep(in.key_keep);
  // o_m = sum_n (nq_m . nk_n) v_n / sum_n (dq_m . dk_n): the numerator's features are rotated, the denominator's
  // stay positive. Eq. 19 rotates phi(q), phi(k) in the numerator only; the released code rotates q and k before
  // phi, so both use phi(R q), phi(R k).
  Var nq, nk, dq, dk;
  if (linear_rotation_ == LinearRotation::before_feature_map) {
    dq = nq = phi(rotated(q, PositionEncoding::Role::query));
    dk = nk = mul(phi(rotated(k, PositionEncoding::Role::key)), keep);
  } else {
    dq = phi(q);
    dk = mul(phi(k), keep);
    nq = rotated(dq, PositionEncoding::Role::query);
    nk = rotated(dk, PositionEncoding::Role::key);
  }
  if (in.causal) {  // the same sums over j <= i only, as running sums: O(N dh^2), O(dh^2) state per head
    const Var ones(Tensor::full({v.size(0), v.size(1), v.size(2), 1}, v.dtype(), 1.0));
    return div(causal_linear_attention(nq, nk, v), add_scalar(causal_linear_attention(dq, dk, ones), 1e-6));
  }
  const Var numerator = matmul(nq, matmul(nk, v, true, false));      // [B, H, N, dh] in O(N dh^2)
  const Var denominator = sum(mul(dq, sum(dk, 2, true)), -1, true);  // [B, H, N, 1]
  return div(numerator, add_scalar(denominator, 1e-6));
}

}  // namespace rotor
