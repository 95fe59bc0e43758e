#pragma once
// Elementwise kernels over raw buffers: unary activations (forward and
// backward side by side), broadcast binary arithmetic, and the reduction that
// folds a broadcast gradient back onto an input's shape. Backward kernels
// accumulate (+=) into the input gradient.
#include <cstdint>

#include "engine/shape.h"

namespace rotor::kernels {

enum class Unary { relu, elu, tanh, gelu_erf, gelu_tanh, exp, log, sqrt, neg };

// y = f(x)
template <class T>
void unary_forward(Unary f, const T* x, T* y, int64_t n);
// dx += f'(x) * dy   (y = f(x) is passed for activations whose derivative uses it)
template <class T>
void unary_backward(Unary f, const T* x, const T* y, const T* dy, T* dx, int64_t n);

enum class Binary { add, sub, mul, div };

// out = a (op) b with numpy broadcasting; `out_shape` = broadcast_shapes(as, bs).
template <class T>
void binary_forward(Binary op, const T* a, const Shape& as, const T* b, const Shape& bs, T* out,
                    const Shape& out_shape);

// out[i] = x[i] * scale + shift;  out = x^p for pow
template <class T>
void affine_scalar(const T* x, T* y, int64_t n, double scale, double shift);
template <class T>
void pow_scalar_forward(const T* x, T* y, int64_t n, double p);
template <class T>
void pow_scalar_backward(const T* x, const T* dy, T* dx, int64_t n, double p);

// acc += sum of g (shape `from`) over the dims broadcast from `to` (numpy
// rules). Each output element sums its sources in a fixed order.
template <class T>
void sum_to_shape(const T* g, const Shape& from, T* acc, const Shape& to);

// acc += x * scale
template <class T>
void axpy(const T* x, T* acc, int64_t n, double scale);

}  // namespace rotor::kernels
