#pragma once
// `rotor analyze offsets`: per layer and head, the mean attention mass at
// each signed relative distance d = j - i (key minus query),
//   profile(d) = (1 / R) sum over the R valid query rows of p_{i, i+d}
// (0 where key i + d does not exist, so the profile sums to 1), and the mean
// attention distance (1 / R) sum_rows sum_j p_ij |j - i|. A head that looks
// locally peaks at d = 0 or -1, one that reads a fixed offset spikes at +k or
// -k, a uniform one is flat over the offsets its rows can reach.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "datasets/tokenized_split.h"
#include "engine/precision.h"
#include "models/model.h"
#include "trainers/diagnostics/attention_probabilities.h"

namespace rotor {

class OffsetProfiles {
 public:
  // Offsets -(max_slots - 1) .. max_slots - 1.
  OffsetProfiles(int64_t layers, int64_t heads, int64_t max_slots);
  // Adds every valid row of every batch row and head of a recorded layer.
  void add(const AttentionLogitInputs& layer, Precision precision);
  void count_windows(int64_t windows) { windows_ += windows; }
  // {"windows", "max_offset", "offsets", "layers": [{"layer", "heads": [{"head", "profile", "mean_distance"}]}]}
  nlohmann::json to_json() const;

 private:
  double& mass(int64_t layer, int64_t head, int64_t offset);

  int64_t layers_, heads_, max_slots_, windows_ = 0;
  std::vector<double> mass_, distance_;  // [layer][head][2 max_slots - 1], [layer][head]
  std::vector<int64_t> rows_;            // [layer][head]
};

// Over the first window (max_len tokens) of up to max_windows documents of the split, those with 2 tokens or
// more. Throws ConfigError for linear attention and when no document of the split has 2 tokens.
OffsetProfiles measure_offset_profiles(const Model& model, const TokenizedSplit& split, int64_t max_len,
                                       int64_t max_windows, Precision precision);

}  // namespace rotor
