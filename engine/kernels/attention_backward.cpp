// Fused attention backward (FlashAttention-2): one task per (batch, head)
// walks key blocks (outer: dK, dV stay in the tile) and query blocks (inner),
// recomputing P = exp(S - lse) and the dropout mask tile by tile.
//   dP = drop(dO V^T),  dS = P (dP - D),  D_i = dO_i . O_i
// The bias gradient of each (batch, head) goes to its own row of partials,
// then rows are summed over the batch in order: deterministic. The pair
// bias's parameter gradient likewise: one flat partial per (batch, head),
// filled from its dS tiles in tile order, summed in (batch, head) order; or,
// with a pair-bias table, dS summed over the batch first (pair_bias_table.h).
#include <cmath>
#include <limits>
#include <optional>
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

// bf16 operands (attention_tile_bf16.h): words of two bf16, pairs along rows
// (`rows`: A operands) or pairs of rows (`cols`: B operands, and A^T ones).
struct Bf16Operands {
  Bf16Operands(int64_t N, int64_t dh, bool bf16)
      : dh_pairs((dh + 1) / 2),
        q_rows(bf16 ? N * dh_pairs : 0),
        do_rows(bf16 ? N * dh_pairs : 0),
        q_cols(bf16 ? (N + 1) / 2 * dh : 0),
        do_cols(bf16 ? (N + 1) / 2 * dh : 0),
        kt_cols(bf16 ? dh_pairs * kBlock : 0),
        vt_cols(bf16 ? dh_pairs * kBlock : 0),
        k_cols(bf16 ? kBlock / 2 * dh : 0),
        p_cols(bf16 ? kBlock * kBlock / 2 : 0),
        ds_cols(bf16 ? kBlock * kBlock / 2 : 0),
        ds_rows(bf16 ? kBlock * kBlock / 2 : 0) {}
  int64_t dh_pairs;
  std::vector<uint32_t> q_rows, do_rows, q_cols, do_cols;  // the head's Q and dO
  std::vector<uint32_t> kt_cols, vt_cols, k_cols;          // the key block's K^T, V^T, K
  std::vector<uint32_t> p_cols, ds_cols, ds_rows;          // the tile's dropped-out P and dS
};

template <class T>
struct BackwardScratch {
  BackwardScratch(int64_t N, int64_t dh, bool pair_bias, bool bf16)
      : kt(dh * kBlock),
        vt(dh * kBlock),
        s(kBlock * kBlock),
        dp(kBlock * kBlock),
        pt(kBlock * kBlock),
        dk(kBlock * dh),
        dv(kBlock * dh),
        f(kBlock),
        D(N),
        pair(pair_bias ? kBlock * kBlock : 0),
        dpair(pair_bias ? kBlock * kBlock : 0),
        bf16(bf16),
        packed(N, dh, bf16) {}
  std::vector<T> kt, vt, s, dp, pt, dk, dv, f, D;
  std::vector<double> pair, dpair;  // the pair-bias tile and its dS, when there is a pair bias
  bool bf16;                        // the tile products' inputs rounded to bf16 (float only)
  Bf16Operands packed;
};

// Where a tile sits: head index b * H + h, query rows i0 .. i0 + m, keys j0 .. j0 + n.
struct TilePosition {
  int64_t head, i0, m, j0, n;
};

// One row's dS = P (dP f - D_i) in place of P, and pt = P f (f: the dropout
// factors, none without dropout). The bias partials and the pair bias take dS
// in loops of their own, so this one has no aliasing store and vectorizes.
template <class T>
void gradient_row(T* __restrict s, const T* __restrict dp, const T* __restrict f, T Di, T* __restrict pt,
                  int64_t cols) {
  if (f) {
    for (int64_t col = 0; col < cols; ++col) {
      const T p = s[col];
      s[col] = p * (dp[col] * f[col] - Di);
      pt[col] = p * f[col];
    }
  } else {
    for (int64_t col = 0; col < cols; ++col) {
      const T p = s[col];
      s[col] = p * (dp[col] - Di);
      pt[col] = p;
    }
  }
}

