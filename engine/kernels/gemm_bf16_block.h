#pragma once
// The native bf16 block product (gemm_bf16_avx512.cpp), used by gemm_bf16.cpp's
// tiles. Call only when cpu_has_bf16_dot().
#include <cstdint>

namespace rotor::kernels {

// One single-threaded product on the [m, n] block of C [M, N] whose top-left
// corner is (row0, col0): C = alpha op(A) op(B) + beta C there, A and B as gemm's.
void gemm_bf16_block_avx512(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, int64_t row0, int64_t m,
                            int64_t col0, int64_t n, float alpha, const float* A, const float* B, float beta, float* C);

}  // namespace rotor::kernels
