#include "models/positions.h"

#include <algorithm>
#include <string>
#include <unordered_set>

#include "models/model_config.h"

namespace rotor {

std::vector<int64_t> Positions::list(int64_t n) const {
  if (!values.empty()) return values;
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

int64_t Positions::end(int64_t n) const {
  if (values.empty()) return n;
  return *std::max_element(values.begin(), values.end()) + 1;
}

int64_t Positions::span(int64_t n) const {
  if (values.empty()) return n;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return *hi - *lo + 1;
}

Positions random_positions(const RandomKey& key, int64_t count, int64_t range) {
  if (count > range)
    throw ModelConfigError("model.position.max_positions: " + std::to_string(range) + " positions to draw from, but " +
                           "the window has " + std::to_string(count));
  // Floyd: for t = range - count .. range - 1 draw r in [0, t]; take r, or t if r is taken already.
  // Every count-subset is equally likely, with exactly `count` draws.
  std::unordered_set<int64_t> chosen;
  Positions p;
  for (int64_t t = range - count; t < range; ++t) {
    const auto r =
        static_cast<int64_t>(key.below(static_cast<uint64_t>(t - (range - count)), static_cast<uint64_t>(t + 1)));
    const int64_t pick = chosen.count(r) ? t : r;
    chosen.insert(pick);
    p.values.push_back(pick);
  }
  std::sort(p.values.begin(), p.values.end());
  return p;
}

std::vector<PositionOption> randomized_position_options() {
  return {
      PositionOption::flag(
          "randomized", false,
          "randomized positions (Ruoss et al. 2023): in training every forward pass takes a sorted "
          "random subset of [0, max_positions) as its window's positions; evaluation uses 0..N-1 unless "
          "randomized_evaluation"),
      PositionOption::flag("randomized_evaluation", false,
                           "with randomized: evaluation forwards draw their positions too, as the authors' code does "
                           "(it has no training switch); an evaluation's draws are a pure function of the batch (its "
                           "index in the split and its padded length), the same for every run, so scores are "
                           "reproducible; a split scored in other batches (a study's length sweep, rotor predict) "
                           "draws other positions and may differ by a sample or two"),
      PositionOption::integer("max_positions", 2048,
                              "with randomized: positions are drawn from [0, max_positions); at least the training "
                              "window's positions (data.max_len, plus 1 with cls pooling)")
          .at_least(1),
  };
}

std::vector<PositionOption> with_randomized_positions(std::vector<PositionOption> options) {
  for (PositionOption& o : randomized_position_options()) options.push_back(std::move(o));
  return options;
}

}  // namespace rotor
