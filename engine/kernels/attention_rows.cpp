#include "engine/kernels/attention_rows.h"

#include <algorithm>
#include <limits>
#include <type_traits>

#include "engine/kernels/attention_tile.h"
#include "engine/kernels/attention_tile_bf16.h"
#include "engine/kernels/attention_tiling.h"
#include "engine/pair_bias.h"

namespace rotor::kernels {

using namespace attention_tiling;

template <class T>
AttentionRows<T>::AttentionRows(const AttentionConfig& c, Precision precision, const T* q, const T* k, const T* bias,
                                const T* contextual)
    : c_(c),
      bf16_(std::is_same_v<T, float> && precision == Precision::bf16),
      q_(q),
      k_(k),
      bias_(bias),
      contextual_(contextual) {
  c_.dropout = 0.0;
  pair_.resize(c.pair_bias ? static_cast<size_t>(kBlock) : 0);
}

// K^T of one head as the forward's operands hold it (ForwardOperands in attention_forward.cpp).
template <class T>
void AttentionRows<T>::prepare_head(int64_t head) {
  if (head == head_) return;
  const int64_t N = c_.N, dh = c_.dh;
  kt_.resize(static_cast<size_t>(dh * N));
  transpose(k_ + head * N * dh, N, dh, dh, kt_.data(), N);
  if constexpr (std::is_same_v<T, float>)
    if (bf16_) {
      k_pairs_.resize(static_cast<size_t>((dh + 1) / 2 * N));
      pack_column_pairs(kt_.data(), dh, N, N, k_pairs_.data(), N);
    }
  head_ = head;
}

// s[0, n) = q_row . k_j for keys j0 .. j0 + n - 1: the forward's tile product, one row of it (each element
// is the same sequence of multiply-adds whatever the tile's height).
template <class T>
void AttentionRows<T>::scores(const T* q_row, int64_t j0, int64_t n, T* s) {
  const int64_t N = c_.N, dh = c_.dh;
  if constexpr (std::is_same_v<T, float>)
    if (bf16_) {
      const int64_t dh_pairs = (dh + 1) / 2;
      q_pairs_.resize(static_cast<size_t>(dh_pairs));
      pack_row_pairs(q_row, 1, dh, dh, q_pairs_.data(), dh_pairs);
      return tile_matmul_bf16(1, n, dh, Bf16PairsA{q_pairs_.data(), dh_pairs, 1}, k_pairs_.data() + j0, N, s, n, false);
    }
  tile_matmul<T>(1, n, dh, q_row, dh, kt_.data() + j0, N, s, n, false);
}

template <class T>
void AttentionRows<T>::row(int64_t b, int64_t h, int64_t i, T* p) {
  const int64_t N = c_.N, head = b * c_.H + h;
  prepare_head(head);
  std::fill(p, p + N, T(0));
  const int64_t keys = attended_keys(c_, i, 0, valid_keys(c_, b));
  const T* bias_h = bias_ ? bias_ + h * (2 * N - 1) : nullptr;
  const T* q_row = q_ + (head * N + i) * c_.dh;
  for (int64_t j0 = 0; j0 < keys; j0 += kBlock) {  // the forward's key tiles
    const int64_t n = std::min(kBlock, keys - j0);
    scores(q_row, j0, n, p + j0);
    score_row(p + j0, n, static_cast<T>(c_.scale), bias_h, i, j0, N);
    if (contextual_)
      for (int64_t j = 0; j < n; ++j) p[j0 + j] += contextual_[(head * N + i) * N + j0 + j];
    if (!c_.pair_bias) continue;
    c_.pair_bias->fill(PairTile{h, i, 1, j0, n}, pair_.data(), n);
    add_pair_bias_row(p + j0, n, pair_.data());
  }
  const T top = row_max(p, keys);
  if (top == -std::numeric_limits<T>::infinity()) return std::fill(p, p + N, T(0));  // no finite score
  const T sum = exp_shifted(p, keys, top);
  for (int64_t j = 0; j < keys; ++j) p[j] /= sum;
}

template class AttentionRows<float>;
template class AttentionRows<double>;

}  // namespace rotor::kernels
