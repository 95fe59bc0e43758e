// Fused attention forward: one task per (batch, head, query block) streams the
// key tiles with an online softmax (running max and sum per row).
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "engine/kernels/attention.h"
#include "engine/kernels/attention_tile.h"
#include "engine/kernels/attention_tile_bf16.h"
#include "engine/kernels/attention_tiling.h"
#include "engine/kernels/pair_bias_table.h"
#include "engine/pair_bias.h"
#include "engine/parallel.h"

namespace rotor::kernels {
namespace {

using namespace attention_tiling;

template <class T>
struct ForwardScratch {
  ForwardScratch(int64_t dh, bool pair_bias, bool bf16)
      : s(kBlock * kBlock),
        f(kBlock),
        o(kBlock * dh),
        row_max(kBlock),
        row_sum(kBlock),
        pair(pair_bias ? kBlock * kBlock : 0),
        q_pairs(bf16 ? kBlock * ((dh + 1) / 2) : 0),
        p_pairs(bf16 ? kBlock * kBlock / 2 : 0) {}
  std::vector<T> s, f, o, row_max, row_sum;
  std::vector<double> pair;                // the pair-bias tile, when there is a pair bias
  std::vector<uint32_t> q_pairs, p_pairs;  // bf16: the query block and the P tile, pairs along rows
};

// The operands of the two tile products, S = Q K^T and O += P V, shared by the
// threads. fp32 (and double): K^T per head ([dh, N], score tiles then read
// contiguous key columns) and V as it is. bf16: K^T and V packed per head into
// bf16 pairs (attention_tile_bf16.h), the query block and the P tile into the
// thread's scratch.
template <class T>
class ForwardOperands {
 public:
  ForwardOperands(const AttentionConfig& c, Precision precision, const T* k, const T* v)
      : c_(c),
        bf16_(std::is_same_v<T, float> && precision == Precision::bf16),
        v_(v),
        dh_pairs_((c.dh + 1) / 2),
        key_pairs_((c.N + 1) / 2) {
    const int64_t N = c.N, dh = c.dh, heads = c.B * c.H;
    if (bf16_) {
      k_pairs_.resize(static_cast<size_t>(heads * dh_pairs_ * N));
      v_pairs_.resize(static_cast<size_t>(heads * key_pairs_ * dh));
    } else {
      kt_.resize(static_cast<size_t>(heads * dh * N));
    }
    parallel_for(heads, grain_for(N * dh), [&](int64_t hb, int64_t he) {
      std::vector<T> kt_head(bf16_ ? static_cast<size_t>(dh * N) : 0);
      for (int64_t h = hb; h < he; ++h) {
        T* kt = bf16_ ? kt_head.data() : kt_.data() + h * dh * N;
        transpose(k + h * N * dh, N, dh, dh, kt, N);
        if constexpr (std::is_same_v<T, float>)
          if (bf16_) {
            pack_column_pairs(kt, dh, N, N, k_pairs_.data() + h * dh_pairs_ * N, N);
            pack_column_pairs(v + h * N * dh, N, dh, dh, v_pairs_.data() + h * key_pairs_ * dh, dh);
          }
      }
    });
  }

  bool bf16() const { return bf16_; }

  // w.s[m, n] = Q K^T for the m query rows at Q and keys j0 .. j0 + n - 1 of `head`.
  void scores(int64_t head, const T* Q, int64_t m, int64_t j0, int64_t n, ForwardScratch<T>& w) const {
    const int64_t N = c_.N, dh = c_.dh;
    if constexpr (std::is_same_v<T, float>)
      if (bf16_) {
        if (j0 == 0) pack_row_pairs(Q, m, dh, dh, w.q_pairs.data(), dh_pairs_);  // once per query block
        return tile_matmul_bf16(m, n, dh, Bf16PairsA{w.q_pairs.data(), dh_pairs_, 1},
                                k_pairs_.data() + head * dh_pairs_ * N + j0, N, w.s.data(), kBlock, false);
      }
    tile_matmul<T>(m, n, dh, Q, dh, kt_.data() + head * dh * N + j0, N, w.s.data(), kBlock, false);
  }

