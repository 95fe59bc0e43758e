#pragma once
// Counter-based randomness (Philox4x32-10, Salmon et al. 2011). A random value
// is a pure function of (seed, stream, step, index): no hidden state, so the
// bits never depend on thread scheduling, and resuming only needs the step.
//
//   seed   - the run's seed
//   stream - what the numbers are for (init of a named parameter, a dropout
//            site, the data shuffle...); use stream_id("name") for names
//   step   - training step, epoch, or any other outer counter
//   index  - element index within that draw
#include <array>
#include <cstdint>
#include <string_view>

namespace rotor {

std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key);

// 64-bit FNV-1a of a name, mixed: a stable stream id for a string.
uint64_t stream_id(std::string_view name);

struct RandomKey {
  uint64_t seed = 0;
  uint64_t stream = 0;
  uint64_t step = 0;

  // Four independent 32-bit words for element `index`.
  std::array<uint32_t, 4> bits(uint64_t index) const;
  // bits(first + i)[k] into words[4 * i + k] for i < count: the same values
  // as `bits`, 16 counters at a time with AVX-512, for bulk users (dropout).
  void bits_block(uint64_t first, int64_t count, uint32_t* words) const;
  // Uniform in [0, 1) with 53 bits of resolution.
  double uniform_double(uint64_t index) const;
  // Standard normal (Box-Muller over the element's own words).
  double normal(uint64_t index) const;
  // Uniform integer in [0, n), n > 0 (Lemire's multiply-shift over 64 bits).
  uint64_t below(uint64_t index, uint64_t n) const;
};

}  // namespace rotor
