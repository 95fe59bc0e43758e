#pragma once
// RoPE's frequency schedules (model.position.scaling and resonance): the
// frequencies theta_i, i < r/2, that q and k turn by, for evaluation beyond the
// training length or, for resonance, in training too. All in double. Each
// schedule cites its source in rope_scaling.cpp.
#include <cstdint>
#include <vector>

#include "models/model_config.h"

namespace rotor {

// theta_i for r rotated dims under the configured scaling, for a forward whose
// positions reach `length` - 1 (dynamic_ntk and longrope read it; at or below
// original_max_len dynamic_ntk's are plain RoPE's, the same doubles, and
// longrope's take the short factors), then with each wavelength rounded to an
// integer when model.position.resonance is set.
std::vector<double> scaled_inverse_frequencies(int64_t r, const PositionConfig& config, int64_t length = 0);

// Whether the frequencies depend on the forward's length (dynamic_ntk, longrope).
bool frequencies_follow_length(const PositionConfig& config);

// Resonance RoPE (Wang et al. 2024, arXiv 2403.00071, Algorithm 1): each
// wavelength 2 pi / theta_i rounded to the nearest integer, theta_i = 2 pi / round(2 pi / theta_i);
// a frequency of 0 (an unrotated pair) stays 0.
std::vector<double> resonance_frequencies(std::vector<double> frequencies);

}  // namespace rotor
