#pragma once
// Checkpoints store the resolved config with every key. A config stored before
// a key existed lacks it, and its run was trained with the behaviour of that
// time, which is not always the key's default: parsed as it is, the run would
// be evaluated or resumed as another model without a word.
#include <string>

namespace rotor {

// `stored_yaml` with the keys it lacks set to the values they had when it was
// written (unchanged when it lacks none), to parse in its place:
//   model.embedding_scale, model.position.scale: before they existed, sinusoidal
//   ran with Vaswani's scales (sqrt_d, sqrt(1/2)); the other encodings with today's defaults.
std::string upgrade_stored_config(const std::string& stored_yaml);

}  // namespace rotor
