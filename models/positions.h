#pragma once
// The positions a window's N slots take (CLS included when pooled), handed to
// every position-encoding hook. Empty means 0..N-1, the path every encoding
// has always taken. An explicit list comes from randomized positions (Ruoss et
// al. 2023, arXiv 2305.16843: in training, a sorted random subset of
// [0, model.position.max_positions), so a model trained on short windows sees
// the positions of long ones) or from the data (a sequence task's coupled
// positions, models/position_groups.h): any non-negative values, repeats and
// descents allowed (digits of the same significance share a position).
#include <cstdint>
#include <vector>

#include "engine/random.h"
#include "models/position_option.h"

namespace rotor {

struct Positions {
  std::vector<int64_t> values;  // >= 0, one per slot; empty: 0..N-1

  bool contiguous() const { return values.empty(); }
  // Position of slot i.
  int64_t at(int64_t i) const { return values.empty() ? i : values[static_cast<size_t>(i)]; }
  // One past the largest of the N slots' positions: the length a model must reach.
  int64_t end(int64_t n) const;
  // The largest minus the smallest position, plus 1: the offsets span -(D-1)..D-1.
  int64_t span(int64_t n) const;
  // The N positions as a list (0..N-1 when contiguous).
  std::vector<int64_t> list(int64_t n) const;
};

// `count` distinct positions drawn uniformly from [0, range), sorted: a pure
// function of `key` (Floyd's sampling, one draw per position). Throws
// ModelConfigError naming model.position.max_positions when count > range.
Positions random_positions(const RandomKey& key, int64_t count, int64_t range);

// model.position.randomized and model.position.max_positions, declared once
// for every encoding that takes positions (all but none).
std::vector<PositionOption> randomized_position_options();
// `options` followed by randomized_position_options(): an encoding's options when it takes positions.
std::vector<PositionOption> with_randomized_positions(std::vector<PositionOption> options);

}  // namespace rotor
