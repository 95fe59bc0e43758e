#pragma once
// Dense products on the small tiles of the fused attention kernel (at most
// 64 x 64 x head_dim). Row-major with leading dimensions:
//   C[M, N] = A[M, K] B[K, N]   (+ C when `accumulate`)
// tile_matmul is the kernel's choice: a hand-vectorised AVX-512 register-
// blocked kernel for float when compiled with AVX-512 (fastest at this size,
// bench/README.md "Attention tile products"), the portable loop otherwise.
#include <cstdint>

namespace rotor::kernels {

template <class T>
void tile_matmul(int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, const T* B, int64_t ldb, T* C,
                 int64_t ldc, bool accumulate);

// The plain-loop version (the compiler vectorises its inner loop): the fallback
// without AVX-512, and the reference in tests and benchmarks.
template <class T>
void tile_matmul_portable(int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, const T* B, int64_t ldb, T* C,
                          int64_t ldc, bool accumulate);

}  // namespace rotor::kernels
