#include "engine/kernels/layer_norm.h"

#include <algorithm>
#include <cmath>

#include "engine/parallel.h"

namespace rotor::kernels {

template <class T>
void layer_norm_forward(const T* x, const T* w, const T* b, T* y, T* mean, T* rstd, int64_t rows, int64_t D,
                        double eps) {
  parallel_for(rows, grain_for(D), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* xr = x + r * D;
      double s = 0.0;  // statistics in double: float rows of thousands lose digits
      for (int64_t d = 0; d < D; ++d) s += xr[d];
      const double mu = s / static_cast<double>(D);
      double v = 0.0;
      for (int64_t d = 0; d < D; ++d) v += (xr[d] - mu) * (xr[d] - mu);
      const double rs = 1.0 / std::sqrt(v / static_cast<double>(D) + eps);
      mean[r] = static_cast<T>(mu);
      rstd[r] = static_cast<T>(rs);
      T* yr = y + r * D;
      for (int64_t d = 0; d < D; ++d) yr[d] = static_cast<T>((xr[d] - mu) * rs) * w[d] + b[d];
    }
  });
}

template <class T>
void layer_norm_backward(const T* x, const T* w, const T* mean, const T* rstd, const T* dy, T* dx, T* dw, T* db,
                         int64_t rows, int64_t D) {
  if (dx)
    parallel_for(rows, grain_for(D), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const T* xr = x + r * D;
        const T* gr = dy + r * D;
        double sg = 0.0, sgx = 0.0;
        for (int64_t d = 0; d < D; ++d) {
          const double g = static_cast<double>(gr[d]) * w[d];
          sg += g;
          sgx += g * (xr[d] - mean[r]) * rstd[r];
        }
        sg /= static_cast<double>(D);
        sgx /= static_cast<double>(D);
        T* dr = dx + r * D;
        for (int64_t d = 0; d < D; ++d) {
          const double xhat = (xr[d] - mean[r]) * static_cast<double>(rstd[r]);
          dr[d] += static_cast<T>(rstd[r] * (static_cast<double>(gr[d]) * w[d] - sg - xhat * sgx));
        }
      }
    });
  if (!dw && !db) return;
  parallel_for(D, std::max<int64_t>(64, grain_for(rows)), [&](int64_t d0, int64_t d1) {
    for (int64_t d = d0; d < d1; ++d) {
      T sw = T(0), sb = T(0);
      for (int64_t r = 0; r < rows; ++r) {
        const T g = dy[r * D + d];
        sw += g * (x[r * D + d] - mean[r]) * rstd[r];
        sb += g;
      }
      if (dw) dw[d] += sw;
      if (db) db[d] += sb;
    }
  });
}

template void layer_norm_forward<float>(const float*, const float*, const float*, float*, float*, float*, int64_t,
                                        int64_t, double);
template void layer_norm_forward<double>(const double*, const double*, const double*, double*, double*, double*,
                                         int64_t, int64_t, double);
template void layer_norm_backward<float>(const float*, const float*, const float*, const float*, const float*, float*,
                                         float*, float*, int64_t, int64_t);
template void layer_norm_backward<double>(const double*, const double*, const double*, const double*, const double*,
                                          double*, double*, double*, int64_t, int64_t);

}  // namespace rotor::kernels
