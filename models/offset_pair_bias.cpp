#include "models/offset_pair_bias.h"

#include <stdexcept>

#include "models/position_encoding.h"

namespace rotor {

Var expand_offset_table(const Var& per_offset, const std::vector<int64_t>& positions) {
  const int64_t n = static_cast<int64_t>(positions.size()), span = (per_offset.size(1) + 1) / 2;
  std::vector<int32_t> column(static_cast<size_t>(n * n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) column[i * n + j] = static_cast<int32_t>(positions[i] - positions[j] + span - 1);
  // Gather rows of the [2D-1, H] transpose: [N, N, H] -> [H, N, N].
  return permute(embedding(permute(per_offset, {1, 0}), column, {n, n}), {2, 0, 1});
}

OffsetPairBias::OffsetPairBias(Var table, std::vector<int64_t> positions)
    : table_(std::move(table)),
      positions_(std::move(positions)),
      span_((table_.size(1) + 1) / 2),
      values_(table_.value().to_doubles()) {
  if (Positions{positions_}.span(static_cast<int64_t>(positions_.size())) > span_)
    throw std::invalid_argument("OffsetPairBias: positions span more offsets than the table holds");
}

void OffsetPairBias::fill(const PairTile& t, double* out, int64_t ld) const {
  const double* row = values_.data() + t.head * (2 * span_ - 1);
  for (int64_t r = 0; r < t.rows; ++r)
    for (int64_t c = 0; c < t.cols; ++c) out[r * ld + c] = row[column(t.i0 + r, t.j0 + c)];
}

// The table's flat gradient: row-major [H, 2D-1]; tiles add in the caller's fixed order.
void OffsetPairBias::accumulate_gradients(const PairTile& t, const double* dbias, int64_t ld, double* grads) const {
  double* row = grads + t.head * (2 * span_ - 1);
  for (int64_t r = 0; r < t.rows; ++r)
    for (int64_t c = 0; c < t.cols; ++c) row[column(t.i0 + r, t.j0 + c)] += dbias[r * ld + c];
}

Var OffsetPairBias::compose(int64_t length) const {
  if (length != static_cast<int64_t>(positions_.size()))
    throw std::invalid_argument("OffsetPairBias: composed for " + std::to_string(length) + " slots, positions for " +
                                std::to_string(positions_.size()));
  return expand_offset_table(table_, positions_);
}

LayerBias layer_bias(const PositionEncoding& encoding, const ParameterStore& store, int64_t layer, int64_t n,
                     const Positions& positions, bool causal) {
  if (positions.contiguous())
    return {encoding.relative_bias(store, layer, n, causal), encoding.pair_bias(store, layer, positions)};
  const int64_t span = positions.span(n);
  const Var table = encoding.relative_bias(store, layer, span, causal);
  std::shared_ptr<const PairBias> own = encoding.pair_bias(store, layer, positions);
  if (!table.defined()) return {Var(), std::move(own)};
  if (own) throw std::logic_error("a position encoding gives an offset table or a pair bias, not both");
  return {Var(), std::make_shared<OffsetPairBias>(table, positions.values)};
}

}  // namespace rotor
