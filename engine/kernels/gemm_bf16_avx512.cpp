#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/kernels/bf16_avx512.h"
#include "engine/kernels/gemm_bf16_avx512.h"
#include "engine/kernels/gemm_tiles.h"
#include "engine/parallel.h"

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

namespace rotor::kernels {
namespace {

constexpr int64_t kRows = 8;        // micro-tile rows (A panel width)
constexpr int64_t kCols = 32;       // micro-tile columns (B panel width)
constexpr int64_t kDepth = 1024;    // k per packed block: every K <= 1024 is one block (no partial sums)
constexpr int64_t kRowBlock = 128;  // rows of A per pass over a B block (up to 256 KiB of pairs)
constexpr int64_t kColBlock = 512;  // columns per B block (up to 1 MiB of pairs, read once per 8-row A panel)

// Element (k, j) of an operand view at x[k * sk + j * sj].
struct OperandView {
  const float* x;
  int64_t sk, sj;
};

// Words (x[k0+2p][j0+j], x[k0+2p+1][j0+j]) for pairs p < (kc+1)/2 and columns
// j < cols rounded up to `width`, as panels of `width` columns: column j at
// dst[(j / width) * width * pairs + p * width + j % width]; zero past `cols`
// and past k0+kc. Memory is read in its own order, row after row.
ROTOR_BF16_TARGET void pack_pairs(OperandView v, int64_t k0, int64_t kc, int64_t j0, int64_t cols, int64_t width,
                                  uint32_t* dst) {
  const int64_t pairs = (kc + 1) / 2, span = (cols + width - 1) / width * width;
  auto at = [&](int64_t p, int64_t j) { return dst + (j / width) * width * pairs + p * width + j % width; };
  if (v.sj == 1) {                            // rows contiguous: convert two rows, interleave their halves
    for (int64_t j = 0; j < span; j += 16) {  // 16 columns (a 64-byte line of a row) at a time
      const __mmask16 live = first_lanes16(cols - j);
      // Lanes 8..15 go to column j + 8, in the next panel when panels are 8 wide.
      const __mmask16 lo = first_lanes16(std::min<int64_t>(8, span - j)), hi = first_lanes16(span - j) & 0xff00;
      // Where pair 0 of each half goes (hoisted: at() divides); pair p is p * width words further.
      const int64_t lo_at = at(0, j) - dst, hi_at = hi ? at(0, j + 8) - 8 - dst : 0;
      for (int64_t p = 0; p < pairs; ++p) {
        const float* r0 = v.x + (k0 + 2 * p) * v.sk + j0 + j;
        const __m512 even = _mm512_maskz_loadu_ps(live, r0);
        const __m512 odd = 2 * p + 1 >= kc ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(live, r0 + v.sk);
        const __m512i w = bf16_pair_words(even, odd);
        _mm512_mask_storeu_epi32(dst + lo_at + p * width, lo, w);
        if (hi) _mm512_mask_storeu_epi32(dst + hi_at + p * width, hi, w);
      }
    }
    return;
  }
  // k contiguous (sk == 1): a column's bf16 values are already its pairs.
  alignas(64) uint32_t words[16];
  for (int64_t j = 0; j < span; ++j) {
    if (j >= cols) {
      for (int64_t p = 0; p < pairs; ++p) *at(p, j) = 0;
      continue;
    }
    const float* col = v.x + (j0 + j) * v.sj + k0;
    uint32_t* column = at(0, j);  // pair p is p * width words further
    for (int64_t p = 0; p < pairs; p += 16) {
      const int64_t left = kc - 2 * p;
      const __m512 lo = _mm512_maskz_loadu_ps(first_lanes16(left), col + 2 * p);
      const __m512 hi = _mm512_maskz_loadu_ps(first_lanes16(left - 16), col + 2 * p + 16);
      _mm512_store_si512(words, reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(hi, lo)));
      const int64_t n = std::min<int64_t>(16, pairs - p);
      for (int64_t q = 0; q < n; ++q) column[(p + q) * width] = words[q];
    }
  }
}

// Where a micro-tile's sums go: the workspace between K blocks, C after the last.
struct MicroTileOut {
  float* c;
  int64_t ldc;
  float* ws;  // partial sums, the micro-tile's own kRows x kCols floats
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
      acc[r][h] = out.first ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(out.mask[h], out.ws + r * kCols + 16 * h);
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
        _mm512_mask_storeu_ps(out.ws + r * kCols + 16 * h, out.mask[h], acc[r][h]);
        continue;
      }
      float* c = out.c + r * out.ldc + 16 * h;
      __m512 v = _mm512_mul_ps(alpha, acc[r][h]);
      if (out.beta != 0.f) v = _mm512_fmadd_ps(beta, _mm512_maskz_loadu_ps(out.mask[h], c), v);
      _mm512_mask_storeu_ps(c, out.mask[h], v);
    }
  }
}

// One operand of the product, op(X) as a [K x cols] view, cut into panels of
// `width` columns. The operand that every tile uses is packed once, ahead
// (`packed`: the K block at pc starts at word padded * pc / 2, each panel
// `width * pairs` words); a tile's own operand is packed block by block as the
// tile reaches it, so it is still in cache when used.
struct Operand {
  OperandView view;
  int64_t cols, width;
  const uint32_t* packed = nullptr;
};

int64_t padded(const Operand& op) { return (op.cols + op.width - 1) / op.width * op.width; }

