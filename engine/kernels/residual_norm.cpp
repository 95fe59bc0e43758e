#include "engine/kernels/residual_norm.h"

#include <vector>

#include "engine/kernels/dropout_mask.h"
#include "engine/kernels/layer_norm.h"
#include "engine/kernels/layer_norm_row.h"
#include "engine/parallel.h"

namespace rotor::kernels {
namespace {

// dropout()'s mask and scale for rate p; no mask at p == 0 (the composed path applies no dropout then).
template <class T>
struct Dropping {
  DropoutMask mask;
  T scale;
  bool active;
  Dropping(const RandomKey& key, double p) : mask(key, p), scale(dropout_scale<T>(p)), active(p != 0.0) {}
};

// h = x + dropout(y) over the m flat elements starting at `first`.
template <class T>
void residual_span(const T* x, const T* y, T* h, int64_t first, int64_t m, const Dropping<T>& drop) {
  if (!drop.active) {
    for (int64_t k = 0; k < m; ++k) h[k] = x[k] + y[k];
    return;
  }
  uint32_t buffer[DropoutMask::kWords];
  T dropped[kDropoutBlock];  // rounded to T before the add, as dropout() then add() round it
  for (int64_t g = 0; g < m; g += kDropoutBlock) {
    const int64_t c = m - g < kDropoutBlock ? m - g : kDropoutBlock;
    apply_dropout_mask<false>(drop.mask, drop.mask.words(first + g, c, buffer), y + g, dropped, c, drop.scale);
    for (int64_t k = 0; k < c; ++k) h[g + k] = x[g + k] + dropped[k];
  }
}

// gx += g, gy += dropout(g) over the m flat elements starting at `first`; either may be null.
template <class T>
void residual_grad_span(const T* g, T* gx, T* gy, int64_t first, int64_t m, const Dropping<T>& drop) {
  if (gx)
    for (int64_t k = 0; k < m; ++k) gx[k] += g[k];
  if (!gy) return;
  if (!drop.active) {
    for (int64_t k = 0; k < m; ++k) gy[k] += g[k];
    return;
  }
  uint32_t buffer[DropoutMask::kWords];
  for (int64_t o = 0; o < m; o += kDropoutBlock) {
    const int64_t c = m - o < kDropoutBlock ? m - o : kDropoutBlock;
    apply_dropout_mask<true>(drop.mask, drop.mask.words(first + o, c, buffer), g + o, gy + o, c, drop.scale);
  }
}

}  // namespace

template <class T>
void add_dropout_forward(const T* x, const T* y, T* h, int64_t n, double p, const RandomKey& key) {
  const Dropping<T> drop(key, p);
  parallel_for(n, kElementwiseGrain, [&](int64_t b, int64_t e) { residual_span(x + b, y + b, h + b, b, e - b, drop); });
}

template <class T>
void add_dropout_backward(const T* g, T* gx, T* gy, int64_t n, double p, const RandomKey& key) {
  const Dropping<T> drop(key, p);
  parallel_for(n, kElementwiseGrain, [&](int64_t b, int64_t e) {
    residual_grad_span(g + b, gx ? gx + b : nullptr, gy ? gy + b : nullptr, b, e - b, drop);
  });
}

template <class T>
void residual_norm_forward(const T* x, const T* y, double p, const RandomKey& key, const T* w, const T* b, T* h, T* n,
                           T* mean, T* rstd, int64_t rows, int64_t D, double eps) {
  const Dropping<T> drop(key, p);
  // Each row is normalised right after it is formed, while it is still in cache.
  parallel_for(rows, grain_for(D), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t o = r * D;
      residual_span(x + o, y + o, h + o, o, D, drop);
      layer_norm_row_forward(h + o, w, b, n + o, mean[r], rstd[r], D, eps);
    }
  });
}

template <class T>
void residual_norm_backward(const T* h, const T* w, const T* mean, const T* rstd, const T* gh, const T* gn, T* gx,
                            T* gy, T* gw, T* gb, double p, const RandomKey& key, int64_t rows, int64_t D) {
  if (!gn) {
    if (gh) add_dropout_backward(gh, gx, gy, rows * D, p, key);
    return;
  }
  const Dropping<T> drop(key, p);
  parallel_for(rows, grain_for(D), [&](int64_t r0, int64_t r1) {
    std::vector<T> g(static_cast<size_t>(D));  // h's gradient, one row: as the composed graph accumulates it
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t o = r * D;
      for (int64_t d = 0; d < D; ++d) g[d] = gh ? gh[o + d] : T(0);
      layer_norm_row_dx(h + o, w, mean[r], rstd[r], gn + o, g.data(), D);
      residual_grad_span(g.data(), gx ? gx + o : nullptr, gy ? gy + o : nullptr, o, D, drop);
    }
  });
  if (gw || gb) layer_norm_backward<T>(h, w, mean, rstd, gn, nullptr, gw, gb, rows, D);
}

#define ROTOR_INSTANTIATE(T)                                                                                           \
  template void add_dropout_forward<T>(const T*, const T*, T*, int64_t, double, const RandomKey&);                     \
  template void add_dropout_backward<T>(const T*, T*, T*, int64_t, double, const RandomKey&);                          \
  template void residual_norm_forward<T>(const T*, const T*, double, const RandomKey&, const T*, const T*, T*, T*, T*, \
                                         T*, int64_t, int64_t, double);                                                \
  template void residual_norm_backward<T>(const T*, const T*, const T*, const T*, const T*, const T*, T*, T*, T*, T*,  \
                                          double, const RandomKey&, int64_t, int64_t);
ROTOR_INSTANTIATE(float)
ROTOR_INSTANTIATE(double)
#undef ROTOR_INSTANTIATE

}  // namespace rotor::kernels
