#include "models/layers.h"

namespace rotor {

Linear Linear::declare(ParameterStore& store, const std::string& prefix, int64_t in, int64_t out, double init_std) {
  Linear l;
  l.weight = store.declare(prefix + ".weight", {out, in}, ParameterInit::normal(init_std));
  l.bias = store.declare(prefix + ".bias", {out}, ParameterInit::zeros(), /*weight_decay=*/false);
  return l;
}

Var Linear::operator()(const ParameterStore& store, const Var& x) const {
  return linear(x, store.var(weight), store.var(bias));
}

Var Linear::operator()(const ParameterStore& store, const Var& x, HiddenActivation f) const {
  return activated_linear(x, f, store.var(weight), store.var(bias));
}

LayerNorm LayerNorm::declare(ParameterStore& store, const std::string& prefix, int64_t d, double eps) {
  LayerNorm n;
  n.weight = store.declare(prefix + ".weight", {d}, ParameterInit::ones(), false);
  n.bias = store.declare(prefix + ".bias", {d}, ParameterInit::zeros(), false);
  n.eps = eps;
  return n;
}

Var LayerNorm::operator()(const ParameterStore& store, const Var& x) const {
  return layer_norm(x, store.var(weight), store.var(bias), eps);
}

ResidualNorm LayerNorm::after_residual(const ParameterStore& store, const Var& x, const Var& y, double p,
                                       const RandomKey& key) const {
  return residual_norm(x, y, p, key, store.var(weight), store.var(bias), eps);
}

}  // namespace rotor
