#include "engine/kernels/softmax.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/parallel.h"

namespace rotor::kernels {
namespace {

template <class F>
void rows_loop(int64_t rows, int64_t C, F f) {
  parallel_for(rows, grain_for(C), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) f(r);
  });
}

template <class T>
T row_max(const T* x, int64_t C) {
  T m = -std::numeric_limits<T>::infinity();
  for (int64_t c = 0; c < C; ++c) m = std::max(m, x[c]);
  return m;
}

}  // namespace

template <class T>
void softmax_forward(const T* x, T* y, int64_t rows, int64_t C) {
  rows_loop(rows, C, [&](int64_t r) {
    const T* xr = x + r * C;
    T* yr = y + r * C;
    const T m = row_max(xr, C);
    if (m == -std::numeric_limits<T>::infinity()) {
      std::fill(yr, yr + C, T(0));
      return;
    }
    T s = T(0);
    for (int64_t c = 0; c < C; ++c) s += (yr[c] = std::exp(xr[c] - m));
    const T inv = T(1) / s;
    for (int64_t c = 0; c < C; ++c) yr[c] *= inv;
  });
}

template <class T>
void softmax_backward(const T* y, const T* dy, T* dx, int64_t rows, int64_t C) {
  rows_loop(rows, C, [&](int64_t r) {
    const T* yr = y + r * C;
    const T* gr = dy + r * C;
    T dot = T(0);
    for (int64_t c = 0; c < C; ++c) dot += yr[c] * gr[c];
    T* dr = dx + r * C;
    for (int64_t c = 0; c < C; ++c) dr[c] += yr[c] * (gr[c] - dot);
  });
}

template <class T>
void log_softmax_forward(const T* x, T* y, int64_t rows, int64_t C) {
  rows_loop(rows, C, [&](int64_t r) {
    const T* xr = x + r * C;
    const T m = row_max(xr, C);
    T s = T(0);
    for (int64_t c = 0; c < C; ++c) s += std::exp(xr[c] - m);
    const T lse = m + std::log(s);
    for (int64_t c = 0; c < C; ++c) y[r * C + c] = xr[c] - lse;
  });
}

template <class T>
void log_softmax_backward(const T* y, const T* dy, T* dx, int64_t rows, int64_t C) {
  rows_loop(rows, C, [&](int64_t r) {
    T s = T(0);
    for (int64_t c = 0; c < C; ++c) s += dy[r * C + c];
    for (int64_t c = 0; c < C; ++c) dx[r * C + c] += dy[r * C + c] - std::exp(y[r * C + c]) * s;
  });
}

template <class T>
double cross_entropy_forward(const T* logits, const int32_t* labels, T* logp, int64_t rows, int64_t C, int32_t ignore,
                             double smoothing, int64_t* count) {
  log_softmax_forward(logits, logp, rows, C);
  double total = 0.0;
  int64_t n = 0;
  for (int64_t r = 0; r < rows; ++r) {  // sequential: a fixed summation order
    if (labels[r] == ignore) continue;
    const T* lp = logp + r * C;
    double all = 0.0;
    for (int64_t c = 0; c < C; ++c) all += lp[c];
    total += -(1.0 - smoothing) * lp[labels[r]] - smoothing / static_cast<double>(C) * all;
    ++n;
  }
  *count = n;
  return total;
}

template <class T>
void cross_entropy_backward(const T* logp, const int32_t* labels, T* dlogits, int64_t rows, int64_t C, int32_t ignore,
                            double smoothing, double scale) {
  rows_loop(rows, C, [&](int64_t r) {
    if (labels[r] == ignore) return;
    for (int64_t c = 0; c < C; ++c) {
      const double q = (c == labels[r] ? 1.0 - smoothing : 0.0) + smoothing / static_cast<double>(C);
      dlogits[r * C + c] += static_cast<T>((std::exp(static_cast<double>(logp[r * C + c])) - q) * scale);
    }
  });
}

#define ROTOR_INSTANTIATE(T)                                                                                           \
  template void softmax_forward<T>(const T*, T*, int64_t, int64_t);                                                    \
  template void softmax_backward<T>(const T*, const T*, T*, int64_t, int64_t);                                         \
  template void log_softmax_forward<T>(const T*, T*, int64_t, int64_t);                                                \
  template void log_softmax_backward<T>(const T*, const T*, T*, int64_t, int64_t);                                     \
  template double cross_entropy_forward<T>(const T*, const int32_t*, T*, int64_t, int64_t, int32_t, double, int64_t*); \
  template void cross_entropy_backward<T>(const T*, const int32_t*, T*, int64_t, int64_t, int32_t, double, double);
ROTOR_INSTANTIATE(float)
ROTOR_INSTANTIATE(double)
#undef ROTOR_INSTANTIATE

}  // namespace rotor::kernels
