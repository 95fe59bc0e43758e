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
  // Column sums over rows. Each chunk owns a block of columns and walks the rows
  // in order, so the inner loop runs along contiguous memory (a column walk
  // strides D elements per row) and the sums do not depend on the thread count.
  constexpr int64_t kColumns = 64;
  parallel_for(D, kColumns, [&](int64_t d0, int64_t d1) {
    T sw[kColumns] = {}, sb[kColumns] = {};
    const int64_t width = d1 - d0;
    for (int64_t r = 0; r < rows; ++r) {
      const T* xr = x + r * D + d0;
      const T* gr = dy + r * D + d0;
      const T m = mean[r], s = rstd[r];
      for (int64_t j = 0; j < width; ++j) {
        sw[j] += gr[j] * (xr[j] - m) * s;
        sb[j] += gr[j];
      }
    }
    for (int64_t j = 0; j < width; ++j) {
      if (dw) dw[d0 + j] += sw[j];
      if (db) db[d0 + j] += sb[j];
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
