#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/kernels/gemm_bf16_block.h"

// The bf16 block product on AVX-512 BF16. Every function that uses the
// instructions carries the target attribute, so the rest of the build stays
// portable; gemm_bf16.cpp calls in only when the CPU has them.
//
// Operands are packed as panels of bf16 k-pairs: one 32-bit word holds
// (x[k], x[k+1]) for an even k, low half first, as vdpbf16ps pairs them. A B
// panel holds 32 columns per pair (two vectors), an A panel 8 rows per pair
// (broadcast one word at a time). The 8x32 micro-kernel keeps 16 fp32
// accumulators; each element's sum runs over k in ascending pairs, across K
// blocks through a workspace, so it does not depend on the block's position:
// tiles are independent and thread-count independent.
#define ROTOR_BF16_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))

namespace rotor::kernels {
namespace {

constexpr int64_t kRows = 8;        // micro-tile rows (A panel width)
constexpr int64_t kCols = 32;       // micro-tile columns (B panel width)
constexpr int64_t kDepth = 256;     // k per packed block: a B micro-panel (16 KiB) stays in L1
constexpr int64_t kRowBlock = 128;  // rows per packed A block (64 KiB, in L2)
constexpr int64_t kColBlock = 512;  // columns per packed B block (256 KiB, in L2)

// Element (k, j) of an operand view at x[k * sk + j * sj].
struct OperandView {
  const float* x;
  int64_t sk, sj;
};

// Words (x[k0+2p][j], x[k0+2p+1][j]) for pairs p < (kc+1)/2 and columns j0+j,
// j < width, stored at dst[p * width + j]; zero past `cols` columns and past k0+kc.
ROTOR_BF16_TARGET void pack_pairs(OperandView v, int64_t k0, int64_t kc, int64_t j0, int64_t cols, int64_t width,
                                  uint32_t* dst) {
  const int64_t pairs = (kc + 1) / 2;
  if (v.sj == 1) {  // rows contiguous: convert two rows, interleave their halves
    const __m512i interleave = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8, 23, 7, 22,
                                                6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    for (int64_t p = 0; p < pairs; ++p) {
      const float* r0 = v.x + (k0 + 2 * p) * v.sk + j0;
      const bool odd_tail = 2 * p + 1 >= kc;
      for (int64_t j = 0; j < width; j += 16) {
        const int64_t live = std::clamp<int64_t>(cols - j, 0, 16);
        const __mmask16 mask = static_cast<__mmask16>((1u << live) - 1);
        const __m512 lo = _mm512_maskz_loadu_ps(mask, r0 + j);
        const __m512 hi = odd_tail ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(mask, r0 + v.sk + j);
        const __m512i w = _mm512_permutexvar_epi16(interleave, reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(hi, lo)));
        const int64_t room = std::min<int64_t>(16, width - j);  // 8 for an A panel
        _mm512_mask_storeu_epi32(dst + p * width + j, static_cast<__mmask16>((1u << room) - 1), w);
      }
    }
    return;
  }
  // k contiguous (sk == 1): a column's bf16 values are already its pairs.
  alignas(64) uint32_t words[16];
  for (int64_t j = 0; j < width; ++j) {
    if (j >= cols) {
      for (int64_t p = 0; p < pairs; ++p) dst[p * width + j] = 0;
      continue;
    }
    const float* col = v.x + (j0 + j) * v.sj + k0;
    for (int64_t p = 0; p < pairs; p += 16) {
      const int64_t left = kc - 2 * p;
      const __mmask16 lo_mask = static_cast<__mmask16>(left >= 16 ? 0xffff : (1u << left) - 1);
      const __mmask16 hi_mask = static_cast<__mmask16>(left >= 32 ? 0xffff : left <= 16 ? 0 : (1u << (left - 16)) - 1);
      const __m512 lo = _mm512_maskz_loadu_ps(lo_mask, col + 2 * p);
      const __m512 hi = _mm512_maskz_loadu_ps(hi_mask, col + 2 * p + 16);
      _mm512_store_si512(words, reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(hi, lo)));
      const int64_t n = std::min<int64_t>(16, pairs - p);
      for (int64_t q = 0; q < n; ++q) dst[(p + q) * width + j] = words[q];
    }
  }
}

// Where a micro-tile's sums go: the workspace between K blocks, C after the last.
struct MicroTileOut {
  float* c;
  int64_t ldc;
  float* ws;  // partial sums, row stride kColBlock
  int64_t rows;
  __mmask16 mask[2];  // live columns of each 16-column half
  bool first, last;
  float alpha, beta;
};

