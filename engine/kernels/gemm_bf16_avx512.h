#pragma once
// The native bf16 product (gemm_bf16_avx512.cpp), behind gemm_bf16.cpp. Call
// only when cpu_has_bf16_dot(). Same contract as gemm_bf16 (gemm_bf16.h).
#include <cstdint>

namespace rotor::kernels {

// Packs op(A) and op(B) once (in parallel), then runs gemm's tiles
// (gemm_tiles.h) over the OpenMP threads.
void gemm_bf16_avx512(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                      const float* B, float beta, float* C);

// The same product as one block on the calling thread (one item of a batch
// whose items are dealt to the threads).
void gemm_bf16_avx512_one_thread(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha,
                                 const float* A, const float* B, float beta, float* C);

}  // namespace rotor::kernels
