#include "trainers/study/rope_decay.h"

#include <cmath>
#include <complex>
#include <cstdlib>

#include "models/rotary_embedding.h"
#include "trainers/config/config.h"

namespace rotor {
namespace {

// Every point is computed before the first is printed (head_dim / 2 rotations each): bounded so that the
// largest request, 2^11 x 2^20 rotations, takes seconds and its points a few tens of MB.
constexpr int64_t kLargestHeadDim = 1 << 12;
constexpr int64_t kLargestDistance = 1 << 20;

}  // namespace

std::vector<RopeDecayPoint> rope_decay(int64_t head_dim, double base, int64_t max_distance, int64_t query_position) {
  if (head_dim <= 0 || head_dim % 2 != 0 || head_dim > kLargestHeadDim)
    throw ConfigError("--head-dim: expected a positive even number up to " + std::to_string(kLargestHeadDim) +
                      ", got " + std::to_string(head_dim));
  if (!(base > 1)) throw ConfigError("--base: must be > 1");
  if (max_distance < 0 || max_distance > kLargestDistance)
    throw ConfigError("--max-distance: expected 0.." + std::to_string(kLargestDistance) + ", got " +
                      std::to_string(max_distance));
  if (query_position < 0 || query_position > max_distance)
    throw ConfigError("--query-index: expected a position in 0.." + std::to_string(max_distance));
  PositionConfig p;
  p.type = "rope";
  p.set("base", base);
  // The model's own frequencies, so the curve is the one a model with this
  // head dimension and base has.
  const std::vector<double> theta = RotaryEmbedding::inverse_frequencies(head_dim, p);
  std::vector<RopeDecayPoint> out;
  for (int64_t k = 0; k <= max_distance; ++k) {
    RopeDecayPoint point;
    point.key_position = k;
    point.distance = k - query_position;
    const double r = static_cast<double>(std::llabs(point.distance));
    std::complex<double> partial = 0.0;
    double sum_abs = 0.0, score = 0.0;
    for (double t : theta) {
      partial += std::polar(1.0, r * t);
      sum_abs += std::abs(partial);
      score += 2.0 * std::cos(r * t);
    }
    point.bound = sum_abs / static_cast<double>(theta.size());
    point.score = score;
    out.push_back(point);
  }
  return out;
}

}  // namespace rotor
