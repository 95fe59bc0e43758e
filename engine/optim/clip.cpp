#include "engine/optim/clip.h"

#include <cmath>
#include <string>

#include "engine/error.h"
#include "engine/parallel.h"

namespace rotor {
namespace {

double l2_norm(const Tensor& t) {
  return dispatch(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = t.data<T>();
    return std::sqrt(parallel_sum(t.numel(), kElementwiseGrain, [&](int64_t b, int64_t e) {
      double s = 0.0;
      for (int64_t i = b; i < e; ++i) s += static_cast<double>(x[i]) * static_cast<double>(x[i]);
      return s;
    }));
  });
}

}  // namespace

double clip_grad_norm(ParameterStore& params, double max_norm) {
  if (!std::isfinite(max_norm) || max_norm <= 0)
    throw ValueError("clip_grad_norm: max_norm must be finite and > 0, got " + std::to_string(max_norm));
  Tensor& grads = params.grads();
  const double norm = l2_norm(grads);
  const double coefficient = max_norm / (norm + 1e-6);
  if (!std::isfinite(norm) || coefficient >= 1.0) return norm;
  dispatch(grads.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* g = grads.data<T>();
    const T scale = static_cast<T>(coefficient);
    parallel_for(grads.numel(), kElementwiseGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) g[i] *= scale;
    });
  });
  return norm;
}

bool all_finite(const Tensor& t) {
  return dispatch(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = t.data<T>();
    const double bad = parallel_sum(t.numel(), kElementwiseGrain, [&](int64_t b, int64_t e) {
      double count = 0;
      for (int64_t i = b; i < e; ++i) count += std::isfinite(x[i]) ? 0 : 1;
      return count;
    });
    return bad == 0;
  });
}

}  // namespace rotor
