#include "engine/kernels/attention_tile.h"

#include <algorithm>
#include <cmath>
#include <limits>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

namespace rotor::kernels {

namespace {

// A(i, k) = A[i * row_stride + k * k_stride]: both layouts of A in one loop.
template <class T>
void portable_product(int64_t M, int64_t N, int64_t K, const T* A, int64_t row_stride, int64_t k_stride, const T* B,
                      int64_t ldb, T* C, int64_t ldc, bool accumulate) {
  for (int64_t i = 0; i < M; ++i) {
    T* c = C + i * ldc;
    if (!accumulate) std::fill(c, c + N, T(0));
    for (int64_t k = 0; k < K; ++k) {
      const T a = A[i * row_stride + k * k_stride];
      const T* b = B + k * ldb;
      for (int64_t j = 0; j < N; ++j) c[j] += a * b[j];
    }
  }
}

}  // namespace

template <class T>
void tile_matmul_portable(int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, const T* B, int64_t ldb, T* C,
                          int64_t ldc, bool accumulate) {
  portable_product(M, N, K, A, lda, 1, B, ldb, C, ldc, accumulate);
}

template <class T>
void tile_matmul_at_portable(int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, const T* B, int64_t ldb, T* C,
                             int64_t ldc, bool accumulate) {
  portable_product(M, N, K, A, 1, lda, B, ldb, C, ldc, accumulate);
}

// The primary templates are the portable code; float gets the register-tiled
// specialisations below when the compiler targets AVX-512 or AVX2 with FMA.
template <class T>
void tile_matmul(int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, const T* B, int64_t ldb, T* C, int64_t ldc,
                 bool accumulate) {
  tile_matmul_portable<T>(M, N, K, A, lda, B, ldb, C, ldc, accumulate);
}

template <class T>
void tile_matmul_at(int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, const T* B, int64_t ldb, T* C,
                    int64_t ldc, bool accumulate) {
  tile_matmul_at_portable<T>(M, N, K, A, lda, B, ldb, C, ldc, accumulate);
}

template <class T>
T row_max(const T* x, int64_t n) {
  T m = -std::numeric_limits<T>::infinity();
  for (int64_t c = 0; c < n; ++c) m = std::max(m, x[c]);
  return m;
}

template <class T>
T exp_shifted(T* x, int64_t n, T shift) {
  T sum = T(0);
  for (int64_t c = 0; c < n; ++c) sum += (x[c] = std::exp(x[c] - shift));
  return sum;
}

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
namespace {

#if defined(__AVX512F__)
constexpr __mmask16 kAll = 0xFFFF;

inline __mmask16 first_lanes(int64_t count) {
  return count >= 16 ? __mmask16(0xFFFF) : static_cast<__mmask16>((1u << count) - 1u);
}

// 16 floats in a zmm; products in tiles of 6 rows x 4 vectors (24 accumulators
// + 4 B vectors + 1 broadcast of 32 registers; 6 rows measured 1.5x faster
// than 4, bench/README.md).
struct Lanes {
  using Reg = __m512;
  using Mask = __mmask16;
  static constexpr int kWidth = 16, kRows = 6, kVectors = 4;
  static Mask first(int64_t count) { return first_lanes(count); }
  static Mask all() { return kAll; }
  static Reg zero() { return _mm512_setzero_ps(); }
  static Reg broadcast(float a) { return _mm512_set1_ps(a); }
  static Reg load(Mask m, const float* p) { return _mm512_maskz_loadu_ps(m, p); }
  static void store(float* p, Mask m, Reg v) { _mm512_mask_storeu_ps(p, m, v); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm512_fmadd_ps(a, b, c); }
};
#else
// 8 floats in a ymm, for CPUs without AVX-512: tiles of 6 rows x 2 vectors (12
// accumulators + 2 B vectors + 1 broadcast of 16 registers). Each output is the
// portable loop's chain of fused multiply-adds in k order: the same bits.
struct Lanes {
  using Reg = __m256;
  using Mask = __m256i;
  static constexpr int kWidth = 8, kRows = 6, kVectors = 2;
  static Mask first(int64_t count) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(std::min<int64_t>(count, 8))), lane);
  }
  static Mask all() { return _mm256_set1_epi32(-1); }
  static Reg zero() { return _mm256_setzero_ps(); }
  static Reg broadcast(float a) { return _mm256_set1_ps(a); }
  static Reg load(Mask m, const float* p) { return _mm256_maskload_ps(p, m); }
  static void store(float* p, Mask m, Reg v) { _mm256_maskstore_ps(p, m, v); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm256_fmadd_ps(a, b, c); }
};
#endif

