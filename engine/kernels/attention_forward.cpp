// Fused attention forward: one task per (batch, head, query block) streams the
// key tiles with an online softmax (running max and sum per row).
#include <cmath>
#include <limits>
#include <vector>

#include "engine/kernels/attention.h"
#include "engine/kernels/attention_tile.h"
#include "engine/kernels/attention_tiling.h"
#include "engine/pair_bias.h"
#include "engine/parallel.h"

namespace rotor::kernels {
namespace {

using namespace attention_tiling;

template <class T>
struct ForwardScratch {
  ForwardScratch(int64_t dh, bool pair_bias)
      : s(kBlock * kBlock),
        f(kBlock),
        o(kBlock * dh),
        row_max(kBlock),
        row_sum(kBlock),
        pair(pair_bias ? kBlock * kBlock : 0) {}
  std::vector<T> s, f, o, row_max, row_sum;
  std::vector<double> pair;  // the pair-bias tile, when there is a pair bias
};

// Folds one tile row of scores into the running softmax of its query row and
// turns the scores into (dropped-out) unnormalised probabilities.
template <class T>
void online_softmax_row(T* s, int64_t n, T& running_max, T& running_sum, T* o, int64_t dh) {
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  const T m = std::max(running_max, row_max(s, n));
  if (m == kNegInf) {  // every score so far is -inf (a -inf bias): no weight yet
    std::fill(s, s + n, T(0));
    return;
  }
  const T correction = std::exp(running_max - m);  // 0 on the first finite tile
  running_sum = running_sum * correction + exp_shifted(s, n, m);
  running_max = m;
  if (correction != T(1))
    for (int64_t d = 0; d < dh; ++d) o[d] *= correction;
}

template <class T>
void forward_block(const AttentionConfig& c, int64_t head, int64_t i0, const T* q, const T* kt, const T* v,
                   const T* bias, T* out, T* lse, ForwardScratch<T>& w) {
  const int64_t N = c.N, dh = c.dh, b = head / c.H, h = head % c.H;
  const int64_t m = std::min(kBlock, N - i0), keys = key_end(c, b, i0, m);
  const T* Q = q + (head * N + i0) * dh;
  T* O = out + (head * N + i0) * dh;
  T* L = lse + head * N + i0;
  const T* bias_h = bias ? bias + h * (2 * N - 1) : nullptr;
  const T scale = static_cast<T>(c.scale);
  const bool dropout = c.dropout > 0.0;
  const DropoutFactors<T> drop(c.dropout, c.dropout_key);
  std::fill(w.row_max.begin(), w.row_max.end(), -std::numeric_limits<T>::infinity());
  std::fill(w.row_sum.begin(), w.row_sum.end(), T(0));
  std::fill(w.o.begin(), w.o.end(), T(0));
  for (int64_t j0 = 0; j0 < keys; j0 += kBlock) {
    const int64_t n = std::min(kBlock, keys - j0);
    tile_matmul<T>(m, n, dh, Q, dh, kt + head * dh * N + j0, N, w.s.data(), kBlock, false);
    if (c.pair_bias) fill_pair_bias(c, PairTile{h, i0, m, j0, n}, w.pair.data(), kBlock);
    for (int64_t r = 0; r < m; ++r) {
      T* s = w.s.data() + r * kBlock;
      const int64_t cols = attended_keys(c, i0 + r, j0, n);
      score_row(s, cols, scale, bias_h, i0 + r, j0, N);
      if (c.pair_bias) add_pair_bias_row(s, cols, w.pair.data() + r * kBlock);
      online_softmax_row(s, cols, w.row_max[r], w.row_sum[r], w.o.data() + r * dh, dh);
      std::fill(s + cols, s + n, T(0));  // keys after a causal row's diagonal: no weight
      if (!dropout) continue;
      drop.row(static_cast<uint64_t>((head * N + i0 + r) * N + j0), cols, w.f.data());
      for (int64_t col = 0; col < cols; ++col) s[col] *= w.f[col];
    }
    tile_matmul<T>(m, dh, n, w.s.data(), kBlock, v + (head * N + j0) * dh, dh, w.o.data(), dh, true);
  }
  for (int64_t r = 0; r < m; ++r) {
    const T sum = w.row_sum[r];
    const T inv = sum > T(0) ? T(1) / sum : T(0);  // no valid key: zeros, like softmax of an all -inf row
    for (int64_t d = 0; d < dh; ++d) O[r * dh + d] = w.o[r * dh + d] * inv;
    L[r] = sum > T(0) ? w.row_max[r] + std::log(sum) : -std::numeric_limits<T>::infinity();
  }
}

}  // namespace

template <class T>
void attention_forward(const AttentionConfig& c, const T* q, const T* k, const T* v, const T* bias, T* out, T* lse) {
  const int64_t N = c.N, dh = c.dh, heads = c.B * c.H;
  if (heads == 0 || N == 0) return;
  const int64_t blocks = (N + kBlock - 1) / kBlock;
  // K^T per head, [dh, N]: score tiles then read contiguous key columns.
  std::vector<T> kt(static_cast<size_t>(heads * dh * N));
  parallel_for(heads, grain_for(N * dh), [&](int64_t hb, int64_t he) {
    for (int64_t h = hb; h < he; ++h) attention_tiling::transpose(k + h * N * dh, N, dh, dh, kt.data() + h * dh * N, N);
  });
  parallel_for(heads * blocks, 1, [&](int64_t tb, int64_t te) {
    ForwardScratch<T> scratch(dh, c.pair_bias != nullptr);
    for (int64_t t = tb; t < te; ++t)
      forward_block(c, t / blocks, (t % blocks) * kBlock, q, kt.data(), v, bias, out, lse, scratch);
  });
}

template void attention_forward<float>(const AttentionConfig&, const float*, const float*, const float*, const float*,
                                       float*, float*);
template void attention_forward<double>(const AttentionConfig&, const double*, const double*, const double*,
                                        const double*, double*, double*);

}  // namespace rotor::kernels
