#include "engine/kernels/dropout.h"

#include "engine/parallel.h"

namespace rotor::kernels {

template <class T>
void dropout_apply(const T* x, T* y, int64_t n, double p, const RandomKey& key, bool accumulate) {
  const T scale = static_cast<T>(1.0 / (1.0 - p));
  // Keep when the top 24 bits, read as a fraction, are >= p. One Philox call
  // yields four words: elements 4j..4j+3 share counter j.
  const uint32_t threshold = static_cast<uint32_t>(p * 16777216.0);
  constexpr int64_t kBlock = 256;  // elements per batch of Philox words (64 counters)
  static_assert(kElementwiseGrain % kBlock == 0, "chunks must start on a block boundary");
  parallel_for(n, kElementwiseGrain, [&](int64_t b, int64_t e) {
    uint32_t words[kBlock];
    for (int64_t g = b; g < e; g += kBlock) {
      const int64_t m = e - g < kBlock ? e - g : kBlock;
      key.bits_block(static_cast<uint64_t>(g / 4), (m + 3) / 4, words);
      const T* xs = x + g;
      T* ys = y + g;
      if (accumulate)
        for (int64_t k = 0; k < m; ++k) ys[k] += (words[k] >> 8) >= threshold ? xs[k] * scale : T(0);
      else
        for (int64_t k = 0; k < m; ++k) ys[k] = (words[k] >> 8) >= threshold ? xs[k] * scale : T(0);
    }
  });
}

template void dropout_apply<float>(const float*, float*, int64_t, double, const RandomKey&, bool);
template void dropout_apply<double>(const double*, double*, int64_t, double, const RandomKey&, bool);

}  // namespace rotor::kernels
