#pragma once
// `rotor analyze offsets`: per layer and head, the mean attention mass at
// each signed relative distance d = j - i (key minus query),
//   profile(d) = (1 / R) sum over the R valid query rows of p_{i, i+d}
// (0 where key i + d does not exist, so the profile sums to 1), and the mean
// attention distance (1 / R) sum_rows sum_j p_ij |j - i|. A head that looks
// locally peaks at d = 0 or -1, one that reads a fixed offset spikes at +k or
// -k, a uniform one is flat over the offsets its rows can reach. With a query
// token, only the rows whose query is that token count: what a head does from
// one kind of position (the offset task's marker), which the mean over every
// row dilutes.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "datasets/tokenized_split.h"
#include "engine/precision.h"
#include "models/model.h"
#include "trainers/diagnostics/attention_probabilities.h"
#include "trainers/diagnostics/recorded_windows.h"

namespace rotor {

class OffsetProfiles {
 public:
  // Offsets -(max_slots - 1) .. max_slots - 1.
  OffsetProfiles(int64_t layers, int64_t heads, int64_t max_slots, std::optional<int32_t> query_token = {});
  // Adds every valid row (with a query token: whose query is that token) of every batch row and head of
  // `layer`, recorded over `batch`; `cls`: 1 when slot 0 is the CLS vector, which no token is.
  void add(const AttentionLogitInputs& layer, const RecordedBatch& batch, int64_t cls, Precision precision);
  void count_windows(int64_t windows) { windows_ += windows; }
  int64_t rows() const { return rows_.empty() ? 0 : rows_[0]; }  // query rows counted (every head counts the same)
  // {"windows", "max_offset", "offsets", "layers": [{"layer", "heads": [{"head", "profile", "mean_distance"}]}]}
  nlohmann::json to_json() const;

 private:
  double& mass(int64_t layer, int64_t head, int64_t offset);

  int64_t layers_, heads_, max_slots_, windows_ = 0;
  std::optional<int32_t> query_token_;
  std::vector<double> mass_, distance_;  // [layer][head][2 max_slots - 1], [layer][head]
  std::vector<int64_t> rows_;            // [layer][head]
};

// Over the first window (max_len tokens) of up to max_windows documents of the split, those with 2 tokens or
// more; with a query token, over the rows whose query is that token. Throws ConfigError for linear attention,
// when no document of the split has 2 tokens, and when no row's query is the token.
OffsetProfiles measure_offset_profiles(const Model& model, const TokenizedSplit& split, int64_t max_len,
                                       int64_t max_windows, Precision precision,
                                       std::optional<int32_t> query_token = {});

}  // namespace rotor
