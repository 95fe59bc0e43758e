#pragma once
// model.interleaved_position (models/model_config.h: InterleavedPosition): a
// second encoding on some layers, built from the same table as model.position.
// The pair must be able to share one model:
//   - both act inside attention (rotation, logit bias), none on the embeddings,
//     which every layer sees (sinusoidal, learned);
//   - the window's positions and the query scaling are the model's, so the
//     interleaved encoding leaves randomized, randomized_evaluation,
//     max_positions and logn_scaling to model.position;
//   - their parameters have distinct names and are shared over layers (an
//     encoding with a module per layer, FIRE or per-layer T5, would hold
//     modules for layers it never serves).
#include <string>
#include <vector>

#include "models/model_config.h"

namespace rotor {

// The model.position.* keys that belong to the model, not to one layer's encoding.
std::vector<std::string> model_wide_position_keys();

// Throws ModelConfigError naming model.interleaved_position.<key> when the
// interleaving or its encoding is not one this model can take. Off (every 0):
// its keys must be unset.
void validate_interleaved_position(const ModelConfig& config);

}  // namespace rotor
