#include "engine/kernels/layout.h"

#include <algorithm>

#include "engine/parallel.h"

namespace rotor::kernels {

template <class T>
void permute(const T* x, const Shape& xs, const std::vector<int>& perm, T* y, bool accumulate) {
  const int r = static_cast<int>(xs.size());
  const int64_t n = numel(xs);
  std::vector<int64_t> xstride(r);
  for (int64_t s = 1, d = r - 1; d >= 0; --d) {
    xstride[d] = s;
    s *= xs[d];
  }
  // Walk y in order; its dim i advances x by xstride[perm[i]].
  Shape ys(r);
  std::vector<int64_t> step(r);
  for (int i = 0; i < r; ++i) {
    ys[i] = xs[perm[i]];
    step[i] = xstride[perm[i]];
  }
  const int64_t inner = r ? ys[r - 1] : 1, rows = inner ? n / inner : 0, inner_step = r ? step[r - 1] : 0;
  parallel_for(rows, grain_for(inner), [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      int64_t rem = row, off = 0;
      for (int d = r - 2; d >= 0; --d) {
        off += (rem % ys[d]) * step[d];
        rem /= ys[d];
      }
      T* out = y + row * inner;
      if (accumulate)
        for (int64_t j = 0; j < inner; ++j) out[j] += x[off + j * inner_step];
      else
        for (int64_t j = 0; j < inner; ++j) out[j] = x[off + j * inner_step];
    }
  });
}

template <class T>
void copy_rows(const T* src, int64_t src_stride, T* dst, int64_t dst_stride, int64_t outer, int64_t len,
               bool accumulate) {
  parallel_for(outer, grain_for(len), [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      const T* s = src + o * src_stride;
      T* d = dst + o * dst_stride;
      if (accumulate)
        for (int64_t j = 0; j < len; ++j) d[j] += s[j];
      else
        std::copy(s, s + len, d);
    }
  });
}

template void permute<float>(const float*, const Shape&, const std::vector<int>&, float*, bool);
template void permute<double>(const double*, const Shape&, const std::vector<int>&, double*, bool);
template void copy_rows<float>(const float*, int64_t, float*, int64_t, int64_t, int64_t, bool);
template void copy_rows<double>(const double*, int64_t, double*, int64_t, int64_t, int64_t, bool);

}  // namespace rotor::kernels
