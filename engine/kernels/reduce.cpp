#include "engine/kernels/reduce.h"

#include <algorithm>

#include "engine/parallel.h"

namespace rotor::kernels {

template <class T>
void reduce_sum(const T* x, T* y, int64_t outer, int64_t len, int64_t inner, double scale) {
  parallel_for(outer * inner, grain_for(len), [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / inner, i = t % inner;
      const T* p = x + o * len * inner + i;
      T s = T(0);
      for (int64_t j = 0; j < len; ++j) s += p[j * inner];
      y[t] = s * static_cast<T>(scale);
    }
  });
}

template <class T>
void reduce_sum_backward(const T* dy, T* dx, int64_t outer, int64_t len, int64_t inner, double scale) {
  parallel_for(outer * len, grain_for(inner), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t o = r / len;
      T* d = dx + r * inner;
      const T* g = dy + o * inner;
      for (int64_t i = 0; i < inner; ++i) d[i] += g[i] * static_cast<T>(scale);
    }
  });
}

template <class T>
void masked_mean_forward(const T* x, const int32_t* lengths, T* y, int64_t B, int64_t N, int64_t D) {
  // Rows j >= lengths[b] are padding and never read.
  parallel_for(B, grain_for(N * D), [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      T* out = y + b * D;
      std::fill(out, out + D, T(0));
      for (int64_t j = 0; j < lengths[b]; ++j)
        for (int64_t d = 0; d < D; ++d) out[d] += x[(b * N + j) * D + d];
      for (int64_t d = 0; d < D; ++d) out[d] /= static_cast<T>(lengths[b]);
    }
  });
}

template <class T>
void masked_mean_backward(const T* dy, const int32_t* lengths, T* dx, int64_t B, int64_t N, int64_t D) {
  parallel_for(B, grain_for(N * D), [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b)
      for (int64_t j = 0; j < lengths[b]; ++j)
        for (int64_t d = 0; d < D; ++d) dx[(b * N + j) * D + d] += dy[b * D + d] / static_cast<T>(lengths[b]);
  });
}

template <class T>
void masked_max_forward(const T* x, const int32_t* lengths, T* y, int64_t* argmax, int64_t B, int64_t N, int64_t D) {
  parallel_for(B, grain_for(N * D), [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b)
      for (int64_t d = 0; d < D; ++d) {
        int64_t best = 0;
        for (int64_t j = 1; j < lengths[b]; ++j)
          if (x[(b * N + j) * D + d] > x[(b * N + best) * D + d]) best = j;
        y[b * D + d] = x[(b * N + best) * D + d];
        argmax[b * D + d] = best;
      }
  });
}

template <class T>
void masked_max_backward(const T* dy, const int64_t* argmax, T* dx, int64_t B, int64_t N, int64_t D) {
  for (int64_t b = 0; b < B; ++b)
    for (int64_t d = 0; d < D; ++d) dx[(b * N + argmax[b * D + d]) * D + d] += dy[b * D + d];
}

#define ROTOR_INSTANTIATE(T)                                                                              \
  template void reduce_sum<T>(const T*, T*, int64_t, int64_t, int64_t, double);                           \
  template void reduce_sum_backward<T>(const T*, T*, int64_t, int64_t, int64_t, double);                  \
  template void masked_mean_forward<T>(const T*, const int32_t*, T*, int64_t, int64_t, int64_t);          \
  template void masked_mean_backward<T>(const T*, const int32_t*, T*, int64_t, int64_t, int64_t);         \
  template void masked_max_forward<T>(const T*, const int32_t*, T*, int64_t*, int64_t, int64_t, int64_t); \
  template void masked_max_backward<T>(const T*, const int64_t*, T*, int64_t, int64_t, int64_t);
ROTOR_INSTANTIATE(float)
ROTOR_INSTANTIATE(double)
#undef ROTOR_INSTANTIATE

}  // namespace rotor::kernels
