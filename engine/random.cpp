#include "engine/random.h"

#include <algorithm>
#include <cmath>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

#include "engine/fnv1a.h"

namespace rotor {
namespace {

constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The key mixes seed and stream; the counter carries step and index.
uint64_t philox_key(uint64_t seed, uint64_t stream) { return splitmix64(seed ^ splitmix64(stream)); }

}  // namespace

std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> c, std::array<uint32_t, 2> k) {
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(kMul0) * c[0];
    const uint64_t p1 = static_cast<uint64_t>(kMul1) * c[2];
    c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<uint32_t>(p0)};
    k[0] += kWeyl0;
    k[1] += kWeyl1;
  }
  return c;
}

uint64_t stream_id(std::string_view name) { return splitmix64(fnv1a(name.data(), name.size())); }

std::array<uint32_t, 4> RandomKey::bits(uint64_t index) const {
  const uint64_t key = philox_key(seed, stream);
  return philox4x32({static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32), static_cast<uint32_t>(step),
                     static_cast<uint32_t>(step >> 32)},
                    {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)});
}

// The bulk path: philox4x32 of kWidth counters at once, one counter per lane of
// each of the four state words. Integer arithmetic only, so every width gives
// bits() word for word (tests/engine/test_random_block.cpp).
#if defined(__AVX512F__)
// GCC 12 warns that the intrinsics' internal _mm512_undefined_* operands are
// uninitialised (GCC bug 105593, fixed in 13).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
namespace {
struct PhiloxLanes {
  using Reg = __m512i;
  static constexpr int kWidth = 16;
  static Reg splat(uint32_t x) { return _mm512_set1_epi32(static_cast<int>(x)); }
  static Reg bxor(Reg a, Reg b) { return _mm512_xor_si512(a, b); }
  // The 64-bit counters first + lane as low and high words (carry where the low word wraps).
  static void counters(uint64_t first, Reg& lo, Reg& hi) {
    const Reg lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    lo = _mm512_add_epi32(splat(static_cast<uint32_t>(first)), lane);
    const __mmask16 wrapped = _mm512_cmplt_epu32_mask(lo, lane);
    const Reg high = splat(static_cast<uint32_t>(first >> 32));
    hi = _mm512_mask_add_epi32(high, wrapped, high, splat(1));
  }
  // 32x32 -> 64-bit products: high and low words.
  static void mul_hi_lo(Reg a, Reg m, Reg& hi, Reg& lo) {
    const Reg even = _mm512_mul_epu32(a, m);                        // lanes 0, 2, ... as 64-bit
    const Reg odd = _mm512_mul_epu32(_mm512_srli_epi64(a, 32), m);  // lanes 1, 3, ...
    hi = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(even, 32), odd);
    lo = _mm512_mullo_epi32(a, m);
  }
  // 4 x 16 words to 16 x 4 (four per counter, as bits() lays them out): within 128-bit lanes, then the lanes.
  static void store_transposed(Reg c0, Reg c1, Reg c2, Reg c3, uint32_t* out) {
    const Reg t0 = _mm512_unpacklo_epi32(c0, c1), t1 = _mm512_unpackhi_epi32(c0, c1);
    const Reg t2 = _mm512_unpacklo_epi32(c2, c3), t3 = _mm512_unpackhi_epi32(c2, c3);
    const Reg u0 = _mm512_unpacklo_epi64(t0, t2), u1 = _mm512_unpackhi_epi64(t0, t2);
    const Reg u2 = _mm512_unpacklo_epi64(t1, t3), u3 = _mm512_unpackhi_epi64(t1, t3);
    const Reg v0 = _mm512_shuffle_i32x4(u0, u1, 0x44), v1 = _mm512_shuffle_i32x4(u2, u3, 0x44);
    const Reg v2 = _mm512_shuffle_i32x4(u0, u1, 0xEE), v3 = _mm512_shuffle_i32x4(u2, u3, 0xEE);
    _mm512_storeu_si512(out, _mm512_shuffle_i32x4(v0, v1, 0x88));
    _mm512_storeu_si512(out + 16, _mm512_shuffle_i32x4(v0, v1, 0xDD));
    _mm512_storeu_si512(out + 32, _mm512_shuffle_i32x4(v2, v3, 0x88));
    _mm512_storeu_si512(out + 48, _mm512_shuffle_i32x4(v2, v3, 0xDD));
  }
};
}  // namespace
#pragma GCC diagnostic pop
#elif defined(__AVX2__)
namespace {
struct PhiloxLanes {
  using Reg = __m256i;
  static constexpr int kWidth = 8;
  static Reg splat(uint32_t x) { return _mm256_set1_epi32(static_cast<int>(x)); }
  static Reg bxor(Reg a, Reg b) { return _mm256_xor_si256(a, b); }
  static void counters(uint64_t first, Reg& lo, Reg& hi) {
    const Reg lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    lo = _mm256_add_epi32(splat(static_cast<uint32_t>(first)), lane);
    // Unsigned lo < lane as a signed compare of both with the sign bit flipped; true lanes are -1.
    const Reg sign = splat(0x80000000u);
    const Reg wrapped = _mm256_cmpgt_epi32(_mm256_xor_si256(lane, sign), _mm256_xor_si256(lo, sign));
    hi = _mm256_sub_epi32(splat(static_cast<uint32_t>(first >> 32)), wrapped);
  }
  static void mul_hi_lo(Reg a, Reg m, Reg& hi, Reg& lo) {
    const Reg even = _mm256_mul_epu32(a, m);
    const Reg odd = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), m);
    hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
    lo = _mm256_mullo_epi32(a, m);
  }
  // 4 x 8 words to 8 x 4: within 128-bit lanes (counters 0-3 low, 4-7 high), then the halves.
  static void store_transposed(Reg c0, Reg c1, Reg c2, Reg c3, uint32_t* out) {
    const Reg t0 = _mm256_unpacklo_epi32(c0, c1), t1 = _mm256_unpackhi_epi32(c0, c1);
    const Reg t2 = _mm256_unpacklo_epi32(c2, c3), t3 = _mm256_unpackhi_epi32(c2, c3);
    const Reg u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);  // counters 0, 1 | 4, 5
    const Reg u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);  // counters 2, 3 | 6, 7
    auto* o = reinterpret_cast<__m256i*>(out);
    _mm256_storeu_si256(o, _mm256_permute2x128_si256(u0, u1, 0x20));
    _mm256_storeu_si256(o + 1, _mm256_permute2x128_si256(u2, u3, 0x20));
    _mm256_storeu_si256(o + 2, _mm256_permute2x128_si256(u0, u1, 0x31));
    _mm256_storeu_si256(o + 3, _mm256_permute2x128_si256(u2, u3, 0x31));
  }
};
}  // namespace
#endif

