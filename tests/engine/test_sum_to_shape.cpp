// kernels::sum_to_shape: the gradient of a broadcast input. Each output sums
// its sources in index order, whether the reduced dims lead (the row-wise
// path) or not (the strided path), so the bits are those of a plain loop.
#include <catch2/catch.hpp>

#include <vector>

#include "engine/kernels/elementwise.h"
#include "engine/random.h"

using namespace rotor;

namespace {

std::vector<float> noise(int64_t n, uint64_t seed) {
  std::vector<float> v(static_cast<size_t>(n));
  const RandomKey key{seed, stream_id("sum_to_shape"), 0};
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(key.normal(static_cast<uint64_t>(i)));
  return v;
}

}  // namespace

TEST_CASE("sum_to_shape over leading dims matches a sequential loop bit for bit") {
  const int64_t rows = 3 * 337, cols = 1000;  // several column chunks
  const std::vector<float> g = noise(rows * cols, 1);
  for (const Shape& to : {Shape{cols}, Shape{1, cols}, Shape{1, 1, cols}}) {
    std::vector<float> acc = noise(cols, 2), expected = acc;
    for (int64_t j = 0; j < cols; ++j) {
      float s = 0.0f;
      for (int64_t r = 0; r < rows; ++r) s += g[r * cols + j];
      expected[j] += s;
    }
    kernels::sum_to_shape<float>(g.data(), {3, 337, cols}, acc.data(), to);
    INFO("to rank " << to.size());
    CHECK(acc == expected);
  }
}

TEST_CASE("sum_to_shape over a middle dim matches a sequential loop bit for bit") {
  const int64_t a = 7, b = 300, c = 40;
  const std::vector<float> g = noise(a * b * c, 3);
  std::vector<float> acc(static_cast<size_t>(a * c), 0.0f), expected = acc;
  for (int64_t i = 0; i < a; ++i)
    for (int64_t k = 0; k < c; ++k) {
      float s = 0.0f;
      for (int64_t j = 0; j < b; ++j) s += g[(i * b + j) * c + k];
      expected[i * c + k] += s;
    }
  kernels::sum_to_shape<float>(g.data(), {a, b, c}, acc.data(), {a, 1, c});
  CHECK(acc == expected);
}
