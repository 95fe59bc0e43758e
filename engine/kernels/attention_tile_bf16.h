#pragma once
// bf16 tile products of the fused attention (Precision::bf16): bfloat16
// inputs, fp32 accumulation, computed as AVX-512 BF16's vdpbf16ps does,
//   C(i, j) += A(i, 2p+1) B(2p+1, j),  then  C(i, j) += A(i, 2p) B(2p, j)   for p = 0, 1, ...
// A product of two bf16 values is exact in fp32, so each step rounds once (to
// nearest even); denormal inputs read as 0 and denormal sums flush to 0 (the
// instruction's fixed DAZ/FTZ). The portable loop makes the same roundings in
// the same order, so on the same operands both paths give the same bits.
//
// Operands are words of two bf16, the even k in the low half:
//   A: word (i, p) at a.words[i * a.row_stride + p * a.pair_stride]
//      (row_stride 1 reads A^T from packed pairs of rows, as tile_matmul_at)
//   B: word (p, j) at B[p * ldb + j]  (pairs of rows of B side by side)
// K odd: the odd half of the last pair is never read, on either side.
#include <cstdint>

namespace rotor::kernels {

struct Bf16PairsA {
  const uint32_t* words;
  int64_t row_stride, pair_stride;
};

// C[M, N] (+)= A[M, K] B[K, N]: the AVX-512 BF16 kernel where the CPU has it
// (checked once at run time), the portable loop elsewhere.
void tile_matmul_bf16(int64_t M, int64_t N, int64_t K, Bf16PairsA A, const uint32_t* B, int64_t ldb, float* C,
                      int64_t ldc, bool accumulate);
void tile_matmul_bf16_portable(int64_t M, int64_t N, int64_t K, Bf16PairsA A, const uint32_t* B, int64_t ldb, float* C,
                               int64_t ldc, bool accumulate);

// Packing (to_bf16: round to nearest even; a denormal packs as a signed zero,
// as the AVX-512 BF16 conversion that packs where the CPU has it). Pairs along each row:
//   dst[r * ldd + p] = (src[r][2p], src[r][2p + 1]),  a zero odd half past `cols`.
void pack_row_pairs(const float* src, int64_t rows, int64_t cols, int64_t lds, uint32_t* dst, int64_t ldd);
// Pairs of rows: dst[p * ldd + c] = (src[2p][c], src[2p + 1][c]),  a zero odd half past `rows`.
void pack_column_pairs(const float* src, int64_t rows, int64_t cols, int64_t lds, uint32_t* dst, int64_t ldd);
// The same packs in plain C++ (the only ones on a CPU without AVX-512 BF16): same words.
void pack_row_pairs_portable(const float* src, int64_t rows, int64_t cols, int64_t lds, uint32_t* dst, int64_t ldd);
void pack_column_pairs_portable(const float* src, int64_t rows, int64_t cols, int64_t lds, uint32_t* dst, int64_t ldd);

}  // namespace rotor::kernels
