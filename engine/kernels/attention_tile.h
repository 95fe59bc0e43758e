#pragma once
// Dense products on the small tiles of the fused attention kernel (at most
// 64 x 64 x head_dim). Row-major with leading dimensions:
//   C[M, N] = A[M, K] B[K, N]     (+ C when `accumulate`)   tile_matmul
//   C[M, N] = A[K, M]^T B[K, N]   (+ C when `accumulate`)   tile_matmul_at
// tile_matmul is the kernel's choice: a hand-vectorised register-blocked
// kernel for float when compiled with AVX-512 (fastest at this size,
// bench/README.md "Attention tile products") or with AVX2 and FMA (the
// portable loop's bits, without its store and reload of C on every k), the
// portable loop otherwise.
#include <cstdint>

namespace rotor::kernels {

template <class T>
void tile_matmul(int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, const T* B, int64_t ldb, T* C, int64_t ldc,
                 bool accumulate);

// A stored [K, M]: the backward's dV += P^T dO and dK += dS^T Q read the P and
// dS tiles as they were computed, row by row, instead of writing them transposed.
template <class T>
void tile_matmul_at(int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, const T* B, int64_t ldb, T* C,
                    int64_t ldc, bool accumulate);

// The plain-loop versions (the compiler vectorises its inner loop): the fallback
// without AVX-512, and the reference in tests and benchmarks.
template <class T>
void tile_matmul_portable(int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, const T* B, int64_t ldb, T* C,
                          int64_t ldc, bool accumulate);
template <class T>
void tile_matmul_at_portable(int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, const T* B, int64_t ldb, T* C,
                             int64_t ldc, bool accumulate);

// Row pieces of the online softmax, vectorised with AVX-512 for float:
// the largest of x[0..n) (-inf for n = 0), and x[c] = exp(x[c] - shift) in
// place, returning the sum of the results. The float exp is a polynomial
// (Cephes expf, within 2 ulp of std::exp), exactly 0 below -104 (including
// -inf) and NaN-propagating; double uses std::exp.
template <class T>
T row_max(const T* x, int64_t n);
template <class T>
T exp_shifted(T* x, int64_t n, T shift);

}  // namespace rotor::kernels
