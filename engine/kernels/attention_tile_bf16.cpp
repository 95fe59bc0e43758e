#include "engine/kernels/attention_tile_bf16.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "engine/bf16.h"
#include "engine/kernels/cpu_features.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define ROTOR_BF16_KERNEL 1
#include "engine/kernels/bf16_avx512.h"
#endif

namespace rotor::kernels {

namespace {

// A denormal packs as a signed zero, as AVX-512 BF16's conversion writes it
// (the products read denormals as zero either way, so no result depends on it).
bf16 packed_bf16(float x) { return std::fabs(x) < FLT_MIN ? to_bf16(std::copysign(0.0f, x)) : to_bf16(x); }
uint32_t bf16_pair(float even, float odd) { return packed_bf16(even) | static_cast<uint32_t>(packed_bf16(odd)) << 16; }

// vdpbf16ps's reading of a bf16 (denormals as zero) and its FTZ on sums.
float bf16_input(uint32_t half) { return from_bf16(static_cast<bf16>((half & 0x7f80u) ? half : half & 0x8000u)); }
float flush_denormal(float x) { return std::fabs(x) < FLT_MIN ? std::copysign(0.0f, x) : x; }

}  // namespace

void tile_matmul_bf16_portable(int64_t M, int64_t N, int64_t K, Bf16PairsA A, const uint32_t* B, int64_t ldb, float* C,
                               int64_t ldc, bool accumulate) {
  const int64_t pairs = (K + 1) / 2;
  for (int64_t i = 0; i < M; ++i) {
    float* c = C + i * ldc;
    for (int64_t j = 0; j < N; ++j) c[j] = accumulate ? flush_denormal(c[j]) : 0.0f;
    for (int64_t p = 0; p < pairs; ++p) {
      const uint32_t a = A.words[i * A.row_stride + p * A.pair_stride];
      const uint32_t odd_half = 2 * p + 1 < K ? 0xffff0000u : 0u;  // K odd: the last pair's odd half is unread
      const float a_odd = bf16_input((a & odd_half) >> 16), a_even = bf16_input(a & 0xffffu);
      const uint32_t* b = B + p * ldb;
      for (int64_t j = 0; j < N; ++j) {
        const float odd = flush_denormal(c[j] + a_odd * bf16_input((b[j] & odd_half) >> 16));
        c[j] = flush_denormal(odd + a_even * bf16_input(b[j] & 0xffffu));
      }
    }
  }
}

void pack_row_pairs_portable(const float* src, int64_t rows, int64_t cols, int64_t lds, uint32_t* dst, int64_t ldd) {
  const int64_t full = cols / 2;
  for (int64_t r = 0; r < rows; ++r) {
    const float* s = src + r * lds;
    uint32_t* d = dst + r * ldd;
    for (int64_t p = 0; p < full; ++p) d[p] = bf16_pair(s[2 * p], s[2 * p + 1]);
    if (cols % 2) d[full] = bf16_pair(s[cols - 1], 0.0f);
  }
}

void pack_column_pairs_portable(const float* src, int64_t rows, int64_t cols, int64_t lds, uint32_t* dst, int64_t ldd) {
  for (int64_t p = 0; p < rows / 2; ++p) {
    const float *even = src + 2 * p * lds, *odd = even + lds;
    uint32_t* d = dst + p * ldd;
    for (int64_t c = 0; c < cols; ++c) d[c] = bf16_pair(even[c], odd[c]);
  }
  if (rows % 2 == 0) return;
  const float* last = src + (rows - 1) * lds;
  uint32_t* d = dst + (rows / 2) * ldd;
  for (int64_t c = 0; c < cols; ++c) d[c] = bf16_pair(last[c], 0.0f);
}

#if defined(ROTOR_BF16_KERNEL)
namespace {

// One pair of k for R rows x V vectors of 16 columns. OddHalfOff: the last
// pair of an odd K, whose odd halves are cleared on both sides.
template <int R, int V, bool OddHalfOff>
ROTOR_BF16_TARGET __attribute__((always_inline)) inline void dot_pair(__m512 (&acc)[R][V], const uint32_t* a,
                                                                      int64_t row_stride, const uint32_t* b,
                                                                      __mmask16 last) {
  const uint32_t keep = OddHalfOff ? 0xffffu : 0xffffffffu;
  __m512i bv[V];
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) {
    bv[v] = _mm512_maskz_loadu_epi32(v == V - 1 ? last : __mmask16(0xFFFF), b + 16 * v);
    if (OddHalfOff) bv[v] = _mm512_and_si512(bv[v], _mm512_set1_epi32(static_cast<int>(keep)));
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    const __m512i av = _mm512_set1_epi32(static_cast<int>(a[r * row_stride] & keep));
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) acc[r][v] = _mm512_dpbf16_ps(acc[r][v], (__m512bh)av, (__m512bh)bv[v]);
  }
}

