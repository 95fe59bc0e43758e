#include "engine/kernels/rotary.h"

#include <algorithm>

#include "engine/parallel.h"

namespace rotor::kernels {

template <class T>
void rotary_apply(const T* x, T* y, const T* cos, const T* sin, int64_t G, int64_t N, int64_t d, int64_t r,
                  PairLayout layout, int sign, bool accumulate) {
  const int64_t half = r / 2;
  const int64_t stride = layout == PairLayout::interleaved ? 2 : 1;  // index step between pair starts
  const int64_t partner = layout == PairLayout::interleaved ? 1 : half;
  parallel_for(G * N, grain_for(d), [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      const int64_t n = row % N;
      const T* xr = x + row * d;
      T* yr = y + row * d;
      const T* c = cos + n * half;
      const T* s = sin + n * half;
      for (int64_t i = 0; i < half; ++i) {
        const int64_t a = i * stride, bdx = a + partner;
        const T sn = sign > 0 ? s[i] : -s[i];
        const T ya = xr[a] * c[i] - xr[bdx] * sn;
        const T yb = xr[bdx] * c[i] + xr[a] * sn;
        if (accumulate) {
          yr[a] += ya;
          yr[bdx] += yb;
        } else {
          yr[a] = ya;
          yr[bdx] = yb;
        }
      }
      for (int64_t k = r; k < d; ++k) yr[k] = accumulate ? yr[k] + xr[k] : xr[k];
    }
  });
}

template void rotary_apply<float>(const float*, float*, const float*, const float*, int64_t, int64_t, int64_t, int64_t,
                                  PairLayout, int, bool);
template void rotary_apply<double>(const double*, double*, const double*, const double*, int64_t, int64_t, int64_t,
                                   int64_t, PairLayout, int, bool);

}  // namespace rotor::kernels
