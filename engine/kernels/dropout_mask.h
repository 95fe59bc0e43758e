#pragma once
// dropout()'s keep/drop decision, shared by every kernel that applies that mask
// (dropout itself, the fused residual ops), so they stay bit-identical: flat
// element i uses word i % 4 of Philox counter i / 4 of the key, and is kept
// when the word's top 24 bits, read as a fraction, are >= p.
#include <cstdint>

#include "engine/random.h"

namespace rotor::kernels {

constexpr int64_t kDropoutBlock = 256;  // elements per batch of Philox words (64 counters)

struct DropoutMask {
  const RandomKey& key;
  uint32_t threshold;

  DropoutMask(const RandomKey& k, double p) : key(k), threshold(static_cast<uint32_t>(p * 16777216.0)) {}
  bool keep(uint32_t word) const { return (word >> 8) >= threshold; }

  // The words of flat elements [first, first + m), m <= kDropoutBlock, from `buffer`
  // (kWords long): a span may start inside a counter (rows whose length is not a multiple of 4).
  static constexpr int64_t kWords = kDropoutBlock + 8;
  const uint32_t* words(int64_t first, int64_t m, uint32_t* buffer) const {
    const int64_t c0 = first / 4;
    key.bits_block(static_cast<uint64_t>(c0), (first + m + 3) / 4 - c0, buffer);
    return buffer + (first - 4 * c0);
  }
};

// The factor a kept element is scaled by.
template <class T>
T dropout_scale(double p) {
  return static_cast<T>(1.0 / (1.0 - p));
}

// out[k] = keep ? x[k] * scale : 0 (or += when kAccumulate) for k < m.
template <bool kAccumulate, class T>
inline void apply_dropout_mask(const DropoutMask& mask, const uint32_t* words, const T* x, T* out, int64_t m, T scale) {
  for (int64_t k = 0; k < m; ++k) {
    const T d = mask.keep(words[k]) ? x[k] * scale : T(0);
    if (kAccumulate)
      out[k] += d;
    else
      out[k] = d;
  }
}

}  // namespace rotor::kernels
