#include "trainers/distributed/ordered_sum.h"

#include <cstddef>

namespace rotor {
namespace {

template <typename T>
T tree_sum(const std::vector<const T*>& parts, size_t lo, size_t hi, int64_t i) {
  if (hi - lo == 1) return parts[lo][i];
  const size_t mid = lo + (hi - lo) / 2;
  return tree_sum(parts, lo, mid, i) + tree_sum(parts, mid, hi, i);
}

bool has_node(int64_t lo, int64_t hi, int64_t want_lo, int64_t want_hi) {
  if (lo == want_lo && hi == want_hi) return true;
  if (hi - lo <= 1) return false;
  const int64_t mid = lo + (hi - lo) / 2;
  return want_hi <= mid ? has_node(lo, mid, want_lo, want_hi) : want_lo >= mid && has_node(mid, hi, want_lo, want_hi);
}

}  // namespace

template <typename T>
void ordered_sum(const std::vector<const T*>& parts, T* out, int64_t count) {
  if (parts.empty()) return;
  for (int64_t i = 0; i < count; ++i) out[i] = tree_sum(parts, 0, parts.size(), i);
}

bool tree_has_blocks(int64_t n, int64_t blocks) {
  if (blocks <= 0 || n % blocks != 0) return false;
  const int64_t width = n / blocks;
  for (int64_t b = 0; b < blocks; ++b)
    if (!has_node(0, n, b * width, (b + 1) * width)) return false;
  return true;
}

template void ordered_sum<float>(const std::vector<const float*>&, float*, int64_t);
template void ordered_sum<double>(const std::vector<const double*>&, double*, int64_t);

}  // namespace rotor
