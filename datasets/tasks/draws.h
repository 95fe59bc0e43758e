#pragma once
// Consecutive draws of one sample's random key: the n-th call reads draw n,
// so a generator is a pure function of its key.
#include <cstdint>

#include "engine/random.h"

namespace rotor {

class Draws {
 public:
  explicit Draws(const RandomKey& key) : key_(key) {}
  // Uniform in [0, n).
  int64_t below(int64_t n) { return static_cast<int64_t>(key_.below(next_++, static_cast<uint64_t>(n))); }
  // Uniform in [lo, hi].
  int64_t between(int64_t lo, int64_t hi) { return lo + below(hi - lo + 1); }

 private:
  RandomKey key_;
  uint64_t next_ = 0;
};

}  // namespace rotor
