#include "trainers/diagnostics/bias_profile.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

#include <fmt/format.h>

#include "engine/error.h"
#include "models/offset_pair_bias.h"

namespace rotor {
namespace {

// The layer's bias over a window of n slots at positions 0..n-1, as a PairBias whatever its
// kind: an offset table is evaluated through OffsetPairBias, as attention does at explicit positions.
std::shared_ptr<const PairBias> window_bias(const PositionEncoding& encoding, const ParameterStore& store,
                                            int64_t layer, int64_t n, bool causal) {
  const LayerBias bias = layer_bias(encoding, store, layer, n, Positions{}, causal);
  if (bias.pair) return bias.pair;
  if (!bias.relative.defined()) return nullptr;
  std::vector<int64_t> positions(static_cast<size_t>(n));
  std::iota(positions.begin(), positions.end(), int64_t{0});
  return std::make_shared<OffsetPairBias>(bias.relative, std::move(positions));
}

std::vector<double> softmax(const std::vector<double>& logits) {
  const double top = *std::max_element(logits.begin(), logits.end());
  std::vector<double> p(logits.size());
  double sum = 0;
  for (size_t k = 0; k < logits.size(); ++k) sum += p[k] = std::exp(logits[k] - top);
  for (double& v : p) v /= sum;
  return p;
}

BiasRow bias_row(const PairBias& bias, const std::string& name, int64_t query, int64_t first_key, int64_t keys) {
  BiasRow row{name, query, first_key, {}, {}};
  for (int64_t h = 0; h < bias.heads(); ++h) {
    std::vector<double> values(static_cast<size_t>(keys));
    bias.fill(PairTile{h, query, 1, first_key, keys}, values.data(), keys);
    row.attention.push_back(softmax(values));
    row.bias.push_back(std::move(values));
  }
  return row;
}

bool same_rows(const LayerBiasRows& a, const LayerBiasRows& b) {
  for (size_t r = 0; r < a.rows.size(); ++r)
    if (a.rows[r].bias != b.rows[r].bias) return false;
  return true;
}

}  // namespace

BiasProfile bias_profile(const PositionEncoding& encoding, const ParameterStore& store,
                         const std::string& encoding_name, int64_t layers, int64_t training_length,
                         int64_t max_distance, bool causal) {
  if (encoding.contextual())
    throw ValueError(
        fmt::format("model.position.type '{}' has no bias of offsets: its positions are counts of the "
                    "query's gates over the keys, so its bias depends on the content; rotor analyze "
                    "attention shows what it does",
                    encoding_name));
  if (!window_bias(encoding, store, 0, 1, causal))
    throw ValueError(fmt::format(
        "model.position.type '{}' adds no bias to the attention logits; analyze bias reads the offset biases "
        "(t5_bias, alibi, alibi_directional, kerple, fire, sandwich){}",
        encoding_name,
        encoding.rotates() ? "; for a rotary encoding's long-term decay see rotor analyze rope-decay" : ""));
  BiasProfile profile{training_length, max_distance, causal, {}};
  const std::vector<std::pair<std::string, int64_t>> queries{{"training_end", training_length - 1},
                                                             {"far", std::max(max_distance, training_length - 1)}};
  for (int64_t layer = 0; layer < layers; ++layer) {
    LayerBiasRows rows{layer, {}};
    for (const auto& [name, query] : queries) {
      const int64_t first = std::max<int64_t>(0, query - max_distance), last = causal ? query : query + max_distance;
      const auto bias = window_bias(encoding, store, layer, last + 1, causal);
      rows.rows.push_back(bias_row(*bias, name, query, first, last - first + 1));
    }
    profile.layers.push_back(std::move(rows));
  }
  // One table shared by all layers (T5 by default, ALiBi, KERPLE) is reported once.
  const bool shared = std::all_of(profile.layers.begin(), profile.layers.end(),
                                  [&](const LayerBiasRows& l) { return same_rows(l, profile.layers.front()); });
  if (shared) {
    profile.layers.resize(1);
    profile.layers.front().layer = -1;
  }
  return profile;
}

nlohmann::json bias_profile_json(const BiasProfile& profile) {
  nlohmann::json out{{"training_length", profile.training_length},
                     {"max_distance", profile.max_distance},
                     {"causal", profile.causal},
                     {"layers", nlohmann::json::array()}};
  for (const LayerBiasRows& layer : profile.layers) {
    nlohmann::json rows = nlohmann::json::array();
    for (const BiasRow& row : layer.rows) {
      std::vector<int64_t> distances(row.bias.front().size());
      std::iota(distances.begin(), distances.end(), row.first_key - row.query_position);
      rows.push_back({{"query", row.query},
                      {"query_position", row.query_position},
                      {"distances", distances},
                      {"bias", row.bias},
                      {"attention", row.attention}});
    }
    out["layers"].push_back({{"layer", layer.layer < 0 ? nlohmann::json("all") : nlohmann::json(layer.layer)},
                             {"queries", std::move(rows)}});
  }
  return out;
}

}  // namespace rotor
