#pragma once
// bfloat16: the top 16 bits of an IEEE float (8 exponent bits, 7 mantissa
// bits). Rounding is to nearest, ties to even, as the AVX-512 BF16
// conversion instructions and PyTorch round; NaNs stay NaN (quiet).
#include <cstdint>
#include <cstring>

namespace rotor {

using bf16 = uint16_t;

inline bf16 to_bf16(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<bf16>((bits >> 16) | 0x40u);  // NaN: keep it quiet
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<bf16>(bits >> 16);
}

inline float from_bf16(bf16 h) {
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float x;
  std::memcpy(&x, &bits, 4);
  return x;
}

// x rounded to the nearest bfloat16, as a float.
inline float round_to_bf16(float x) { return from_bf16(to_bf16(x)); }

}  // namespace rotor
