#include "trainers/diagnostics/offset_profile.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "trainers/config/config.h"
#include "trainers/diagnostics/model_forward.h"

namespace rotor {

OffsetProfiles::OffsetProfiles(int64_t layers, int64_t heads, int64_t max_slots)
    : layers_(layers),
      heads_(heads),
      max_slots_(max_slots),
      mass_(static_cast<size_t>(layers * heads * (2 * max_slots - 1)), 0.0),
      distance_(static_cast<size_t>(layers * heads), 0.0),
      rows_(distance_.size(), 0) {}

double& OffsetProfiles::mass(int64_t layer, int64_t head, int64_t offset) {
  return mass_[static_cast<size_t>((layer * heads_ + head) * (2 * max_slots_ - 1) + offset + max_slots_ - 1)];
}

void OffsetProfiles::add(const AttentionLogitInputs& layer, Precision precision) {
  const int64_t l = layer.layer;
  for (int64_t b = 0; b < layer.q.size(0); ++b)
    for (int64_t h = 0; h < heads_; ++h)
      for_each_probability_row(layer, precision, b, h, [&](int64_t i, const std::vector<double>& p) {
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

namespace {

constexpr int64_t kWindowsPerForward = 16;

// The next batch of windows: the first max_len tokens of each document from `doc` on with 2 tokens or more.
int64_t next_windows(const TokenizedSplit& split, int64_t& doc, int64_t max_len, int64_t wanted,
                     std::vector<std::vector<int32_t>>& windows) {
  windows.clear();
  for (; doc < split.num_docs() && static_cast<int64_t>(windows.size()) < wanted; ++doc) {
    const int64_t n = std::min(split.doc_length(doc), max_len);
    if (n >= 2) windows.emplace_back(split.doc_tokens(doc), split.doc_tokens(doc) + n);
  }
  return static_cast<int64_t>(windows.size());
}

}  // namespace

OffsetProfiles measure_offset_profiles(const Model& model, const TokenizedSplit& split, int64_t max_len,
                                       int64_t max_windows, Precision precision) {
  const ModelConfig& config = model.config();
  if (config.attention != AttentionKind::softmax)
    throw ConfigError("linear attention (model.attention: linear) forms no attention probabilities to profile");
  const int64_t cls = model.cls_slot() >= 0 ? 1 : 0;
  OffsetProfiles profiles(config.layers, config.heads, max_len + cls);
  std::vector<std::vector<int32_t>> windows;
  int64_t doc = 0, seen = 0;
  while (seen < max_windows &&
         next_windows(split, doc, max_len, std::min(kWindowsPerForward, max_windows - seen), windows) > 0) {
    int64_t seq_len = 0;
    for (const auto& w : windows) seq_len = std::max<int64_t>(seq_len, static_cast<int64_t>(w.size()));
    std::vector<int32_t> tokens(windows.size() * static_cast<size_t>(seq_len), Tokenizer::kPadId), lengths;
    for (size_t b = 0; b < windows.size(); ++b) {
      std::copy(windows[b].begin(), windows[b].end(), tokens.begin() + static_cast<std::ptrdiff_t>(b * seq_len));
      lengths.push_back(static_cast<int32_t>(windows[b].size()));
    }
    AttentionRecorder recorder;
    ForwardContext ctx;
    ctx.attention_capture = &recorder;
    run_forward(model, {tokens, lengths, static_cast<int64_t>(windows.size()), seq_len}, ctx);
    for (int64_t l = 0; l < config.layers; ++l) profiles.add(recorder.layer(l), precision);
    seen += static_cast<int64_t>(windows.size());
    profiles.count_windows(static_cast<int64_t>(windows.size()));
  }
  if (seen == 0)
    throw ConfigError("split " + split.name + " has no document of 2 tokens or more to measure attention over");
  return profiles;
}

}  // namespace rotor
