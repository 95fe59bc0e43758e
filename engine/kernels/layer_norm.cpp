#include "engine/kernels/layer_norm.h"

#include "engine/kernels/layer_norm_row.h"
#include "engine/parallel.h"

namespace rotor::kernels {

template <class T>
void layer_norm_forward(const T* x, const T* w, const T* b, T* y, T* mean, T* rstd, int64_t rows, int64_t D,
                        double eps) {
  parallel_for(rows, grain_for(D), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) layer_norm_row_forward(x + r * D, w, b, y + r * D, mean[r], rstd[r], D, eps);
  });
}

template <class T>
void layer_norm_backward(const T* x, const T* w, const T* mean, const T* rstd, const T* dy, T* dx, T* dw, T* db,
                         int64_t rows, int64_t D) {
  if (dx)
    parallel_for(rows, grain_for(D), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) layer_norm_row_dx(x + r * D, w, mean[r], rstd[r], dy + r * D, dx + r * D, D);
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
