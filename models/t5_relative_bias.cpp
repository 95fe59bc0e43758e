#include "models/t5_relative_bias.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace rotor {

int64_t t5_bucket(int64_t rel, int64_t num_buckets, int64_t max_distance) {
  const int64_t half = num_buckets / 2;
  int64_t bucket = rel > 0 ? half : 0;
  const int64_t n = std::llabs(rel);
  const int64_t max_exact = half / 2;
  if (n < max_exact) return bucket + n;
  const double scaled = std::log(static_cast<double>(n) / max_exact) /
                        std::log(static_cast<double>(max_distance) / max_exact) * static_cast<double>(half - max_exact);
  return bucket + std::min(half - 1, max_exact + static_cast<int64_t>(scaled));
}

std::vector<int32_t> T5RelativeBias::buckets(int64_t length) {
  const int64_t reach = static_cast<int64_t>(by_offset_.size()) / 2;  // offsets -reach..reach are cached
  if (length - 1 > reach || by_offset_.empty()) {
    by_offset_.resize(static_cast<size_t>(2 * (length - 1) + 1));
    for (int64_t rel = -(length - 1); rel <= length - 1; ++rel)
      by_offset_[rel + length - 1] = static_cast<int32_t>(t5_bucket(rel, num_buckets_, max_distance_));
  }
  const int64_t center = static_cast<int64_t>(by_offset_.size()) / 2;
  std::vector<int32_t> ids(static_cast<size_t>(length * length));
  for (int64_t i = 0; i < length; ++i)
    for (int64_t j = 0; j < length; ++j) ids[i * length + j] = by_offset_[center + j - i];
  return ids;
}

Var T5RelativeBias::bias(const Var& table, int64_t length) {
  Var per_pair = embedding(table, buckets(length), {length, length});  // [N, N, H]
  return permute(per_pair, {2, 0, 1});                                 // [H, N, N]
}

}  // namespace rotor