// Turns the score tile into scaled dS (kept in s, for dQ and dK) and fills pt
// with the dropped-out P (for dV), both row-major; adds dS to the bias partials
// and, with a pair bias (its tile's rows `pair_ld` apart), copies dS to w.dpair.
template <class T>
void gradient_tile(const AttentionConfig& c, const TilePosition& at, const T* bias_h, const T* lse, const double* pair,
                   int64_t pair_ld, BackwardScratch<T>& w, T* dbias_part) {
  const int64_t N = c.N;
  const T scale = static_cast<T>(c.scale);
  const bool dropout = c.dropout > 0.0;
  const DropoutFactors<T> drop(c.dropout, c.dropout_key);
  for (int64_t r = 0; r < at.m; ++r) {
    const int64_t i = at.i0 + r;
    T* s = w.s.data() + r * kBlock;
    const T* dp = w.dp.data() + r * kBlock;
    const int64_t cols = attended_keys(c, i, at.j0, at.n);
    score_row(s, cols, scale, bias_h, i, at.j0, N);
    double* dpair = c.pair_bias ? w.dpair.data() + r * kBlock : nullptr;
    if (dpair) add_pair_bias_row(s, cols, pair + r * pair_ld);
    if (dropout) drop.row(static_cast<uint64_t>((at.head * N + i) * N + at.j0), cols, w.f.data());
    const T row_lse = lse[at.head * N + i], Di = w.D[i];
    T* pt = w.pt.data() + r * kBlock;
    T* part = dbias_part ? dbias_part + (i - at.j0 + N - 1) : nullptr;  // column c adds to part[-c]
    if (row_lse == -std::numeric_limits<T>::infinity()) {               // every logit -inf: zero weights, zero gradient
      std::fill(pt, pt + at.n, T(0));
      std::fill(s, s + at.n, T(0));
      if (dpair) std::fill(dpair, dpair + at.n, 0.0);
      continue;
    }
    exp_shifted(s, cols, row_lse);        // s = P
    std::fill(s + cols, s + at.n, T(0));  // keys after a causal row's diagonal: P = 0, dS = 0
    std::fill(pt + cols, pt + at.n, T(0));
    if (dpair) std::fill(dpair + cols, dpair + at.n, 0.0);
    gradient_row(s, dp, dropout ? w.f.data() : nullptr, Di, pt, cols);  // s = dS, pt = dropped-out P
    if (part)
      for (int64_t col = 0; col < cols; ++col) part[-col] += s[col];
    if (dpair)
      for (int64_t col = 0; col < cols; ++col) dpair[col] = static_cast<double>(s[col]);
    for (int64_t col = 0; col < cols; ++col) s[col] *= scale;
  }
}

// The head's Q and dO as bf16 operands (bf16 only): pairs along rows for the
// score tiles, pairs of rows for dV and dK.
template <class T>
void pack_head(const T* Q, const T* dO, int64_t N, int64_t dh, BackwardScratch<T>& w) {
  if constexpr (std::is_same_v<T, float>)
    if (w.bf16) {
      Bf16Operands& b = w.packed;
      pack_row_pairs(Q, N, dh, dh, b.q_rows.data(), b.dh_pairs);
      pack_row_pairs(dO, N, dh, dh, b.do_rows.data(), b.dh_pairs);
      pack_column_pairs(Q, N, dh, dh, b.q_cols.data(), dh);
      pack_column_pairs(dO, N, dh, dh, b.do_cols.data(), dh);
    }
}

// The key block's K^T and V^T for the score tiles (and, bf16, K for dQ).
template <class T>
void load_key_block(const T* K, const T* V, int64_t n, int64_t dh, BackwardScratch<T>& w) {
  transpose(K, n, dh, dh, w.kt.data(), kBlock);
  transpose(V, n, dh, dh, w.vt.data(), kBlock);
  if constexpr (std::is_same_v<T, float>)
    if (w.bf16) {
      Bf16Operands& b = w.packed;
      pack_column_pairs(w.kt.data(), dh, n, kBlock, b.kt_cols.data(), kBlock);
      pack_column_pairs(w.vt.data(), dh, n, kBlock, b.vt_cols.data(), kBlock);
      pack_column_pairs(K, n, dh, dh, b.k_cols.data(), dh);
    }
}

