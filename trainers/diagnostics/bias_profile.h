#pragma once
// `rotor analyze bias`: an offset-biased model's learned attention bias against
// the signed distance j - i of key j from query i, per head (and per layer
// where the layers differ), evaluated by the encoding's own hooks
// (PositionEncoding::relative_bias, pair_bias) rather than a formula written
// again here, together with the attention the bias alone gives a query: the
// softmax of its bias row over the keys it reads.
//
// Two queries, because FIRE's bias depends on the positions and not only on
// their offset: one at the end of a training-length window (position L - 1)
// and one far beyond it (position D, the farthest distance asked for). Each
// reads the keys within D of it (j >= 0; a causal model: j <= i only).
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/parameters.h"
#include "models/position_encoding.h"

namespace rotor {

// One query's bias over the keys it reads.
struct BiasRow {
  std::string query;  // "training_end" or "far"
  int64_t query_position = 0;
  int64_t first_key = 0;                       // keys first_key .. first_key + size - 1, distance key - query
  std::vector<std::vector<double>> bias;       // [heads][keys]
  std::vector<std::vector<double>> attention;  // [heads][keys]: softmax of the bias row, each sums to 1
};

struct LayerBiasRows {
  int64_t layer = 0;  // -1: every layer has these rows (one table shared by all layers)
  std::vector<BiasRow> rows;
};

struct BiasProfile {
  int64_t training_length = 0, max_distance = 0;
  bool causal = false;
  std::vector<LayerBiasRows> layers;
};

// Throws ValueError naming the encoding when it adds no bias to the attention logits.
// `encoding_name`: model.position.type, for that message.
BiasProfile bias_profile(const PositionEncoding& encoding, const ParameterStore& store,
                         const std::string& encoding_name, int64_t layers, int64_t training_length,
                         int64_t max_distance, bool causal);

// The profile as `analyze bias` writes it (bias.json; tools/plot_study.py `bias` draws it): per
// layer ("all" when shared) and query, "distances" (key - query) and per head "bias" and "attention".
nlohmann::json bias_profile_json(const BiasProfile& profile);

}  // namespace rotor