// exp(x) = 2^k exp(r), x = k ln2 + r with |r| <= ln2 / 2 (ln2 in two parts),
// exp(r) by Cephes's expf polynomial: within 2 ulp of std::exp. One set of
// constants for every vector width, so each width computes the same values.
constexpr float kLog2e = 1.44269504088896341f, kLn2High = 0.693359375f, kLn2Low = -2.12194440e-4f;
constexpr float kExpPoly[6] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                               4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};
constexpr float kExpLow = -104.0f, kExpHigh = 88.7f;  // exp is 0 in float below, inf above

#if defined(__AVX512F__)
// Folds the 16 lanes left to right.
template <class F>
inline float lanes_in_order(__m512 v, F f) {
  alignas(64) float lane[16];
  _mm512_store_ps(lane, v);
  float r = lane[0];
  for (int i = 1; i < 16; ++i) r = f(r, lane[i]);
  return r;
}

// exp on 16 lanes: x = k ln2 + r with |r| <= ln2 / 2, exp(r) by Cephes's expf
// polynomial, times 2^k by scalef (which also flushes tiny results to 0).
inline __m512 exp_avx512(__m512 x) {
  // maskz_ forms throughout: GCC 12 warns on the plain forms' undefined-vector idiom.
  x = _mm512_maskz_max_ps(kAll, _mm512_set1_ps(kExpLow), x);  // NaN stays NaN (second operand)
  x = _mm512_maskz_min_ps(kAll, _mm512_set1_ps(kExpHigh), x);
  const __m512 k = _mm512_maskz_roundscale_ps(kAll, _mm512_mul_ps(x, _mm512_set1_ps(kLog2e)),
                                              _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(kLn2High), x);
  r = _mm512_fnmadd_ps(k, _mm512_set1_ps(kLn2Low), r);
  __m512 p = _mm512_set1_ps(kExpPoly[0]);
  for (int i = 1; i < 6; ++i) p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kExpPoly[i]));
  p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  return _mm512_maskz_scalef_ps(kAll, p, k);
}
#else
// Folds the 8 lanes left to right.
template <class F>
inline float lanes_in_order(__m256 v, F f) {
  alignas(32) float lane[8];
  _mm256_store_ps(lane, v);
  float r = lane[0];
  for (int i = 1; i < 8; ++i) r = f(r, lane[i]);
  return r;
}

// p 2^k for integral k in [-150, 128]: two normal powers of two, so p 2^k is
// rounded once, as AVX-512's scalef rounds it (tiny results too).
inline __m256 times_power_of_two(__m256 p, __m256 k) {
  const __m256i whole = _mm256_cvtps_epi32(k);
  const __m256i half = _mm256_srai_epi32(whole, 1);
  const auto power = [](__m256i e) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(e, _mm256_set1_epi32(127)), 23));
  };
  return _mm256_mul_ps(_mm256_mul_ps(p, power(half)), power(_mm256_sub_epi32(whole, half)));
}

