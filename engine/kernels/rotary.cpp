#include "engine/kernels/rotary.h"

#include "engine/parallel.h"

namespace rotor::kernels {
namespace {

// The rows of one call. The layout, the direction and accumulation are
// template arguments, so the pair loop has no branch and vectorizes; a row's
// position advances with the row (no division per row of a few pairs).
template <class T, bool Interleaved, bool Backward, bool Accumulate>
void rotate_rows(const T* x, T* y, const T* cos, const T* sin, int64_t G, int64_t N, int64_t d, int64_t r) {
  const int64_t half = r / 2;
  parallel_for(G * N, grain_for(d), [&](int64_t begin, int64_t end) {
    int64_t n = begin % N;
    for (int64_t row = begin; row < end; ++row, n = n + 1 == N ? 0 : n + 1) {
      const T* __restrict xr = x + row * d;
      T* __restrict yr = y + row * d;
      const T* __restrict c = cos + n * half;
      const T* __restrict s = sin + n * half;
      for (int64_t i = 0; i < half; ++i) {
        const int64_t a = Interleaved ? 2 * i : i, b = Interleaved ? 2 * i + 1 : i + half;
        const T sn = Backward ? -s[i] : s[i];
        const T ya = xr[a] * c[i] - xr[b] * sn;
        const T yb = xr[b] * c[i] + xr[a] * sn;
        yr[a] = Accumulate ? yr[a] + ya : ya;
        yr[b] = Accumulate ? yr[b] + yb : yb;
      }
      for (int64_t k = r; k < d; ++k) yr[k] = Accumulate ? yr[k] + xr[k] : xr[k];
    }
  });
}

template <class T, bool Interleaved>
void rotate_rows_as(const T* x, T* y, const T* cos, const T* sin, int64_t G, int64_t N, int64_t d, int64_t r, int sign,
                    bool accumulate) {
  if (sign > 0)
    accumulate ? rotate_rows<T, Interleaved, false, true>(x, y, cos, sin, G, N, d, r)
               : rotate_rows<T, Interleaved, false, false>(x, y, cos, sin, G, N, d, r);
  else
    accumulate ? rotate_rows<T, Interleaved, true, true>(x, y, cos, sin, G, N, d, r)
               : rotate_rows<T, Interleaved, true, false>(x, y, cos, sin, G, N, d, r);
}

}  // namespace

template <class T>
void rotary_apply(const T* x, T* y, const T* cos, const T* sin, int64_t G, int64_t N, int64_t d, int64_t r,
                  PairLayout layout, int sign, bool accumulate) {
  if (layout == PairLayout::interleaved)
    rotate_rows_as<T, true>(x, y, cos, sin, G, N, d, r, sign, accumulate);
  else
    rotate_rows_as<T, false>(x, y, cos, sin, G, N, d, r, sign, accumulate);
}

template void rotary_apply<float>(const float*, float*, const float*, const float*, int64_t, int64_t, int64_t, int64_t,
                                  PairLayout, int, bool);
template void rotary_apply<double>(const double*, double*, const double*, const double*, int64_t, int64_t, int64_t,
                                   int64_t, PairLayout, int, bool);

}  // namespace rotor::kernels
