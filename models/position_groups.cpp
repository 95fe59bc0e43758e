#include "models/position_groups.h"

#include <map>
#include <string>

#include "engine/error.h"

namespace rotor {

namespace {

bool is_contiguous(const std::vector<int64_t>& values) {
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i] != static_cast<int64_t>(i)) return false;
  return true;
}

// Row b's positions, its padding slots at their own index when its tokens sit at 0..n-1 (a row without positions).
std::vector<int64_t> row_positions(const std::vector<int32_t>& token_positions, int64_t b, int64_t length,
                                   int64_t seq_len) {
  const int32_t* row = token_positions.data() + b * seq_len;
  bool at_slots = true;
  for (int64_t t = 0; t < length && at_slots; ++t) at_slots = row[t] == t;
  std::vector<int64_t> out;
  for (int64_t t = 0; t < seq_len; ++t) {
    if (row[t] < 0)
      throw ShapeError("explicit positions: row " + std::to_string(b) + " has position " + std::to_string(row[t]) +
                       " at token " + std::to_string(t) + "; positions are >= 0");
    out.push_back(at_slots && t >= length ? t : row[t]);
  }
  return out;
}

}  // namespace

std::vector<PositionGroup> group_rows_by_positions(const std::vector<int32_t>& token_positions,
                                                   const std::vector<int32_t>& lengths, int64_t batch, int64_t seq_len,
                                                   bool cls_slot) {
  if (static_cast<int64_t>(token_positions.size()) != batch * seq_len || static_cast<int64_t>(lengths.size()) != batch)
    throw ShapeError("explicit positions: " + std::to_string(token_positions.size()) + " values and " +
                     std::to_string(lengths.size()) + " lengths for a batch of " + std::to_string(batch) + " x " +
                     std::to_string(seq_len) + " tokens");
  std::vector<PositionGroup> groups;
  std::map<std::vector<int64_t>, size_t> group_of;
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<int64_t> slots;
    if (cls_slot) slots.push_back(0);
    for (const int64_t p : row_positions(token_positions, b, lengths[static_cast<size_t>(b)], seq_len))
      slots.push_back(cls_slot ? p + 1 : p);
    const auto [it, added] = group_of.emplace(slots, groups.size());
    if (added) groups.push_back({is_contiguous(slots) ? Positions() : Positions{slots}, {}});
    groups[it->second].rows.push_back(b);
  }
  return groups;
}

}  // namespace rotor
