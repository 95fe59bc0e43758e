#pragma once
// `rotor analyze attention`: the attention probabilities of chosen layers and
// heads for one input window, recomputed from the kernel's own logits
// (attention_probabilities.h). A window longer than max_cells slots is also
// shown downsampled: cell (a, c) is the mean over the queries of block a of
// the mass on the keys of block c (each row still sums to 1); every query's
// top_k keys are listed either way.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/precision.h"
#include "models/model.h"

namespace rotor {

struct AttentionMapRequest {
  std::vector<int64_t> layers;  // empty: every layer
  std::vector<int64_t> heads;   // empty: every head
  int64_t max_cells = 96;       // slots per side of a full map; longer windows are downsampled to this
  int64_t top_k = 5;
};

// tokens: one window of token ids (without the [CLS] slot, which the model adds); labels: one per slot.
// Throws ConfigError naming --layer or --head and the valid range for an index the model lacks, and for
// linear attention. Returns {"length", "tokens", "maps": [{"layer", "head", "stride", "probabilities",
// "top_keys"}]}; "probabilities" is [cells][cells] (stride slots per cell).
nlohmann::json attention_maps(const Model& model, const std::vector<int32_t>& tokens,
                              const std::vector<std::string>& labels, const AttentionMapRequest& request,
                              Precision precision);

}  // namespace rotor
