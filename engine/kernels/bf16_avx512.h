#pragma once
// What the bf16 GEMM (gemm_bf16_avx512.cpp) and the attention's bf16 tiles
// (attention_tile_bf16.cpp) share on AVX-512 BF16. The CPU may lack these
// instructions (the build need not target them): only functions with
// ROTOR_BF16_TARGET use them, and only after the run-time check
// (cpu_has_bf16_dot).
#include <immintrin.h>

#include <cstdint>

#define ROTOR_BF16_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))

namespace rotor::kernels {

// The first n of 16 lanes (none for n <= 0, all for n >= 16).
inline __mmask16 first_lanes16(int64_t n) {
  return static_cast<__mmask16>(n >= 16 ? 0xffff : n <= 0 ? 0 : (1u << n) - 1);
}

// The 16 words (even[j], odd[j]), even in the low half, as vdpbf16ps pairs k
// and k + 1: both rows rounded to bf16 (to nearest even; a denormal as a
// signed zero) side by side, then interleaved.
ROTOR_BF16_TARGET inline __m512i bf16_pair_words(__m512 even, __m512 odd) {
  const __m512i interleave = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8, 23, 7, 22,
                                              6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
  return _mm512_permutexvar_epi16(interleave, reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(odd, even)));
}

}  // namespace rotor::kernels
