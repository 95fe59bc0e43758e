#pragma once
// One row of layer norm, forward and input gradient: the arithmetic of
// layer_norm_forward / layer_norm_backward, shared with the fused residual
// norm (kernels/residual_norm.cpp) so both give the same bits.
#include <cmath>
#include <cstdint>

namespace rotor::kernels {

// y = (x - mean) * rstd * w + b over one row of D; returns mean and rstd.
template <class T>
inline void layer_norm_row_forward(const T* xr, const T* w, const T* b, T* yr, T& mean, T& rstd, int64_t D,
                                   double eps) {
  double s = 0.0;  // statistics in double: float rows of thousands lose digits
  for (int64_t d = 0; d < D; ++d) s += xr[d];
  const double mu = s / static_cast<double>(D);
  double v = 0.0;
  for (int64_t d = 0; d < D; ++d) v += (xr[d] - mu) * (xr[d] - mu);
  const double rs = 1.0 / std::sqrt(v / static_cast<double>(D) + eps);
  mean = static_cast<T>(mu);
  rstd = static_cast<T>(rs);
  for (int64_t d = 0; d < D; ++d) yr[d] = static_cast<T>((xr[d] - mu) * rs) * w[d] + b[d];
}

// dx += rstd * (g - mean(g) - xhat * mean(g * xhat)) with g = dy * w, over one row.
template <class T>
inline void layer_norm_row_dx(const T* xr, const T* w, T mean, T rstd, const T* gr, T* dr, int64_t D) {
  double sg = 0.0, sgx = 0.0;
  for (int64_t d = 0; d < D; ++d) {
    const double g = static_cast<double>(gr[d]) * w[d];
    sg += g;
    sgx += g * (xr[d] - mean) * rstd;
  }
  sg /= static_cast<double>(D);
  sgx /= static_cast<double>(D);
  for (int64_t d = 0; d < D; ++d) {
    const double xhat = (xr[d] - mean) * static_cast<double>(rstd);
    dr[d] += static_cast<T>(rstd * (static_cast<double>(gr[d]) * w[d] - sg - xhat * sgx));
  }
}

}  // namespace rotor::kernels
