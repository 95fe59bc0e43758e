#pragma once
// The position-encoding variants a study can name without spelling out their
// overrides: every encoding of the table by its type (rope, sinusoidal,
// learned, t5-bias, alibi, none, ...) plus rope-half and linear-rope (linear
// attention with RoPE, RoFormer eq. 19). Preset names are
// spelt with hyphens, like configs/listops-512/*.yaml; an underscore reads as
// a hyphen (t5_bias, the position type's spelling, rope_half), and the variant
// keeps the name as written (it names the run directories).
#include <optional>
#include <string>
#include <vector>

#include "trainers/config/config.h"

namespace rotor {

std::vector<std::string> variant_preset_names();

// The overrides of preset `name` (either spelling) on top of `base` (learned sizes its table
// to the training windows, or to data.eval_max_len when that is longer); nullopt for an unknown name.
std::optional<std::vector<std::string>> variant_preset(const std::string& name, const Config& base);

}  // namespace rotor
