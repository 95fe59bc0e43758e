#include "engine/optim/sgd.h"

#include <cmath>
#include <string>

#include "engine/error.h"
#include "engine/optim/parameter_chunks.h"

namespace rotor {
namespace {

const char* const kOwner = "Sgd";

SgdOptions validated_sgd(const SgdOptions& o) {
  auto fail = [](const std::string& what, double v) {
    throw ValueError(std::string(kOwner) + ": " + what + ", got " + std::to_string(v));
  };
  if (!std::isfinite(o.momentum) || o.momentum < 0) fail("momentum must be finite and >= 0", o.momentum);
  if (!std::isfinite(o.weight_decay) || o.weight_decay < 0)
    fail("weight_decay must be finite and >= 0", o.weight_decay);
  if (o.nesterov && o.momentum == 0) fail("nesterov needs momentum > 0", o.momentum);
  return o;
}

// Elements [b, e) of the flat buffers; buf is null when momentum is 0.
template <class T>
void sgd_update(T* p, const T* g, T* buf, int64_t b, int64_t e, T lr, T decay, T momentum, bool nesterov) {
  for (int64_t i = b; i < e; ++i) {
    T d = g[i] + decay * p[i];
    if (buf) {
      buf[i] = momentum * buf[i] + d;
      d = nesterov ? d + momentum * buf[i] : buf[i];
    }
    p[i] -= lr * d;
  }
}

}  // namespace

Sgd::Sgd(ParameterStore& params, SgdOptions options)
    : params_(params),
      options_(validated_sgd(options)),
      slots_(params, options.momentum > 0 ? std::vector<std::string>{"momentum"} : std::vector<std::string>{}, kOwner) {
}

void Sgd::step(double lr) {
  check_learning_rate(lr, kOwner);
  dispatch(params_.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = params_.values().data<T>();
    const T* g = params_.grads().data<T>();
    T* buf = options_.momentum > 0 ? slots_.flat(0).data<T>() : nullptr;
    for_each_parameter_chunk(params_, options_.weight_decay, [&](int64_t b, int64_t e, double decay) {
      sgd_update<T>(p, g, buf, b, e, static_cast<T>(lr), static_cast<T>(decay), static_cast<T>(options_.momentum),
                    options_.nesterov);
    });
  });
}

OptimizerState Sgd::export_state() const {
  OptimizerState state;
  slots_.export_to(state);
  return state;
}

void Sgd::import_state(const OptimizerState& state) { slots_.import_from(state, {}); }

}  // namespace rotor
