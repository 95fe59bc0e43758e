// The bulk Philox path (RandomKey::bits_block, SIMD) and the dropout mask built
// on it are the same pure function of (key, index) as the scalar RandomKey::bits.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "engine/ops.h"
#include "engine/random.h"

using namespace rotor;

TEST_CASE("bits_block gives bits() word for word, across 32-bit counter wraps") {
  const RandomKey key{0x1234567890ull, stream_id("block-test"), 0x100000003ull};
  const struct {
    uint64_t first;
    int64_t count;
  } cases[] = {{0, 1}, {0, 16}, {5, 37}, {0xFFFFFFF9ull, 20}, {0x2FFFFFFF0ull, 48}, {~0ull - 20, 15}};
  for (const auto& c : cases) {
    std::vector<uint32_t> words(static_cast<size_t>(4 * c.count), 0xDEADBEEFu);
    key.bits_block(c.first, c.count, words.data());
    for (int64_t i = 0; i < c.count; ++i) {
      const auto b = key.bits(c.first + static_cast<uint64_t>(i));
      for (int k = 0; k < 4; ++k) {
        INFO("first " << c.first << " i " << i << " word " << k);
        REQUIRE(words[4 * i + k] == b[k]);
      }
    }
  }
}

TEST_CASE("dropout keeps element i when the top 24 bits of word i % 4 of bits(i / 4) are >= p") {
  const RandomKey key{11, stream_id("dropout.mask"), 5};
  const double p = 0.3;
  const int64_t n = 1000 + 3;  // not a multiple of the kernel's block
  const Tensor y = dropout(Var(Tensor::full({n}, DType::F64, 1.0)), p, key, true).value();
  const uint32_t threshold = static_cast<uint32_t>(p * 16777216.0);
  for (int64_t i = 0; i < n; ++i) {
    const bool keep = (key.bits(static_cast<uint64_t>(i / 4))[i % 4] >> 8) >= threshold;
    INFO("element " << i);
    REQUIRE(y.data<double>()[i] == (keep ? 1.0 / (1.0 - p) : 0.0));
  }
}