// R rows x V vectors held in registers across the whole K loop, as the fp32
// tile kernel (attention_tile.cpp) does; `last` masks the last vector's columns.
template <int R, int V>
ROTOR_BF16_TARGET void block_bf16(int64_t K, Bf16PairsA A, const uint32_t* B, int64_t ldb, float* C, int64_t ldc,
                                  __mmask16 last, bool accumulate) {
  __m512 acc[R][V];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      const __mmask16 m = v == V - 1 ? last : __mmask16(0xFFFF);
      acc[r][v] = accumulate ? _mm512_maskz_loadu_ps(m, C + r * ldc + 16 * v) : _mm512_setzero_ps();
    }
  const int64_t full = K / 2;
  for (int64_t p = 0; p < full; ++p)
    dot_pair<R, V, false>(acc, A.words + p * A.pair_stride, A.row_stride, B + p * ldb, last);
  if (K % 2) dot_pair<R, V, true>(acc, A.words + full * A.pair_stride, A.row_stride, B + full * ldb, last);
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v)
      _mm512_mask_storeu_ps(C + r * ldc + 16 * v, v == V - 1 ? last : __mmask16(0xFFFF), acc[r][v]);
}

template <int V>
ROTOR_BF16_TARGET void rows_bf16(int64_t M, int64_t K, Bf16PairsA A, const uint32_t* B, int64_t ldb, float* C,
                                 int64_t ldc, __mmask16 last, bool accumulate) {
  auto rows_from = [&](int64_t i) { return Bf16PairsA{A.words + i * A.row_stride, A.row_stride, A.pair_stride}; };
  int64_t i = 0;
  for (; i + 6 <= M; i += 6) block_bf16<6, V>(K, rows_from(i), B, ldb, C + i * ldc, ldc, last, accumulate);
  for (; i + 4 <= M; i += 4) block_bf16<4, V>(K, rows_from(i), B, ldb, C + i * ldc, ldc, last, accumulate);
  for (; i < M; ++i) block_bf16<1, V>(K, rows_from(i), B, ldb, C + i * ldc, ldc, last, accumulate);
}

ROTOR_BF16_TARGET void panels_bf16(int64_t M, int64_t N, int64_t K, Bf16PairsA A, const uint32_t* B, int64_t ldb,
                                   float* C, int64_t ldc, bool accumulate) {
  for (int64_t j0 = 0; j0 < N; j0 += 64) {  // column panels of up to four vectors
    const int64_t w = std::min<int64_t>(64, N - j0);
    const int64_t tail = w - 16 * ((w - 1) / 16);  // 1..16 columns in the last vector
    const __mmask16 last = static_cast<__mmask16>((1u << tail) - 1u);
    switch ((w + 15) / 16) {
      case 1:
        rows_bf16<1>(M, K, A, B + j0, ldb, C + j0, ldc, last, accumulate);
        break;
      case 2:
        rows_bf16<2>(M, K, A, B + j0, ldb, C + j0, ldc, last, accumulate);
        break;
      case 3:
        rows_bf16<3>(M, K, A, B + j0, ldb, C + j0, ldc, last, accumulate);
        break;
      default:
        rows_bf16<4>(M, K, A, B + j0, ldb, C + j0, ldc, last, accumulate);
        break;
    }
  }
}

