#include "engine/optim/adam.h"

#include <cmath>
#include <string>

#include "engine/error.h"
#include "engine/optim/parameter_chunks.h"

namespace rotor {
namespace {

const char* owner_name(Adam::Decay decay) { return decay == Adam::Decay::l2 ? "Adam" : "AdamW"; }

AdamOptions validated_adam(const AdamOptions& o, Adam::Decay decay) {
  auto fail = [&](const std::string& what, double v) {
    throw ValueError(std::string(owner_name(decay)) + ": " + what + ", got " + std::to_string(v));
  };
  if (!(o.beta1 >= 0 && o.beta1 < 1)) fail("beta1 must be in [0, 1)", o.beta1);
  if (!(o.beta2 >= 0 && o.beta2 < 1)) fail("beta2 must be in [0, 1)", o.beta2);
  if (!std::isfinite(o.eps) || o.eps <= 0) fail("eps must be finite and > 0", o.eps);
  if (!std::isfinite(o.weight_decay) || o.weight_decay < 0)
    fail("weight_decay must be finite and >= 0", o.weight_decay);
  return o;
}

// Per-step constants, computed once in double and rounded to T like
// PyTorch's scalar arguments.
template <class T>
struct AdamCoefficients {
  T beta1, one_minus_beta1, beta2, one_minus_beta2;
  T step_size;              // lr / (1 - beta1^t)
  T bias_correction2_sqrt;  // sqrt(1 - beta2^t)
  T eps;
};

// Elements [b, e) of the flat buffers. `l2` is the coupled decay added to the
// gradient (Adam); `keep` the decoupled shrink factor (AdamW). One of them is
// neutral (0 or 1).
template <class T>
void adam_update(T* __restrict p, const T* __restrict g, T* __restrict m, T* __restrict v, int64_t b, int64_t e,
                 const AdamCoefficients<T>& coefficients, T l2, T keep) {
  const AdamCoefficients<T> c = coefficients;  // a copy the buffers cannot alias: the loop vectorizes
  for (int64_t i = b; i < e; ++i) {
    const T grad = g[i] + l2 * p[i];
    p[i] *= keep;
    m[i] = c.beta1 * m[i] + c.one_minus_beta1 * grad;
    v[i] = c.beta2 * v[i] + c.one_minus_beta2 * (grad * grad);
    const T denom = std::sqrt(v[i]) / c.bias_correction2_sqrt + c.eps;
    p[i] -= c.step_size * (m[i] / denom);
  }
}

}  // namespace

Adam::Adam(ParameterStore& params, AdamOptions options, Decay decay)
    : params_(params),
      options_(validated_adam(options, decay)),
      decay_(decay),
      slots_(params, {"m", "v"}, owner_name(decay)) {}

void Adam::step(double lr) {
  check_learning_rate(lr, slots_.owner());
  ++step_;
  const double t = static_cast<double>(step_);
  dispatch(params_.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const AdamCoefficients<T> c{static_cast<T>(options_.beta1),
                                static_cast<T>(1 - options_.beta1),
                                static_cast<T>(options_.beta2),
                                static_cast<T>(1 - options_.beta2),
                                static_cast<T>(lr / (1 - std::pow(options_.beta1, t))),
                                static_cast<T>(std::sqrt(1 - std::pow(options_.beta2, t))),
                                static_cast<T>(options_.eps)};
    T* p = params_.values().data<T>();
    const T* g = params_.grads().data<T>();
    T* m = slots_.flat(0).data<T>();
    T* v = slots_.flat(1).data<T>();
    const bool coupled = decay_ == Decay::l2;
    for_each_parameter_chunk(params_, options_.weight_decay, [&](int64_t b, int64_t e, double wd) {
      const T l2 = coupled ? static_cast<T>(wd) : T(0);
      const T keep = coupled ? T(1) : static_cast<T>(1 - lr * wd);
      adam_update<T>(p, g, m, v, b, e, c, l2, keep);
    });
  });
}

OptimizerState Adam::export_state() const {
  OptimizerState state;
  slots_.export_to(state);
  state.scalars["step"] = static_cast<double>(step_);
  return state;
}

void Adam::import_state(const OptimizerState& state) {
  const int64_t step = read_counter(state, "step", slots_.owner());
  slots_.import_from(state, {"step"});
  step_ = step;
}

}  // namespace rotor
