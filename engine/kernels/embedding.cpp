#include "engine/kernels/embedding.h"

#include <algorithm>

#include "engine/parallel.h"

namespace rotor::kernels {

template <class T>
void embedding_forward(const T* table, const int32_t* ids, int64_t n, int64_t D, T* y) {
  parallel_for(n, grain_for(D), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) std::copy(table + ids[i] * D, table + (ids[i] + 1) * D, y + i * D);
  });
}

template <class T>
void embedding_backward(const T* dy, const int32_t* ids, int64_t n, int64_t D, T* dtable) {
  constexpr int64_t kCols = 16;
  parallel_for((D + kCols - 1) / kCols, grain_for(n * kCols), [&](int64_t cb, int64_t ce) {
    const int64_t d0 = cb * kCols, d1 = std::min(D, ce * kCols);
    for (int64_t i = 0; i < n; ++i) {
      T* row = dtable + ids[i] * D;
      const T* g = dy + i * D;
      for (int64_t d = d0; d < d1; ++d) row[d] += g[d];
    }
  });
}

template void embedding_forward<float>(const float*, const int32_t*, int64_t, int64_t, float*);
template void embedding_forward<double>(const double*, const int32_t*, int64_t, int64_t, double*);
template void embedding_backward<float>(const float*, const int32_t*, int64_t, int64_t, float*);
template void embedding_backward<double>(const double*, const int32_t*, int64_t, int64_t, double*);

}  // namespace rotor::kernels
