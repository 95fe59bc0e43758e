#pragma once
// RoPE's long-term decay (RoFormer §3.4.3, Figure 2) for a head dimension d
// and base b, with theta_i = b^(-2i/d):
//   bound(r) = (1 / (d/2)) sum_{j=1..d/2} |S_j|,  S_j = sum_{i<j} e^{i r theta_i}
// the relative upper bound of the paper, and
//   score(r) = sum_i 2 cos(r theta_i)
// the attention logit q^T R_r k of all-ones q and k (what Figure 2-style
// plots of rotary attention show).
#include <cstdint>
#include <vector>

namespace rotor {

struct RopeDecayPoint {
  int64_t key_position = 0;
  int64_t distance = 0;  // key_position - query_position
  double bound = 0.0;
  double score = 0.0;
};

// Keys at positions 0..max_distance against a query at query_position.
// Throws ConfigError for an odd or non-positive head_dim, base <= 1 or a
// negative distance or position, and for a head_dim above 4096 or a
// max_distance above 2^20 (the work is their product).
std::vector<RopeDecayPoint> rope_decay(int64_t head_dim, double base, int64_t max_distance, int64_t query_position);

}  // namespace rotor
