#include "engine/kernels/dropout.h"

#include "engine/kernels/dropout_mask.h"
#include "engine/parallel.h"

namespace rotor::kernels {

template <class T>
void dropout_apply(const T* x, T* y, int64_t n, double p, const RandomKey& key, bool accumulate) {
  const T scale = dropout_scale<T>(p);
  const DropoutMask mask(key, p);
  static_assert(kElementwiseGrain % kDropoutBlock == 0, "chunks must start on a block boundary");
  parallel_for(n, kElementwiseGrain, [&](int64_t b, int64_t e) {
    uint32_t buffer[DropoutMask::kWords];
    for (int64_t g = b; g < e; g += kDropoutBlock) {
      const int64_t m = e - g < kDropoutBlock ? e - g : kDropoutBlock;
      const uint32_t* words = mask.words(g, m, buffer);
      if (accumulate)
        apply_dropout_mask<true>(mask, words, x + g, y + g, m, scale);
      else
        apply_dropout_mask<false>(mask, words, x + g, y + g, m, scale);
    }
  });
}

template void dropout_apply<float>(const float*, float*, int64_t, double, const RandomKey&, bool);
template void dropout_apply<double>(const double*, double*, int64_t, double, const RandomKey&, bool);

}  // namespace rotor::kernels