// exp on 8 lanes: the AVX-512 form's operations, one for one.
inline __m256 exp_avx2(__m256 x) {
  x = _mm256_max_ps(_mm256_set1_ps(kExpLow), x);  // NaN stays NaN (second operand)
  x = _mm256_min_ps(_mm256_set1_ps(kExpHigh), x);
  const __m256 k =
      _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(kLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(k, _mm256_set1_ps(kLn2High), x);
  r = _mm256_fnmadd_ps(k, _mm256_set1_ps(kLn2Low), r);
  __m256 p = _mm256_set1_ps(kExpPoly[0]);
  for (int i = 1; i < 6; ++i) p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kExpPoly[i]));
  p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  return times_power_of_two(p, k);
}
#endif

// R rows x V vectors of Lanes::kWidth columns held in registers across the
// whole K loop. `last` limits the last vector to the columns that exist.
// A(r, k) is A[r * lda + k], or A[k * lda + r] when `TransposedA`.
template <int R, int V, bool TransposedA>
inline void block_tile(int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb, float* C, int64_t ldc,
                       Lanes::Mask last, bool accumulate) {
  constexpr int W = Lanes::kWidth;
  // Every loop over R and V is unrolled so that GCC keeps acc[][] in
  // registers (otherwise it spills the accumulators on every k).
  Lanes::Reg acc[R][V];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v)
      acc[r][v] = accumulate ? Lanes::load(v == V - 1 ? last : Lanes::all(), C + r * ldc + W * v) : Lanes::zero();
  for (int64_t k = 0; k < K; ++k) {
    Lanes::Reg b[V];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) b[v] = Lanes::load(v == V - 1 ? last : Lanes::all(), B + k * ldb + W * v);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const Lanes::Reg a = Lanes::broadcast(TransposedA ? A[k * lda + r] : A[r * lda + k]);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) acc[r][v] = Lanes::fma(a, b[v], acc[r][v]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) Lanes::store(C + r * ldc + W * v, v == V - 1 ? last : Lanes::all(), acc[r][v]);
}

template <int V, bool TransposedA>
void rows_tile(int64_t M, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb, float* C, int64_t ldc,
               Lanes::Mask last, bool accumulate) {
  const int64_t row_step = TransposedA ? 1 : lda;  // from row i of A to row i + 1
  int64_t i = 0;
  for (; i + Lanes::kRows <= M; i += Lanes::kRows)
    block_tile<Lanes::kRows, V, TransposedA>(K, A + i * row_step, lda, B, ldb, C + i * ldc, ldc, last, accumulate);
  for (; i + 4 <= M; i += 4)
    block_tile<4, V, TransposedA>(K, A + i * row_step, lda, B, ldb, C + i * ldc, ldc, last, accumulate);
  for (; i < M; ++i)
    block_tile<1, V, TransposedA>(K, A + i * row_step, lda, B, ldb, C + i * ldc, ldc, last, accumulate);
}

template <bool TransposedA>
void panels_tile(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb, float* C,
                 int64_t ldc, bool accumulate) {
  constexpr int W = Lanes::kWidth, panel = W * Lanes::kVectors;
  for (int64_t j0 = 0; j0 < N; j0 += panel) {  // column panels of up to kVectors vectors
    const int64_t w = std::min<int64_t>(panel, N - j0);
    const Lanes::Mask last = Lanes::first(w - W * ((w - 1) / W));  // 1..W columns in the last vector
    const float* b = B + j0;
    float* c = C + j0;
    switch ((w + W - 1) / W) {
      case 1:
        rows_tile<1, TransposedA>(M, K, A, lda, b, ldb, c, ldc, last, accumulate);
        break;
      case 2:
        rows_tile<2, TransposedA>(M, K, A, lda, b, ldb, c, ldc, last, accumulate);
        break;
#if defined(__AVX512F__)
      case 3:
        rows_tile<3, TransposedA>(M, K, A, lda, b, ldb, c, ldc, last, accumulate);
        break;
      default:
        rows_tile<4, TransposedA>(M, K, A, lda, b, ldb, c, ldc, last, accumulate);
        break;
#endif
    }
  }
}

}  // namespace

