#pragma once
// The two parameterised building blocks every model part uses. Each holds
// parameter ids into the model's ParameterStore and declares its parameters
// under a dotted prefix ("layers.0.attn.q" -> "layers.0.attn.q.weight").
#include <string>

#include "engine/ops.h"
#include "engine/parameters.h"

namespace rotor {

struct Linear {
  ParameterId weight = -1, bias = -1;  // weight [out, in] (PyTorch layout), bias [out]
  static Linear declare(ParameterStore& store, const std::string& prefix, int64_t in, int64_t out, double init_std);
  Var operator()(const ParameterStore& store, const Var& x) const;
  // this(f(x)), keeping x rather than f(x) for the backward (engine: activated_linear).
  Var operator()(const ParameterStore& store, const Var& x, HiddenActivation f) const;
};

struct LayerNorm {
  ParameterId weight = -1, bias = -1;  // [d] each; never weight-decayed
  double eps = 1e-5;
  static LayerNorm declare(ParameterStore& store, const std::string& prefix, int64_t d, double eps);
  Var operator()(const ParameterStore& store, const Var& x) const;
  // The residual sum h = x + dropout(y; p, key) and this(h), fused (engine residual_norm).
  ResidualNorm after_residual(const ParameterStore& store, const Var& x, const Var& y, double p,
                              const RandomKey& key) const;
};

}  // namespace rotor
