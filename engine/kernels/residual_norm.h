#pragma once
// The residual step of a transformer block fused: h = x + dropout(y), and
// optionally n = layer_norm(h), in one pass over the rows. dropout() masks,
// add() and layer_norm() arithmetic are shared, so the bits are the composed ops'.
#include <cstdint>

#include "engine/random.h"

namespace rotor::kernels {

// h = x + (keep ? y * scale : 0) over n elements (p == 0: x + y).
template <class T>
void add_dropout_forward(const T* x, const T* y, T* h, int64_t n, double p, const RandomKey& key);
// gx += g, gy += keep ? g * scale : 0; either may be null.
template <class T>
void add_dropout_backward(const T* g, T* gx, T* gy, int64_t n, double p, const RandomKey& key);

// h = x + dropout(y), n = layer_norm(h) over [rows, D]; saves mean and rstd per row.
template <class T>
void residual_norm_forward(const T* x, const T* y, double p, const RandomKey& key, const T* w, const T* b, T* h, T* n,
                           T* mean, T* rstd, int64_t rows, int64_t D, double eps);
// g = gh + layer_norm's input gradient from gn (null gh or gn: zeros); then gx, gy as add_dropout_backward,
// and gw, gb as layer_norm_backward. Any output may be null.
template <class T>
void residual_norm_backward(const T* h, const T* w, const T* mean, const T* rstd, const T* gh, const T* gn, T* gx,
                            T* gy, T* gw, T* gb, double p, const RandomKey& key, int64_t rows, int64_t D);

}  // namespace rotor::kernels