template <>
void tile_matmul<float>(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb,
                        float* C, int64_t ldc, bool accumulate) {
  panels_tile<false>(M, N, K, A, lda, B, ldb, C, ldc, accumulate);
}

template <>
void tile_matmul_at<float>(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb,
                           float* C, int64_t ldc, bool accumulate) {
  panels_tile<true>(M, N, K, A, lda, B, ldb, C, ldc, accumulate);
}
#endif

#if defined(__AVX512F__)
template <>
float row_max<float>(const float* x, int64_t n) {
  __m512 m = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  for (int64_t c = 0; c < n; c += 16)
    m = _mm512_maskz_max_ps(kAll, m, _mm512_mask_loadu_ps(m, first_lanes(n - c), x + c));
  return lanes_in_order(m, [](float a, float b) { return std::max(a, b); });
}

template <>
float exp_shifted<float>(float* x, int64_t n, float shift) {
  const __m512 s = _mm512_set1_ps(shift);
  __m512 sum = _mm512_setzero_ps();
  for (int64_t c = 0; c < n; c += 16) {
    const __mmask16 lanes = first_lanes(n - c);
    const __m512 e = exp_avx512(_mm512_sub_ps(_mm512_maskz_loadu_ps(lanes, x + c), s));
    _mm512_mask_storeu_ps(x + c, lanes, e);
    sum = _mm512_mask_add_ps(sum, lanes, sum, e);
  }
  return lanes_in_order(sum, [](float a, float b) { return a + b; });
}
#elif defined(__AVX2__) && defined(__FMA__)
template <>
float row_max<float>(const float* x, int64_t n) {
  __m256 m = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
  for (int64_t c = 0; c < n; c += 8) {
    const __m256i lanes = Lanes::first(n - c);
    const __m256 v = _mm256_blendv_ps(m, _mm256_maskload_ps(x + c, lanes), _mm256_castsi256_ps(lanes));
    m = _mm256_max_ps(m, v);
  }
  return lanes_in_order(m, [](float a, float b) { return std::max(a, b); });
}

template <>
float exp_shifted<float>(float* x, int64_t n, float shift) {
  const __m256 s = _mm256_set1_ps(shift);
  __m256 sum = _mm256_setzero_ps();
  for (int64_t c = 0; c < n; c += 8) {
    const __m256i lanes = Lanes::first(n - c);
    const __m256 e = exp_avx2(_mm256_sub_ps(_mm256_maskload_ps(x + c, lanes), s));
    _mm256_maskstore_ps(x + c, lanes, e);
    sum = _mm256_add_ps(sum, _mm256_and_ps(e, _mm256_castsi256_ps(lanes)));
  }
  return lanes_in_order(sum, [](float a, float b) { return a + b; });
}
#endif

#define ROTOR_INSTANTIATE(T)                                                                                           \
  template void tile_matmul_portable<T>(int64_t, int64_t, int64_t, const T*, int64_t, const T*, int64_t, T*, int64_t,  \
                                        bool);                                                                         \
  template void tile_matmul_at_portable<T>(int64_t, int64_t, int64_t, const T*, int64_t, const T*, int64_t, T*,        \
                                           int64_t, bool);                                                             \
  template void tile_matmul<T>(int64_t, int64_t, int64_t, const T*, int64_t, const T*, int64_t, T*, int64_t, bool);    \
  template void tile_matmul_at<T>(int64_t, int64_t, int64_t, const T*, int64_t, const T*, int64_t, T*, int64_t, bool); \
  template T row_max<T>(const T*, int64_t);                                                                            \
  template T exp_shifted<T>(T*, int64_t, T);
ROTOR_INSTANTIATE(float)
ROTOR_INSTANTIATE(double)
#undef ROTOR_INSTANTIATE

}  // namespace rotor::kernels