// Panels of columns j0..j0+cols of the K block at pc: from the packed operand,
// or packed now into `scratch`.
const uint32_t* block_panels(const Operand& op, int64_t K, int64_t pc, int64_t j0, int64_t cols,
                             std::vector<uint32_t>& scratch) {
  const int64_t kc = std::min(kDepth, K - pc), pairs = (kc + 1) / 2;
  if (op.packed) return op.packed + padded(op) * pc / 2 + j0 * pairs;
  scratch.resize(static_cast<size_t>((cols + op.width - 1) / op.width * op.width * pairs));
  pack_pairs(op.view, pc, kc, j0, cols, op.width, scratch.data());
  return scratch.data();
}

// Every panel of every K block of `op` into dst, over the OpenMP threads. A
// view with k contiguous is read panel by panel (each row streams through all
// of K), one with columns contiguous block by block.
void pack_ahead(Operand& op, int64_t K, std::vector<uint32_t>& dst) {
  const int64_t panels = (op.cols + op.width - 1) / op.width, blocks = (K + kDepth - 1) / kDepth;
  dst.resize(static_cast<size_t>(padded(op) * ((K + 1) / 2)));
  const bool panel_major = op.view.sk == 1;
  parallel_for(panels * blocks, grain_for(op.width * kDepth * 4), [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t panel = panel_major ? t / blocks : t % panels,
                    pc = (panel_major ? t % blocks : t / panels) * kDepth;
      const int64_t kc = std::min(kDepth, K - pc), j0 = panel * op.width;
      pack_pairs(op.view, pc, kc, j0, std::min(op.width, op.cols - j0), op.width,
                 dst.data() + padded(op) * pc / 2 + j0 * ((kc + 1) / 2));
    }
  });
  op.packed = dst.data();
}

// C's [m, n] block at (row0, col0), C's row stride ldc.
ROTOR_BF16_TARGET void block_product(const Operand& a_op, const Operand& b_op, int64_t K, int64_t row0, int64_t m,
                                     int64_t col0, int64_t n, float alpha, float beta, float* C, int64_t ldc) {
  // Kept per thread, so a steady state allocates nothing: partial sums between K blocks, the tile's own panels.
  thread_local std::vector<float> ws;
  thread_local std::vector<uint32_t> a_scratch, b_scratch;
  if (K > kDepth) ws.resize(static_cast<size_t>((m + kRows - 1) / kRows * kRows * kColBlock));
  for (int64_t jc = 0; jc < n; jc += kColBlock) {
    const int64_t nc = std::min(kColBlock, n - jc);
    for (int64_t pc = 0; pc < K; pc += kDepth) {
      const int64_t kc = std::min(kDepth, K - pc), pairs = (kc + 1) / 2;
      const uint32_t* b = block_panels(b_op, K, pc, col0 + jc, nc, b_scratch);
      for (int64_t ic = 0; ic < m; ic += kRowBlock) {
        const int64_t mc = std::min(kRowBlock, m - ic);
        const uint32_t* a = block_panels(a_op, K, pc, row0 + ic, mc, a_scratch);
        for (int64_t ir = 0; ir < mc; ir += kRows) {
          for (int64_t jr = 0; jr < nc; jr += kCols) {
            MicroTileOut out{C + (row0 + ic + ir) * ldc + col0 + jc + jr,
                             ldc,
                             K > kDepth ? ws.data() + (ic + ir) * kColBlock + jr * kRows : nullptr,
                             std::min(kRows, mc - ir),
                             {first_lanes16(nc - jr), first_lanes16(nc - jr - 16)},
                             pc == 0,
                             pc + kc == K,
                             alpha,
                             beta};
            micro_tile(pairs, a + ir * pairs, b + jr * pairs, out);
          }
        }
      }
    }
  }
}

void scale_c(int64_t M, int64_t N, float beta, float* C) {  // as BLAS when K == 0 or alpha == 0
  for (int64_t i = 0; i < M * N; ++i) C[i] = beta == 0.f ? 0.f : beta * C[i];
}

// op(A) as rows of a [K x M] view, op(B) as columns of a [K x N] view.
Operand operand_a(bool ta, int64_t M, int64_t K, const float* A) {
  return {ta ? OperandView{A, M, 1} : OperandView{A, 1, K}, M, kRows};
}
Operand operand_b(bool tb, int64_t N, int64_t K, const float* B) {
  return {tb ? OperandView{B, 1, K} : OperandView{B, N, 1}, N, kCols};
}

static_assert(kGemmTile % kCols == 0 && kGemmTile % kRows == 0, "tiles start on panel boundaries");

}  // namespace

void gemm_bf16_avx512(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, const float* B,
                      float beta, float* C) {
  if (M == 0 || N == 0) return;
  if (K == 0 || alpha == 0.f) return scale_c(M, N, beta, C);
  Operand a = operand_a(ta, M, K, A), b = operand_b(tb, N, K, B);
  thread_local std::vector<uint32_t> shared_panels;  // the caller's, kept between calls
  const GemmTiling tiling = gemm_tiling(M, N, K);
  if (tiling == GemmTiling::rows) pack_ahead(b, K, shared_panels);  // every row tile reads all of B
  if (tiling == GemmTiling::columns) pack_ahead(a, K, shared_panels);
  for_each_gemm_tile(M, N, K, [&](int64_t r0, int64_t m, int64_t c0, int64_t n) {
    block_product(a, b, K, r0, m, c0, n, alpha, beta, C, N);
  });
}

void gemm_bf16_avx512_one_thread(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                                 const float* B, float beta, float* C) {
  if (M == 0 || N == 0) return;
  if (K == 0 || alpha == 0.f) return scale_c(M, N, beta, C);
  block_product(operand_a(ta, M, K, A), operand_b(tb, N, K, B), K, 0, M, 0, N, alpha, beta, C, N);
}

}  // namespace rotor::kernels
