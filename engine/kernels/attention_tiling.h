#pragma once
// Pieces shared by the fused attention forward and backward (internal to
// engine/kernels/attention_*.cpp): tile size, the tiles a causal mask
// leaves, score rows, dropout factors.
#include <algorithm>
#include <cstdint>

#include "engine/kernels/attention.h"
#include "engine/pair_bias.h"

namespace rotor::kernels::attention_tiling {

constexpr int64_t kBlock = 64;  // query rows and keys per tile

inline int64_t valid_keys(const AttentionConfig& c, int64_t b) {
  return c.key_lengths ? std::clamp<int64_t>(c.key_lengths[b], 0, c.N) : c.N;
}

// The keys query block i0 .. i0 + m - 1 reads are j < key_end: causal, none
// past its last row, so key tiles above the diagonal are never visited.
inline int64_t key_end(const AttentionConfig& c, int64_t b, int64_t i0, int64_t m) {
  return c.causal ? std::min(valid_keys(c, b), i0 + m) : valid_keys(c, b);
}

// The first query block that reads key block j0 (block starts are multiples of
// kBlock, so the causal diagonal block starts at j0 itself).
inline int64_t first_query_block(const AttentionConfig& c, int64_t j0) { return c.causal ? j0 : 0; }

// How many of the n keys j0 .. j0 + n - 1 query i attends: causal, those j <= i.
inline int64_t attended_keys(const AttentionConfig& c, int64_t i, int64_t j0, int64_t n) {
  return c.causal ? std::clamp<int64_t>(i - j0 + 1, 0, n) : n;
}

// Whether every key of the tile is attended by every query row of it.
inline bool whole_tile(const AttentionConfig& c, const PairTile& t) { return !c.causal || t.j0 + t.cols <= t.i0 + 1; }

// The pair bias of a tile's attended entries: the whole tile, or on the causal
// diagonal row by row up to j = i (the bias is never evaluated where j > i).
inline void fill_pair_bias(const AttentionConfig& c, const PairTile& t, double* out, int64_t ld) {
  if (whole_tile(c, t)) return c.pair_bias->fill(t, out, ld);
  for (int64_t r = 0; r < t.rows; ++r)
    if (const int64_t cols = attended_keys(c, t.i0 + r, t.j0, t.cols))
      c.pair_bias->fill(PairTile{t.head, t.i0 + r, 1, t.j0, cols}, out + r * ld, ld);
}

// The pair bias's parameter gradients from a dS tile, over the same entries as fill_pair_bias.
inline void accumulate_pair_gradients(const AttentionConfig& c, const PairTile& t, const double* ds, int64_t ld,
                                      double* grads) {
  if (whole_tile(c, t)) return c.pair_bias->accumulate_gradients(t, ds, ld, grads);
  for (int64_t r = 0; r < t.rows; ++r)
    if (const int64_t cols = attended_keys(c, t.i0 + r, t.j0, t.cols))
      c.pair_bias->accumulate_gradients(PairTile{t.head, t.i0 + r, 1, t.j0, cols}, ds + r * ld, ld, grads);
}

// A row of n raw products q_i . k_j (j = j0 ..) becomes scores: scale * s + bias.
template <class T>
void score_row(T* s, int64_t n, T scale, const T* bias_h, int64_t i, int64_t j0, int64_t N) {
  if (!bias_h) {
    for (int64_t c = 0; c < n; ++c) s[c] *= scale;
    return;
  }
  const T* b = bias_h + (i - j0 + N - 1);  // column c reads b[-c]
  for (int64_t c = 0; c < n; ++c) s[c] = s[c] * scale + b[-c];
}

// Adds a row of the pair bias (evaluated in double) to a row of scores.
template <class T>
void add_pair_bias_row(T* s, int64_t n, const double* pair) {
  for (int64_t c = 0; c < n; ++c) s[c] += static_cast<T>(pair[c]);
}

// The dropout of kernels::dropout_apply for one tile row: f[c] = 1/(1-p) when
// element first + c is kept, else 0. Same counter (index / 4), same word
// (index % 4) and same test on its top 24 bits.
template <class T>
class DropoutFactors {
 public:
  DropoutFactors(double p, const RandomKey& key)
      : key_(key), threshold_(static_cast<uint32_t>(p * 16777216.0)), keep_scale_(static_cast<T>(1.0 / (1.0 - p))) {}

  // n <= kBlock. Words of the counters covering first .. first + n - 1, then
  // one test per element (word index - 4 * first counter).
  void row(uint64_t first, int64_t n, T* f) const {
    uint32_t words[kBlock + 8];
    const uint64_t counter = first / 4, counters = (first % 4 + static_cast<uint64_t>(n) + 3) / 4;
    key_.bits_block(counter, static_cast<int64_t>(counters), words);
    const uint32_t* word = words + first % 4;
    for (int64_t c = 0; c < n; ++c) f[c] = (word[c] >> 8) >= threshold_ ? keep_scale_ : T(0);
  }

 private:
  RandomKey key_;
  uint32_t threshold_;
  T keep_scale_;
};

// dst[c * ldd + r] = src[r * lds + c] for r < rows, c < cols.
template <class T>
void transpose(const T* src, int64_t rows, int64_t cols, int64_t lds, T* dst, int64_t ldd) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) dst[c * ldd + r] = src[r * lds + c];
}

}  // namespace rotor::kernels::attention_tiling
