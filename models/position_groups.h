#pragma once
// Positions given by the data, one per token (a sequence task's coupled
// positions: digits of the same significance share one, as in position
// coupling, Cho et al. 2024, and Abacus, McLeish et al. 2024). Every position
// hook takes one window's positions for the whole batch (models/positions.h),
// so the encoder runs the rows that share a list of positions together and
// rows at different positions apart: a batch whose rows all differ costs one
// forward per row. Rows whose tokens sit at 0..n-1 take the contiguous path,
// padding and all (padding slots are never attended to), so a batch of them is
// today's model to the bit.
#include <cstdint>
#include <vector>

#include "models/positions.h"

namespace rotor {

struct PositionGroup {
  Positions positions;        // of the N slots; empty: 0..N-1
  std::vector<int64_t> rows;  // rows of the batch at these positions, ascending
};

// token_positions: [batch * seq_len] row-major, >= 0 (padding slots included: their
// value is the data's, attention masks them); lengths: [batch], each row's real
// tokens. cls_slot: slot 0 is a [CLS] at position 0 and token t sits at slot
// t + 1, position p + 1. Groups come in the order of their first row. Throws
// ShapeError when the sizes disagree.
std::vector<PositionGroup> group_rows_by_positions(const std::vector<int32_t>& token_positions,
                                                   const std::vector<int32_t>& lengths, int64_t batch, int64_t seq_len,
                                                   bool cls_slot);

}  // namespace rotor
