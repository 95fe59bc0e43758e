#include "trainers/diagnostics/offset_profile.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "trainers/config/config.h"
#include "trainers/diagnostics/recorded_windows.h"

namespace rotor {

OffsetProfiles::OffsetProfiles(int64_t layers, int64_t heads, int64_t max_slots, std::optional<int32_t> query_token)
    : layers_(layers),
      heads_(heads),
      max_slots_(max_slots),
      query_token_(query_token),
      mass_(static_cast<size_t>(layers * heads * (2 * max_slots - 1)), 0.0),
      distance_(static_cast<size_t>(layers * heads), 0.0),
      rows_(distance_.size(), 0) {}

double& OffsetProfiles::mass(int64_t layer, int64_t head, int64_t offset) {
  return mass_[static_cast<size_t>((layer * heads_ + head) * (2 * max_slots_ - 1) + offset + max_slots_ - 1)];
}

void OffsetProfiles::add(const AttentionLogitInputs& layer, const RecordedBatch& batch, int64_t cls,
                         Precision precision) {
  const int64_t l = layer.layer;
  const auto counted = [&](int64_t b, int64_t i) {
    return !query_token_ ||
           (i >= cls && batch.tokens[static_cast<size_t>(b * batch.seq_len + i - cls)] == *query_token_);
  };
  for (int64_t b = 0; b < layer.q.size(0); ++b)
    for (int64_t h = 0; h < heads_; ++h)
      for_each_probability_row(layer, precision, b, h, [&](int64_t i, const std::vector<double>& p) {
        if (!counted(b, i)) return;
        const int64_t keys = std::min<int64_t>(static_cast<int64_t>(p.size()), max_slots_);
        for (int64_t j = 0; j < keys; ++j) {
          mass(l, h, j - i) += p[j];
          distance_[l * heads_ + h] += p[j] * static_cast<double>(std::abs(j - i));
        }
        ++rows_[l * heads_ + h];
      });
}

nlohmann::json OffsetProfiles::to_json() const {
  nlohmann::json offsets = nlohmann::json::array();
  for (int64_t d = -(max_slots_ - 1); d < max_slots_; ++d) offsets.push_back(d);
  nlohmann::json out{
      {"windows", windows_}, {"max_offset", max_slots_ - 1}, {"offsets", offsets}, {"layers", nlohmann::json::array()}};
  for (int64_t l = 0; l < layers_; ++l) {
    nlohmann::json heads = nlohmann::json::array();
    for (int64_t h = 0; h < heads_; ++h) {
      const double rows = static_cast<double>(std::max<int64_t>(rows_[l * heads_ + h], 1));
      const size_t first = static_cast<size_t>((l * heads_ + h) * (2 * max_slots_ - 1));
      std::vector<double> profile(mass_.begin() + first, mass_.begin() + first + (2 * max_slots_ - 1));
      for (double& m : profile) m /= rows;
      heads.push_back({{"head", h}, {"profile", profile}, {"mean_distance", distance_[l * heads_ + h] / rows}});
    }
    out["layers"].push_back({{"layer", l}, {"heads", heads}});
  }
  return out;
}

OffsetProfiles measure_offset_profiles(const Model& model, const TokenizedSplit& split, int64_t max_len,
                                       int64_t max_windows, Precision precision, std::optional<int32_t> query_token) {
  const ModelConfig& config = model.config();
  if (config.attention != AttentionKind::softmax)
    throw ConfigError("linear attention (model.attention: linear) forms no attention probabilities to profile");
  const int64_t cls = model.cls_slot() >= 0 ? 1 : 0;
  OffsetProfiles profiles(config.layers, config.heads, max_len + cls, query_token);
  for_each_recorded_batch(model, split, max_len, max_windows, [&](const RecordedBatch& batch) {
    for (int64_t l = 0; l < config.layers; ++l) profiles.add(batch.recorder.layer(l), batch, cls, precision);
    profiles.count_windows(batch.windows);
  });
  if (profiles.rows() == 0)
    throw ConfigError(
        fmt::format("no query of the first {} tokens of split {} is token {}, so there is no row to "
                    "profile",
                    max_len, split.name, *query_token));
  return profiles;
}

}  // namespace rotor
