#include "engine/kernels/dropout.h"

#include "engine/parallel.h"

namespace rotor::kernels {

template <class T>
void dropout_apply(const T* x, T* y, int64_t n, double p, const RandomKey& key, bool accumulate) {
  const T scale = static_cast<T>(1.0 / (1.0 - p));
  // Keep when the top 24 bits, read as a fraction, are >= p. One Philox call
  // yields four words: elements 4j..4j+3 share counter j.
  const uint32_t threshold = static_cast<uint32_t>(p * 16777216.0);
  static_assert(kElementwiseGrain % 4 == 0, "chunks must start on a counter boundary");
  parallel_for(n, kElementwiseGrain, [&](int64_t b, int64_t e) {
    for (int64_t g = b; g < e; g += 4) {
      const auto bits = key.bits(static_cast<uint64_t>(g / 4));
      for (int64_t k = 0; k < 4 && g + k < e; ++k) {
        const T v = (bits[k] >> 8) >= threshold ? x[g + k] * scale : T(0);
        if (accumulate)
          y[g + k] += v;
        else
          y[g + k] = v;
      }
    }
  });
}

template void dropout_apply<float>(const float*, float*, int64_t, double, const RandomKey&, bool);
template void dropout_apply<double>(const double*, double*, int64_t, double, const RandomKey&, bool);

}  // namespace rotor::kernels
