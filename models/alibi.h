#pragma once
// Symmetric ALiBi for encoders: logit bias -m_h |i - j| with the standard
// head slopes m_h = 2^(-8h/H) (and the rule for non-powers of two).
#include <cstdint>
#include <vector>

#include "engine/tensor.h"

namespace rotor {

std::vector<double> alibi_slopes(int64_t heads);
// [heads, 2N-1] constant per-offset bias in `dtype`: element [h][(i - j) + (N - 1)]
// = -m_h |i - j| (the PositionEncoding::relative_bias layout).
Tensor alibi_bias(int64_t heads, int64_t length, DType dtype);

}  // namespace rotor
