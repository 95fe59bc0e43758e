#pragma once
// Reductions over one dim of a tensor viewed as [outer, len, inner], and the
// masked poolings of a [B, N, D] sequence batch. Each output element sums its
// inputs sequentially in index order, so results never depend on threads.
#include <cstdint>

namespace rotor::kernels {

// y[o, i] = scale * sum_j x[o, j, i]
template <class T>
void reduce_sum(const T* x, T* y, int64_t outer, int64_t len, int64_t inner, double scale);
// dx[o, j, i] += scale * dy[o, i]
template <class T>
void reduce_sum_backward(const T* dy, T* dx, int64_t outer, int64_t len, int64_t inner, double scale);

// y[b, d] = mean over j < lengths[b] of x[b, j, d]
template <class T>
void masked_mean_forward(const T* x, const int32_t* lengths, T* y, int64_t B, int64_t N, int64_t D);
template <class T>
void masked_mean_backward(const T* dy, const int32_t* lengths, T* dx, int64_t B, int64_t N, int64_t D);

// y[b, d] = max over j < lengths[b] of x[b, j, d]; argmax[b, d] = the first j attaining it
template <class T>
void masked_max_forward(const T* x, const int32_t* lengths, T* y, int64_t* argmax, int64_t B, int64_t N, int64_t D);
template <class T>
void masked_max_backward(const T* dy, const int64_t* argmax, T* dx, int64_t B, int64_t N, int64_t D);

}  // namespace rotor::kernels