// 32 floats of a row (zero past `cols`) convert, in order, to the 16 words of
// their pairs: vcvtne2ps2bf16 puts the first 16 in the low half.
ROTOR_BF16_TARGET void row_pairs_avx512(const float* src, int64_t rows, int64_t cols, int64_t lds, uint32_t* dst,
                                        int64_t ldd) {
  const int64_t words = (cols + 1) / 2;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; c += 32) {
      const float* s = src + r * lds + c;
      const __m512 lo = _mm512_maskz_loadu_ps(first_lanes16(cols - c), s);
      const __m512 hi = _mm512_maskz_loadu_ps(first_lanes16(cols - c - 16), s + 16);
      _mm512_mask_storeu_epi32(dst + r * ldd + c / 2, first_lanes16(words - c / 2),
                               reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(hi, lo)));
    }
}

// Two rows' 16 columns at a time.
ROTOR_BF16_TARGET void column_pairs_avx512(const float* src, int64_t rows, int64_t cols, int64_t lds, uint32_t* dst,
                                           int64_t ldd) {
  for (int64_t p = 0; p < (rows + 1) / 2; ++p) {
    const float *even = src + 2 * p * lds, *odd = even + lds;
    const bool has_odd = 2 * p + 1 < rows;
    for (int64_t c = 0; c < cols; c += 16) {
      const __mmask16 live = first_lanes16(cols - c);
      const __m512 e = _mm512_maskz_loadu_ps(live, even + c);
      const __m512 o = has_odd ? _mm512_maskz_loadu_ps(live, odd + c) : _mm512_setzero_ps();
      _mm512_mask_storeu_epi32(dst + p * ldd + c, live, bf16_pair_words(e, o));
    }
  }
}

}  // namespace

void tile_matmul_bf16(int64_t M, int64_t N, int64_t K, Bf16PairsA A, const uint32_t* B, int64_t ldb, float* C,
                      int64_t ldc, bool accumulate) {
  if (cpu_has_bf16_dot()) return panels_bf16(M, N, K, A, B, ldb, C, ldc, accumulate);
  tile_matmul_bf16_portable(M, N, K, A, B, ldb, C, ldc, accumulate);
}

void pack_row_pairs(const float* src, int64_t rows, int64_t cols, int64_t lds, uint32_t* dst, int64_t ldd) {
  if (cpu_has_bf16_dot()) return row_pairs_avx512(src, rows, cols, lds, dst, ldd);
  pack_row_pairs_portable(src, rows, cols, lds, dst, ldd);
}

void pack_column_pairs(const float* src, int64_t rows, int64_t cols, int64_t lds, uint32_t* dst, int64_t ldd) {
  if (cpu_has_bf16_dot()) return column_pairs_avx512(src, rows, cols, lds, dst, ldd);
  pack_column_pairs_portable(src, rows, cols, lds, dst, ldd);
}
#else

void tile_matmul_bf16(int64_t M, int64_t N, int64_t K, Bf16PairsA A, const uint32_t* B, int64_t ldb, float* C,
                      int64_t ldc, bool accumulate) {
  tile_matmul_bf16_portable(M, N, K, A, B, ldb, C, ldc, accumulate);
}

void pack_row_pairs(const float* src, int64_t rows, int64_t cols, int64_t lds, uint32_t* dst, int64_t ldd) {
  pack_row_pairs_portable(src, rows, cols, lds, dst, ldd);
}

void pack_column_pairs(const float* src, int64_t rows, int64_t cols, int64_t lds, uint32_t* dst, int64_t ldd) {
  pack_column_pairs_portable(src, rows, cols, lds, dst, ldd);
}
#endif

}  // namespace rotor::kernels
