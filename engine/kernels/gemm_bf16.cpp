#include "engine/kernels/gemm_bf16.h"

#include <cstdint>
#include <vector>

#include "engine/bf16.h"
#include "engine/kernels/gemm.h"
#include "engine/kernels/gemm_bf16_avx512.h"
#include "engine/kernels/gemm_tiles.h"
#include "engine/parallel.h"

namespace rotor::kernels {
namespace {

// `count` floats of x rounded to bf16 (as floats), in dst.
void round_into(const float* x, int64_t count, float* dst) {
  parallel_for(count, kElementwiseGrain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) dst[i] = round_to_bf16(x[i]);
  });
}

// The `batch` operands of `size` floats at x + i * stride, rounded to bf16 and
// packed at stride `size` (one copy when the operand is shared, stride 0).
std::vector<float> rounded_operands(const float* x, int64_t batch, int64_t stride, int64_t size) {
  const int64_t copies = stride == 0 ? 1 : batch;
  std::vector<float> out(static_cast<size_t>(copies * size));
  for (int64_t i = 0; i < copies; ++i) round_into(x + i * stride, size, out.data() + i * size);
  return out;
}

}  // namespace

void gemm_bf16(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, const float* B,
               float beta, float* C) {
  if (!cpu_has_bf16_dot()) {
    gemm_bf16_rounded_fp32(ta, tb, M, N, K, alpha, A, B, beta, C);
    return;
  }
  gemm_bf16_avx512(ta, tb, M, N, K, alpha, A, B, beta, C);
}

void gemm_batched_bf16(bool ta, bool tb, int64_t batch, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                       int64_t sa, const float* B, int64_t sb, float beta, float* C, int64_t sc) {
  if (!cpu_has_bf16_dot()) {
    gemm_batched_bf16_rounded_fp32(ta, tb, batch, M, N, K, alpha, A, sa, B, sb, beta, C, sc);
    return;
  }
  if (M == 0 || N == 0) return;
  for_each_gemm_in_batch(
      batch, M, N, K, beta, sc,
      [&](int64_t i, float beta_i) { gemm_bf16(ta, tb, M, N, K, alpha, A + i * sa, B + i * sb, beta_i, C + i * sc); },
      [&](int64_t i) {
        gemm_bf16_avx512_one_thread(ta, tb, M, N, K, alpha, A + i * sa, B + i * sb, beta, C + i * sc);
      });
}

void gemm_bf16_rounded_fp32(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                            const float* B, float beta, float* C) {
  gemm_batched_bf16_rounded_fp32(ta, tb, 1, M, N, K, alpha, A, 0, B, 0, beta, C, 0);
}

void gemm_batched_bf16_rounded_fp32(bool ta, bool tb, int64_t batch, int64_t M, int64_t N, int64_t K, float alpha,
                                    const float* A, int64_t sa, const float* B, int64_t sb, float beta, float* C,
                                    int64_t sc) {
  if (batch <= 0 || M == 0 || N == 0) return;
  const std::vector<float> a = rounded_operands(A, batch, sa, M * K);
  const std::vector<float> b = rounded_operands(B, batch, sb, K * N);
  gemm_batched<float>(ta, tb, batch, M, N, K, alpha, a.data(), sa == 0 ? 0 : M * K, b.data(), sb == 0 ? 0 : K * N, beta,
                      C, sc);
}

}  // namespace rotor::kernels
