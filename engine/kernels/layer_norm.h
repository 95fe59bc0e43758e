#pragma once
// Layer norm over the last dim of [rows, D], forward and backward fused.
#include <cstdint>

namespace rotor::kernels {

// y = (x - mean) * rstd * w + b; saves mean and rstd per row for backward.
template <class T>
void layer_norm_forward(const T* x, const T* w, const T* b, T* y, T* mean, T* rstd, int64_t rows, int64_t D,
                        double eps);
// dx += rstd * (g - mean(g) - xhat * mean(g * xhat)) with g = dy * w;
// dw += sum_rows dy * xhat; db += sum_rows dy (column-parallel, row order fixed).
template <class T>
void layer_norm_backward(const T* x, const T* w, const T* mean, const T* rstd, const T* dy, T* dx, T* dw, T* db,
                         int64_t rows, int64_t D);

}  // namespace rotor::kernels
