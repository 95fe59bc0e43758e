#pragma once
// Matrix products over raw row-major buffers. This is the only place that
// touches BLAS. Work is cut into fixed tiles that depend only on the shapes,
// each tile is one single-threaded BLAS call, and tiles are dealt to the
// OpenMP threads: the result is bit-identical for any thread count.
#include <cstdint>

namespace rotor::kernels {

// C = alpha * op(A) op(B) + beta * C, with op(A) [M, K], op(B) [K, N], C [M, N].
// A is stored [M, K] (or [K, M] if trans_a), B [K, N] (or [N, K] if trans_b).
template <class T>
void gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha, const T* A, const T* B, T beta, T* C);

// `batch` independent products with the same shapes; a stride of 0 shares an
// operand across the batch (its result is still summed in batch order).
template <class T>
void gemm_batched(bool trans_a, bool trans_b, int64_t batch, int64_t M, int64_t N, int64_t K, T alpha, const T* A,
                  int64_t stride_a, const T* B, int64_t stride_b, T beta, T* C, int64_t stride_c);

}  // namespace rotor::kernels