// w.s = Q K^T and w.dp = dO V^T on the tile of query rows i0 .. i0 + m - 1 and the loaded key block's n keys.
template <class T>
void score_tiles(const T* Q, const T* dO, int64_t i0, int64_t m, int64_t n, int64_t dh, BackwardScratch<T>& w) {
  if constexpr (std::is_same_v<T, float>)
    if (w.bf16) {
      const Bf16Operands& b = w.packed;
      const int64_t row = i0 * b.dh_pairs;
      tile_matmul_bf16(m, n, dh, Bf16PairsA{b.q_rows.data() + row, b.dh_pairs, 1}, b.kt_cols.data(), kBlock, w.s.data(),
                       kBlock, false);
      tile_matmul_bf16(m, n, dh, Bf16PairsA{b.do_rows.data() + row, b.dh_pairs, 1}, b.vt_cols.data(), kBlock,
                       w.dp.data(), kBlock, false);
      return;
    }
  tile_matmul<T>(m, n, dh, Q + i0 * dh, dh, w.kt.data(), kBlock, w.s.data(), kBlock, false);
  tile_matmul<T>(m, n, dh, dO + i0 * dh, dh, w.vt.data(), kBlock, w.dp.data(), kBlock, false);
}

// From the tile's P (w.pt) and dS (w.s): dV += P^T dO and dK += dS^T Q into
// the block's w.dv, w.dk, and dQ += dS K into dq (the tile's rows, or null).
template <class T>
void gradient_products(const T* Q, const T* dO, const T* K, int64_t i0, int64_t m, int64_t n, int64_t dh, T* dq,
                       BackwardScratch<T>& w) {
  if constexpr (std::is_same_v<T, float>)
    if (w.bf16) {
      Bf16Operands& b = w.packed;
      pack_column_pairs(w.pt.data(), m, n, kBlock, b.p_cols.data(), kBlock);
      pack_column_pairs(w.s.data(), m, n, kBlock, b.ds_cols.data(), kBlock);
      const int64_t pair_row = i0 / 2 * dh;  // i0 is a multiple of kBlock: even
      tile_matmul_bf16(n, dh, m, Bf16PairsA{b.p_cols.data(), 1, kBlock}, b.do_cols.data() + pair_row, dh, w.dv.data(),
                       dh, true);
      tile_matmul_bf16(n, dh, m, Bf16PairsA{b.ds_cols.data(), 1, kBlock}, b.q_cols.data() + pair_row, dh, w.dk.data(),
                       dh, true);
      if (!dq) return;
      pack_row_pairs(w.s.data(), m, n, kBlock, b.ds_rows.data(), kBlock / 2);
      tile_matmul_bf16(m, dh, n, Bf16PairsA{b.ds_rows.data(), kBlock / 2, 1}, b.k_cols.data(), dh, dq, dh, true);
      return;
    }
  tile_matmul_at<T>(n, dh, m, w.pt.data(), kBlock, dO + i0 * dh, dh, w.dv.data(), dh, true);
  tile_matmul_at<T>(n, dh, m, w.s.data(), kBlock, Q + i0 * dh, dh, w.dk.data(), dh, true);
  if (dq) tile_matmul<T>(m, dh, n, w.s.data(), kBlock, K, dh, dq, dh, true);
}

// Where a tile's pair-bias dS goes: into the bias's gradient for this
// (batch, head) alone, or into the batch's sum (with a pair-bias table).
struct PairGradientSink {
  double* partial = nullptr;
  PairGradientSum* sum = nullptr;
};

template <class T>
void backward_head(const AttentionConfig& c, int64_t head, const T* q, const T* k, const T* v, const T* bias,
                   const T* out, const T* lse, const T* dout, T* dq, T* dk, T* dv, T* dbias_part,
                   const PairBiasTable& pairs, const PairGradientSink& sink, BackwardScratch<T>& w) {
  const int64_t N = c.N, dh = c.dh, len = valid_keys(c, head / c.H);
  if (len == 0) return;  // no valid key: the outputs were constant zeros
  const int64_t base = head * N * dh;
  const T *Q = q + base, *K = k + base, *V = v + base, *O = out + base, *dO = dout + base;
  const T* bias_h = bias ? bias + (head % c.H) * (2 * N - 1) : nullptr;
  for (int64_t i = 0; i < N; ++i) {
    T d = T(0);
    for (int64_t e = 0; e < dh; ++e) d += dO[i * dh + e] * O[i * dh + e];
    w.D[i] = d;
  }
  pack_head(Q, dO, N, dh, w);
  for (int64_t j0 = 0; j0 < len; j0 += kBlock) {
    const int64_t n = std::min(kBlock, len - j0);
    load_key_block(K + j0 * dh, V + j0 * dh, n, dh, w);
    std::fill(w.dk.begin(), w.dk.end(), T(0));
    std::fill(w.dv.begin(), w.dv.end(), T(0));
    for (int64_t i0 = first_query_block(c, j0); i0 < N; i0 += kBlock) {
      const int64_t m = std::min(kBlock, N - i0);
      score_tiles(Q, dO, i0, m, n, dh, w);
      const PairTile pair_tile{head % c.H, i0, m, j0, n};
      int64_t pair_ld = 0;
      const double* pair = c.pair_bias ? pairs.tile(c, pair_tile, w.pair.data(), pair_ld) : nullptr;
      gradient_tile(c, TilePosition{head, i0, m, j0, n}, bias_h, lse, pair, pair_ld, w, dbias_part);
      if (sink.sum) sink.sum->add(pair_tile, w.dpair.data(), kBlock);
      if (sink.partial) accumulate_pair_gradients(c, pair_tile, w.dpair.data(), kBlock, sink.partial);
      gradient_products(Q, dO, K + j0 * dh, i0, m, n, dh, dq ? dq + base + i0 * dh : nullptr, w);
    }
    for (int64_t e = 0; e < n * dh; ++e) {
      if (dk) dk[base + j0 * dh + e] += w.dk[e];
      if (dv) dv[base + j0 * dh + e] += w.dv[e];
    }
  }
}

}  // namespace