#if defined(__AVX512F__) || defined(__AVX2__)
namespace {
// philox4x32 of the counters first..first + kWidth - 1: 4 kWidth words, four per counter.
void philox_lanes(uint64_t first, uint64_t step, uint64_t key, uint32_t* out) {
  using L = PhiloxLanes;
  L::Reg c0, c1;
  L::counters(first, c0, c1);
  L::Reg c2 = L::splat(static_cast<uint32_t>(step)), c3 = L::splat(static_cast<uint32_t>(step >> 32));
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  const L::Reg m0 = L::splat(kMul0), m1 = L::splat(kMul1);
  for (int round = 0; round < 10; ++round) {
    L::Reg hi0, lo0, hi1, lo1;
    L::mul_hi_lo(c0, m0, hi0, lo0);
    L::mul_hi_lo(c2, m1, hi1, lo1);
    c0 = L::bxor(L::bxor(hi1, c1), L::splat(k0));
    c1 = lo1;
    c2 = L::bxor(L::bxor(hi0, c3), L::splat(k1));
    c3 = lo0;
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  L::store_transposed(c0, c1, c2, c3, out);
}
}  // namespace

void RandomKey::bits_block(uint64_t first, int64_t count, uint32_t* words) const {
  constexpr int W = PhiloxLanes::kWidth;
  const uint64_t key = philox_key(seed, stream);
  int64_t i = 0;
  for (; i + W <= count; i += W) philox_lanes(first + static_cast<uint64_t>(i), step, key, words + 4 * i);
  if (i < count) {
    uint32_t tail[4 * W];
    philox_lanes(first + static_cast<uint64_t>(i), step, key, tail);
    std::copy(tail, tail + 4 * (count - i), words + 4 * i);
  }
}
#else
void RandomKey::bits_block(uint64_t first, int64_t count, uint32_t* words) const {
  for (int64_t i = 0; i < count; ++i) {
    const auto b = bits(first + static_cast<uint64_t>(i));
    std::copy(b.begin(), b.end(), words + 4 * i);
  }
}
#endif

double RandomKey::uniform_double(uint64_t index) const {
  const auto b = bits(index);
  const uint64_t x = (static_cast<uint64_t>(b[0]) << 32 | b[1]) >> 11;
  return static_cast<double>(x) * (1.0 / 9007199254740992.0);
}

double RandomKey::normal(uint64_t index) const {
  const auto b = bits(index);
  const uint64_t x = (static_cast<uint64_t>(b[0]) << 32 | b[1]) >> 11;
  const uint64_t y = (static_cast<uint64_t>(b[2]) << 32 | b[3]) >> 11;
  const double u1 = (static_cast<double>(x) + 1.0) * (1.0 / 9007199254740993.0);  // (0, 1]
  const double u2 = static_cast<double>(y) * (1.0 / 9007199254740992.0);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

uint64_t RandomKey::below(uint64_t index, uint64_t n) const {
  const auto b = bits(index);
  const uint64_t x = static_cast<uint64_t>(b[0]) << 32 | b[1];
  return static_cast<uint64_t>((static_cast<unsigned __int128>(x) * n) >> 64);
}

}  // namespace rotor