  // w.o[m, dh] += P V with P the tile's weights in w.s.
  void add_weighted_values(int64_t head, int64_t m, int64_t j0, int64_t n, ForwardScratch<T>& w) const {
    const int64_t N = c_.N, dh = c_.dh;
    if constexpr (std::is_same_v<T, float>)
      if (bf16_) {
        pack_row_pairs(w.s.data(), m, n, kBlock, w.p_pairs.data(), kBlock / 2);
        return tile_matmul_bf16(m, dh, n, Bf16PairsA{w.p_pairs.data(), kBlock / 2, 1},
                                v_pairs_.data() + (head * key_pairs_ + j0 / 2) * dh, dh, w.o.data(), dh, true);
      }
    tile_matmul<T>(m, dh, n, w.s.data(), kBlock, v_ + (head * N + j0) * dh, dh, w.o.data(), dh, true);
  }

 private:
  const AttentionConfig& c_;
  const bool bf16_;
  const T* v_;
  const int64_t dh_pairs_, key_pairs_;  // words per row of Q and K, per column of V
  std::vector<T> kt_;
  std::vector<uint32_t> k_pairs_, v_pairs_;  // bf16: [dh / 2, N] and [N / 2, dh] words per head (halves rounded up)
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
void forward_block(const AttentionConfig& c, int64_t head, int64_t i0, const T* q, const ForwardOperands<T>& operands,
                   const T* bias, const PairBiasTable& pairs, T* out, T* lse, ForwardScratch<T>& w) {
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
    operands.scores(head, Q, m, j0, n, w);
    int64_t pair_ld = 0;
    const double* pair = c.pair_bias ? pairs.tile(c, PairTile{h, i0, m, j0, n}, w.pair.data(), pair_ld) : nullptr;
    for (int64_t r = 0; r < m; ++r) {
      T* s = w.s.data() + r * kBlock;
      const int64_t cols = attended_keys(c, i0 + r, j0, n);
      score_row(s, cols, scale, bias_h, i0 + r, j0, N);
      if (pair) add_pair_bias_row(s, cols, pair + r * pair_ld);
      online_softmax_row(s, cols, w.row_max[r], w.row_sum[r], w.o.data() + r * dh, dh);
      std::fill(s + cols, s + n, T(0));  // keys after a causal row's diagonal: no weight
      if (!dropout) continue;
      drop.row(static_cast<uint64_t>((head * N + i0 + r) * N + j0), cols, w.f.data());
      for (int64_t col = 0; col < cols; ++col) s[col] *= w.f[col];
    }
    operands.add_weighted_values(head, m, j0, n, w);
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
void attention_forward(const AttentionConfig& c, Precision precision, const T* q, const T* k, const T* v, const T* bias,
                       T* out, T* lse) {
  const int64_t N = c.N, dh = c.dh, heads = c.B * c.H;
  if (heads == 0 || N == 0) return;
  const int64_t blocks = (N + kBlock - 1) / kBlock;
  const ForwardOperands<T> operands(c, precision, k, v);
  const PairBiasTable pairs(c);
  parallel_for(heads * blocks, 1, [&](int64_t tb, int64_t te) {
    ForwardScratch<T> scratch(dh, c.pair_bias != nullptr, operands.bf16());
    for (int64_t t = tb; t < te; ++t)
      forward_block(c, t / blocks, (t % blocks) * kBlock, q, operands, bias, pairs, out, lse, scratch);
  });
}

template void attention_forward<float>(const AttentionConfig&, Precision, const float*, const float*, const float*,
                                       const float*, float*, float*);
template void attention_forward<double>(const AttentionConfig&, Precision, const double*, const double*, const double*,
                                        const double*, double*, double*);

}  // namespace rotor::kernels
