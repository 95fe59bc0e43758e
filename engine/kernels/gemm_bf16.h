#pragma once
// Matrix products of float buffers in bfloat16: the inputs are rounded to
// bf16 (round to nearest even) while they are packed, the products of bf16
// pairs are exact in fp32 and are summed in fp32. Same contract as
// kernels::gemm<float> (gemm.h): C = alpha * op(A) op(B) + beta * C, row-major,
// beta == 0 ignores C's contents, tiles and threading as gemm.cpp, so the
// result is bit-identical for any thread count.
//
// On CPUs with AVX-512 BF16 (cpu_has_bf16_dot) the product runs on the
// vdpbf16ps micro-kernel of gemm_bf16_avx512.cpp, with that instruction's
// semantics: fp32 denormal inputs and results count as zero. Elsewhere it is
// the portable path below.
#include <cstdint>

#include "engine/kernels/cpu_features.h"

namespace rotor::kernels {

void gemm_bf16(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A, const float* B,
               float beta, float* C);

// gemm_batched<float>'s twin: a stride of 0 shares an operand; sc == 0 sums
// every product into one C in batch order.
void gemm_batched_bf16(bool trans_a, bool trans_b, int64_t batch, int64_t M, int64_t N, int64_t K, float alpha,
                       const float* A, int64_t stride_a, const float* B, int64_t stride_b, float beta, float* C,
                       int64_t stride_c);

// The portable path, taken on CPUs without bf16 dot products (and public so
// tests can hold it against the native one): copies of A and B rounded to
// bf16, then kernels::gemm<float> on them (exact products, fp32 sums).
void gemm_bf16_rounded_fp32(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                            const float* B, float beta, float* C);
void gemm_batched_bf16_rounded_fp32(bool trans_a, bool trans_b, int64_t batch, int64_t M, int64_t N, int64_t K,
                                    float alpha, const float* A, int64_t stride_a, const float* B, int64_t stride_b,
                                    float beta, float* C, int64_t stride_c);

}  // namespace rotor::kernels
