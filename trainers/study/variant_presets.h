#pragma once
// The position-encoding variants a study can name without spelling out their
// overrides: rope, rope-half, sinusoidal, t5_bias, alibi, learned, none and
// linear-rope (linear attention with RoPE, RoFormer eq. 19).
#include <optional>
#include <string>
#include <vector>

#include "trainers/config/config.h"

namespace rotor {

std::vector<std::string> variant_preset_names();

// The overrides of preset `name` on top of `base` (learned sizes its table
// to the training windows); nullopt for an unknown name.
std::optional<std::vector<std::string>> variant_preset(const std::string& name, const Config& base);

}  // namespace rotor