template <class T>
void attention_backward(const AttentionConfig& c, Precision precision, const T* q, const T* k, const T* v,
                        const T* bias, const T* out, const T* lse, const T* dout, T* dq, T* dk, T* dv, T* dbias,
                        double* dpair) {
  const int64_t N = c.N, heads = c.B * c.H, width = 2 * N - 1;
  if (heads == 0 || N == 0) return;
  if (!c.pair_bias) dpair = nullptr;
  const bool bf16 = std::is_same_v<T, float> && precision == Precision::bf16;
  const int64_t pair_size = dpair ? c.pair_bias->gradient_size() : 0;
  std::vector<T> dbias_part(dbias ? static_cast<size_t>(heads * width) : 0, T(0));
  const PairBiasTable pairs(c);
  // With a table the pair bias's dS is summed over the batch (by head, batch rows in order), else each
  // (batch, head) has its own gradient, summed in (batch, head) order: fixed for any thread count.
  std::optional<PairGradientSum> sum;
  if (dpair && !pairs.empty()) sum.emplace(c);
  std::vector<double> dpair_part(sum ? 0 : static_cast<size_t>(heads * pair_size), 0.0);
  auto run = [&](int64_t head, BackwardScratch<T>& scratch) {
    const PairGradientSink sink{dpair && !sum ? dpair_part.data() + head * pair_size : nullptr, sum ? &*sum : nullptr};
    backward_head(c, head, q, k, v, bias, out, lse, dout, dq, dk, dv,
                  dbias ? dbias_part.data() + head * width : nullptr, pairs, sink, scratch);
  };
  const int64_t tasks = sum ? c.H : heads;  // heads, each over the batch; or (batch, head) pairs
  parallel_for(tasks, 1, [&](int64_t tb, int64_t te) {
    BackwardScratch<T> scratch(N, c.dh, c.pair_bias != nullptr, bf16);
    for (int64_t t = tb; t < te; ++t) {
      if (!sum) run(t, scratch);
      for (int64_t b = 0; sum && b < c.B; ++b) run(b * c.H + t, scratch);
    }
  });
  if (sum) sum->gradients(dpair);
  for (int64_t h = 0; !sum && h < heads; ++h)
    for (int64_t e = 0; e < pair_size; ++e) dpair[e] += dpair_part[h * pair_size + e];
  if (!dbias) return;
  for (int64_t h = 0; h < c.H; ++h)
    for (int64_t b = 0; b < c.B; ++b) {  // batch order: fixed for any thread count
      const T* part = dbias_part.data() + (b * c.H + h) * width;
      for (int64_t d = 0; d < width; ++d) dbias[h * width + d] += part[d];
    }
}

template void attention_backward<float>(const AttentionConfig&, Precision, const float*, const float*, const float*,
                                        const float*, const float*, const float*, const float*, float*, float*, float*,
                                        float*, double*);
template void attention_backward<double>(const AttentionConfig&, Precision, const double*, const double*, const double*,
                                         const double*, const double*, const double*, const double*, double*, double*,
                                         double*, double*, double*);

}  // namespace rotor::kernels
