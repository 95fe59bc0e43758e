#pragma once
// One row of layer norm, forward and input gradient: the arithmetic of
// layer_norm_forward / layer_norm_backward, shared with the fused residual
// norm (kernels/residual_norm.cpp) so both give the same bits.
#include <cmath>
#include <cstdint>

namespace rotor::kernels {

// The sum of term(0..D-1) in double over eight lanes (lane j takes the terms
// d = j mod 8), folded in a fixed order: the rows are short (d_model 64 in a
// study), and one running sum is a chain of dependent adds that no vector unit
// can shorten. The order is fixed, so the bits do not depend on the threads.
template <class Term>
inline double lane_sum(int64_t D, Term term) {
  double acc[8] = {};
  int64_t d = 0;
  for (; d + 8 <= D; d += 8)
    for (int j = 0; j < 8; ++j) acc[j] += term(d + j);
  for (int j = 0; d < D; ++d, ++j) acc[j] += term(d);
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

// y = (x - mean) * rstd * w + b over one row of D; returns mean and rstd.
template <class T>
inline void layer_norm_row_forward(const T* xr, const T* w, const T* b, T* yr, T& mean, T& rstd, int64_t D,
                                   double eps) {
  // statistics in double: float rows of thousands lose digits
  const double mu = lane_sum(D, [&](int64_t d) { return static_cast<double>(xr[d]); }) / static_cast<double>(D);
  const double v = lane_sum(D, [&](int64_t d) { return (xr[d] - mu) * (xr[d] - mu); });
  const double rs = 1.0 / std::sqrt(v / static_cast<double>(D) + eps);
  mean = static_cast<T>(mu);
  rstd = static_cast<T>(rs);
  for (int64_t d = 0; d < D; ++d) yr[d] = static_cast<T>((xr[d] - mu) * rs) * w[d] + b[d];
}

// dx += rstd * (g - mean(g) - xhat * mean(g * xhat)) with g = dy * w, over one row.
template <class T>
inline void layer_norm_row_dx(const T* xr, const T* w, T mean, T rstd, const T* gr, T* dr, int64_t D) {
  const double sg = lane_sum(D, [&](int64_t d) { return static_cast<double>(gr[d]) * w[d]; }) / static_cast<double>(D);
  const double sgx = lane_sum(D, [&](int64_t d) { return static_cast<double>(gr[d]) * w[d] * (xr[d] - mean) * rstd; }) /
                     static_cast<double>(D);
  for (int64_t d = 0; d < D; ++d) {
    const double xhat = (xr[d] - mean) * static_cast<double>(rstd);
    dr[d] += static_cast<T>(rstd * (static_cast<double>(gr[d]) * w[d] - sg - xhat * sgx));
  }
}

}  // namespace rotor::kernels
