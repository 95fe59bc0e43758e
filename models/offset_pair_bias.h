#pragma once
// An offset bias at explicit positions. The offset encodings (t5_bias, alibi,
// alibi_directional, kerple) describe their bias as a per-offset table
// [H, 2D-1] (PositionEncoding::relative_bias). For positions 0..N-1 attention
// takes the table as it is; for explicit positions p (randomized, or the data's)
// the bias of query i and key j is the table at p_i - p_j, which is no longer
// a function of i - j, so the table over the positions' span D = p_max -
// p_min + 1 is evaluated at (p_i, p_j) as a PairBias: tile by tile in the
// fused attention (memory O(H D), never N x N), gathered to [H, N, N] by
// compose() in the composed path. Its one "parameter" is the table Var
// itself, so the table's gradient flows back through the ops that built it
// (T5's gather, KERPLE's r1 and r2, learned ALiBi slopes).
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/pair_bias.h"
#include "models/positions.h"

namespace rotor {

class PositionEncoding;
class ParameterStore;

// per_offset [H, 2D-1] -> [H, N, N] with out[h][i][j] = per_offset[h][(p_i - p_j) + (D - 1)],
// D - 1 >= p_max - p_min. A gather, so its gradient scatters back into the table.
Var expand_offset_table(const Var& per_offset, const std::vector<int64_t>& positions);

class OffsetPairBias : public PairBias {
 public:
  // table: [H, 2D-1] over offsets -(D-1)..D-1; positions with p_max - p_min < D.
  OffsetPairBias(Var table, std::vector<int64_t> positions);

  int64_t heads() const override { return table_.size(0); }
  std::vector<Var> parameters() const override { return {table_}; }
  void fill(const PairTile& tile, double* out, int64_t ld) const override;
  void accumulate_gradients(const PairTile& tile, const double* dbias, int64_t ld, double* grads) const override;
  Var compose(int64_t length) const override;

 private:
  // Column of the table for query slot i and key slot j.
  int64_t column(int64_t i, int64_t j) const { return positions_[i] - positions_[j] + span_ - 1; }

  Var table_;
  std::vector<int64_t> positions_;
  int64_t span_;                // D
  std::vector<double> values_;  // the table in double, read once
};

// What attention adds to one layer's logits.
struct LayerBias {
  Var relative;                          // [H, 2N-1] per-offset table (contiguous positions), or undefined
  std::shared_ptr<const PairBias> pair;  // b_h(i, j), or null
};

// The bias of `layer` for a window of n slots at `positions`: contiguous, the
// encoding's [H, 2N-1] table and its pair bias as they are; explicit, its
// offset table over the positions' span as an OffsetPairBias, or its own pair
// bias at those positions (an encoding gives one or the other). `causal`: for
// causal attention (PositionEncoding::relative_bias).
LayerBias layer_bias(const PositionEncoding& encoding, const ParameterStore& store, int64_t layer, int64_t n,
                     const Positions& positions, bool causal);

}  // namespace rotor
