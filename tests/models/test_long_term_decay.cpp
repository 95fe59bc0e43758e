// RoFormer §3.4.3 (Figure 2): with d = 128, base 10000, theta_i = base^(-2i/d)
// and S_j = sum_{i<j} e^{i r theta_i}, the bound's factor
//   D(r) = (1 / (d/2)) sum_{j=1..d/2} |S_j|
// decays with the relative distance r. Computed twice: from RotaryEmbedding's
// cos/sin tables, and by a plain complex loop over independently computed
// frequencies; a few values are pinned to an independent Python computation.
#include <catch2/catch.hpp>

#include <algorithm>
#include <complex>

#include "model_test_support.h"

using namespace rotor;
using namespace rotor::model_test;

namespace {

constexpr int64_t kDim = 128, kHalf = kDim / 2, kMaxDistance = 256;

// The plain version: std::complex, thetas from the formula.
double decay_complex(int64_t r) {
  std::complex<double> s = 0;
  double total = 0;
  for (int64_t i = 0; i < kHalf; ++i) {
    s += std::polar(1.0, static_cast<double>(r) * std::pow(10000.0, -2.0 * i / kDim));
    total += std::abs(s);
  }
  return total / kHalf;
}

// From the model's rotary tables: e^{i r theta_i} = cos[r, i] + i sin[r, i].
std::vector<double> decay_from_tables() {
  RotaryEmbedding rope(kDim, rope_position());
  const RotaryTables t = rope.tables(kMaxDistance + 1);
  const std::vector<double> c = t.cos.to_doubles(), s = t.sin.to_doubles();
  std::vector<double> out;
  for (int64_t r = 0; r <= kMaxDistance; ++r) {
    double re = 0, im = 0, total = 0;
    for (int64_t i = 0; i < kHalf; ++i) {
      re += c[r * kHalf + i];
      im += s[r * kHalf + i];
      total += std::hypot(re, im);
    }
    out.push_back(total / kHalf);
  }
  return out;
}

}  // namespace

TEST_CASE("long-term decay: the model's frequencies are the paper's theta_i", "[rope][decay]") {
  RotaryEmbedding rope(kDim, rope_position());
  REQUIRE(rope.frequencies().size() == static_cast<size_t>(kHalf));
  for (int64_t i = 0; i < kHalf; ++i)
    CHECK(rope.frequencies()[i] == Approx(std::pow(10000.0, -2.0 * i / kDim)).epsilon(1e-15));
}

TEST_CASE("long-term decay: mean |S_j| over 0..256 behaves as in RoFormer Figure 2", "[rope][decay]") {
  const std::vector<double> D = decay_from_tables();
  REQUIRE(D.size() == kMaxDistance + 1);
  for (int64_t r = 0; r <= kMaxDistance; ++r) CHECK(D[r] == Approx(decay_complex(r)).epsilon(1e-12));

  // r = 0: every term is 1, |S_j| = j, mean over j = 1..64 is 32.5, the maximum.
  CHECK(D[0] == Approx(32.5).epsilon(1e-15));
  for (int64_t r = 1; r <= kMaxDistance; ++r) CHECK(D[r] < D[0]);
  // Strictly decreasing at first, then oscillating around a decaying trend:
  // means over consecutive windows of 32 distances decrease strictly.
  for (int64_t r = 1; r <= 18; ++r) CHECK(D[r] < D[r - 1]);
  std::vector<double> window;
  for (int64_t start = 0; start + 32 <= kMaxDistance + 1; start += 32) {
    double s = 0;
    for (int64_t r = start; r < start + 32; ++r) s += D[r];
    window.push_back(s / 32);
  }
  REQUIRE(window.size() == 8);
  for (size_t w = 1; w < window.size(); ++w) CHECK(window[w] < window[w - 1]);
  CHECK(D[kMaxDistance] < 0.25 * D[0]);

  // Pinned values (Python cmath, independent of this code).
  CHECK(D[1] == Approx(31.53816614265808).epsilon(1e-12));
  CHECK(D[5] == Approx(20.845357778356764).epsilon(1e-12));
  CHECK(D[20] == Approx(15.242430108721914).epsilon(1e-12));
  CHECK(D[100] == Approx(10.227329948505133).epsilon(1e-12));
  CHECK(D[256] == Approx(6.543097322978939).epsilon(1e-12));
  CHECK(*std::min_element(D.begin(), D.end()) == Approx(6.414997029110423).epsilon(1e-12));  // at r = 236
  CHECK(std::min_element(D.begin(), D.end()) - D.begin() == 236);
}
