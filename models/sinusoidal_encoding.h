#pragma once
// Vaswani et al. absolute encoding, added to the token embeddings (times
// model.position.scale x token RMS / sqrt(1/2)): PE[p, 2i] = sin(p / 10000^(2i/d)),
// PE[p, 2i+1] = cos(same).
#include <cstdint>
#include <vector>

#include "engine/tensor.h"
#include "models/position_option.h"

namespace rotor {

// [length, d] table computed in double, returned in `dtype`; any length.
Tensor sinusoidal_table(int64_t length, int64_t d, DType dtype);
// The rows of the table at `positions`: [positions.size(), d].
Tensor sinusoidal_rows(const std::vector<int64_t>& positions, int64_t d, DType dtype);

// model.position.scale, read by both absolute encodings (sinusoidal, learned).
PositionOption absolute_position_scale_option();

}  // namespace rotor