ROTOR_BF16_TARGET void micro_tile(int64_t pairs, const uint32_t* a, const uint32_t* b, const MicroTileOut& out) {
  __m512 acc[kRows][2];
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r)
    for (int h = 0; h < 2; ++h)
      acc[r][h] = out.first ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(out.mask[h], out.ws + r * kColBlock + 16 * h);
  for (int64_t p = 0; p < pairs; ++p) {
    const __m512bh b0 = reinterpret_cast<__m512bh>(_mm512_loadu_si512(b + p * kCols));
    const __m512bh b1 = reinterpret_cast<__m512bh>(_mm512_loadu_si512(b + p * kCols + 16));
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      const __m512bh ar = reinterpret_cast<__m512bh>(_mm512_set1_epi32(static_cast<int>(a[p * kRows + r])));
      acc[r][0] = _mm512_dpbf16_ps(acc[r][0], ar, b0);
      acc[r][1] = _mm512_dpbf16_ps(acc[r][1], ar, b1);
    }
  }
  const __m512 alpha = _mm512_set1_ps(out.alpha), beta = _mm512_set1_ps(out.beta);
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
    if (r >= out.rows) break;
    for (int h = 0; h < 2; ++h) {
      if (!out.last) {
        _mm512_mask_storeu_ps(out.ws + r * kColBlock + 16 * h, out.mask[h], acc[r][h]);
        continue;
      }
      float* c = out.c + r * out.ldc + 16 * h;
      __m512 v = _mm512_mul_ps(alpha, acc[r][h]);
      if (out.beta != 0.f) v = _mm512_fmadd_ps(beta, _mm512_maskz_loadu_ps(out.mask[h], c), v);
      _mm512_mask_storeu_ps(c, out.mask[h], v);
    }
  }
}

__mmask16 live_columns(int64_t cols) {
  return static_cast<__mmask16>(cols >= 16 ? 0xffff : cols <= 0 ? 0 : (1u << cols) - 1);
}

struct PackedBlocks {
  std::vector<uint32_t> a, b;
  std::vector<float> ws;
};

// The block's [m, n] product, C at c (row stride ldc), B's columns from col0.
ROTOR_BF16_TARGET void block_product(OperandView a_op, OperandView b_op, int64_t K, int64_t m, int64_t n, float alpha,
                                     float beta, float* c, int64_t ldc) {
  thread_local PackedBlocks buf;  // kept per thread: steady-state calls allocate nothing
  const int64_t pairs_max = kDepth / 2;
  buf.a.resize(static_cast<size_t>(((kRowBlock + kRows - 1) / kRows) * kRows * pairs_max));
  buf.b.resize(static_cast<size_t>(kColBlock * pairs_max));
  if (K > kDepth) buf.ws.resize(static_cast<size_t>(((m + kRows - 1) / kRows) * kRows * kColBlock));
  for (int64_t jc = 0; jc < n; jc += kColBlock) {
    const int64_t nc = std::min(kColBlock, n - jc);
    for (int64_t pc = 0; pc < K; pc += kDepth) {
      const int64_t kc = std::min(kDepth, K - pc), pairs = (kc + 1) / 2;
      for (int64_t jr = 0; jr < nc; jr += kCols)
        pack_pairs(b_op, pc, kc, jc + jr, std::min(kCols, nc - jr), kCols, buf.b.data() + jr * pairs);
      for (int64_t ic = 0; ic < m; ic += kRowBlock) {
        const int64_t mc = std::min(kRowBlock, m - ic);
        for (int64_t ir = 0; ir < mc; ir += kRows)
          pack_pairs(a_op, pc, kc, ic + ir, std::min(kRows, mc - ir), kRows, buf.a.data() + ir * pairs);
        for (int64_t jr = 0; jr < nc; jr += kCols) {
          for (int64_t ir = 0; ir < mc; ir += kRows) {
            MicroTileOut out{c + (ic + ir) * ldc + jc + jr,
                             ldc,
                             K > kDepth ? buf.ws.data() + (ic + ir) * kColBlock + jr : nullptr,
                             std::min(kRows, mc - ir),
                             {live_columns(nc - jr), live_columns(nc - jr - 16)},
                             pc == 0,
                             pc + kc == K,
                             alpha,
                             beta};
            micro_tile(pairs, buf.a.data() + ir * pairs, buf.b.data() + jr * pairs, out);
          }
        }
      }
    }
  }
}

}  // namespace

void gemm_bf16_block_avx512(bool ta, bool tb, int64_t M, int64_t N, int64_t K, int64_t row0, int64_t m, int64_t col0,
                            int64_t n, float alpha, const float* A, const float* B, float beta, float* C) {
  float* c = C + row0 * N + col0;
  if (K == 0 || alpha == 0.f) {  // as BLAS: op(A) op(B) is not formed, C = beta * C
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * N + j] = beta == 0.f ? 0.f : beta * c[i * N + j];
    return;
  }
  // op(A) as rows i of a [K x M] view, op(B) as columns j of a [K x N] view.
  const OperandView a_op = ta ? OperandView{A + row0, M, 1} : OperandView{A + row0 * K, 1, K};
  const OperandView b_op = tb ? OperandView{B + col0 * K, 1, K} : OperandView{B + col0, N, 1};
  block_product(a_op, b_op, K, m, n, alpha, beta, c, N);
}

}  // namespace rotor::kernels
