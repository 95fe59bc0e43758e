// RoPE frequency scaling for evaluation beyond the training length, against
// the formulas of HF transformers' modeling_rope_utils.py (reference notes §1.3).
#include <catch2/catch.hpp>

#include <cmath>

#include "model_test_support.h"

using namespace rotor;
using namespace rotor::model_test;

namespace {

PositionConfig scaled(const std::string& scaling, double factor) {
  PositionConfig p = rope_position();
  p.set("scaling", option<RopeScaling>(scaling));
  p.set("scaling_factor", factor);
  return p;
}

double default_theta(int64_t i, int64_t r, double base = 10000.0) { return std::pow(base, -2.0 * i / r); }

}  // namespace

TEST_CASE("rope scaling none: theta_i = base^(-2i/r), attention factor 1", "[rope][scaling]") {
  PositionConfig p = rope_position();
  p.set("base", 500.0);
  const std::vector<double> f = RotaryEmbedding::inverse_frequencies(24, p);
  REQUIRE(f.size() == 12);
  for (int64_t i = 0; i < 12; ++i) CHECK(f[i] == Approx(default_theta(i, 24, 500.0)).epsilon(1e-15));
  CHECK(f[0] == 1.0);
  CHECK(RotaryEmbedding::attention_factor(p) == 1.0);
}

TEST_CASE("rope scaling linear: every frequency divided by the factor", "[rope][scaling]") {
  const PositionConfig p = scaled("linear", 4.0);
  const std::vector<double> f = RotaryEmbedding::inverse_frequencies(64, p);
  for (int64_t i = 0; i < 32; ++i) CHECK(f[i] == Approx(default_theta(i, 64) / 4.0).epsilon(1e-15));
  CHECK(RotaryEmbedding::attention_factor(p) == 1.0);
  // position interpolation: position 4m under linear x4 has the angles of position m unscaled
  const RotaryEmbedding a(64, p), b(64, rope_position());
  const std::vector<double> ca = a.tables_at({4 * 1234}).cos.to_doubles(), cb = b.tables_at({1234}).cos.to_doubles();
  for (size_t i = 0; i < ca.size(); ++i) CHECK(ca[i] == Approx(cb[i]).margin(1e-12));
}

TEST_CASE("rope scaling ntk: base' = base * factor^(r/(r-2))", "[rope][scaling]") {
  const int64_t r = GENERATE(8, 32, 64);
  const double factor = 8.0;
  const std::vector<double> f = RotaryEmbedding::inverse_frequencies(r, scaled("ntk", factor));
  const double base2 = 10000.0 * std::pow(factor, static_cast<double>(r) / (r - 2));
  for (int64_t i = 0; i < r / 2; ++i) CHECK(f[i] == Approx(default_theta(i, r, base2)).epsilon(1e-14));
  CHECK(f[0] == 1.0);  // the highest frequency is untouched ...
  // ... and the lowest one is interpolated by exactly the factor
  CHECK(f[r / 2 - 1] == Approx(default_theta(r / 2 - 1, r) / factor).epsilon(1e-13));
  CHECK(RotaryEmbedding::attention_factor(scaled("ntk", factor)) == 1.0);
}

TEST_CASE("rope scaling yarn: HF ramp between the beta_fast and beta_slow correction dims", "[rope][scaling]") {
  // r = 64, base 1e4, original length 512:
  //   correction_dim(32) = 64 ln(512 / (32 * 2 pi)) / (2 ln 1e4) = 3.247 -> floor 3 = low
  //   correction_dim(1)  = 64 ln(512 / (1 * 2 pi))  / (2 ln 1e4) = 15.29 -> ceil 16 = high
  //   ramp_i = clamp((i - 3) / 13, 0, 1); theta'_i = theta_i (1 - ramp_i) + theta_i / s * ramp_i
  const double s = 4.0;
  PositionConfig p = scaled("yarn", s);
  p.set("original_max_len", 512);
  const std::vector<double> f = RotaryEmbedding::inverse_frequencies(64, p);
  REQUIRE(f.size() == 32);
  for (int64_t i : {0, 1, 2, 3}) CHECK(f[i] == Approx(default_theta(i, 64)).epsilon(1e-15));          // high freq kept
  for (int64_t i : {16, 17, 25, 31}) CHECK(f[i] == Approx(default_theta(i, 64) / s).epsilon(1e-15));  // low: / s
  CHECK(f[4] == Approx(default_theta(4, 64) * (12.0 / 13 + 1.0 / 13 / s)).epsilon(1e-14));
  CHECK(f[8] == Approx(default_theta(8, 64) * (8.0 / 13 + 5.0 / 13 / s)).epsilon(1e-14));
  CHECK(f[15] == Approx(default_theta(15, 64) * (1.0 / 13 + 12.0 / 13 / s)).epsilon(1e-14));
  // hand values: theta_8 = 1e4^(-1/4) = 0.1; theta'_8 = 0.1 * (8/13 + 5/52) = 0.0711538...
  CHECK(f[8] == Approx(0.07115384615384615).epsilon(1e-14));

  // attention factor 0.1 ln(s) + 1: a logit temperature (test_yarn_attention.cpp), so the tables stay pure rotations
  const double af = 0.1 * std::log(s) + 1.0;
  CHECK(RotaryEmbedding::attention_factor(p) == Approx(1.1386294361119891).epsilon(1e-15));
  CHECK(RotaryEmbedding::attention_factor(p) == Approx(af).epsilon(1e-15));
  const RotaryEmbedding rope(64, p);
  const RotaryTables t = rope.tables_at({0, 3, 4096});
  const std::vector<double> c = t.cos.to_doubles(), sn = t.sin.to_doubles();
  CHECK(c[0] == 1.0);
  for (size_t i = 0; i < c.size(); ++i) CHECK(c[i] * c[i] + sn[i] * sn[i] == Approx(1.0).epsilon(1e-13));
  CHECK(sn[32 + 8] == Approx(std::sin(3 * 0.07115384615384615)).epsilon(1e-12));
}

TEST_CASE("rope scaling yarn: the correction range follows original_max_len and clamps", "[rope][scaling]") {
  // original 4096, r 128: correction_dim(32) = 128 ln(4096 / 201.06) / 18.42 = 20.94 -> 20,
  // correction_dim(1) = 128 ln(4096 / 6.283) / 18.42 = 45.03 -> 46.
  PositionConfig p = scaled("yarn", 16.0);
  p.set("original_max_len", 4096);
  const std::vector<double> f = RotaryEmbedding::inverse_frequencies(128, p);
  CHECK(f[20] == Approx(default_theta(20, 128)).epsilon(1e-15));
  CHECK(f[21] == Approx(default_theta(21, 128) * (25.0 / 26 + 1.0 / 26 / 16)).epsilon(1e-14));
  CHECK(f[46] == Approx(default_theta(46, 128) / 16).epsilon(1e-15));
  CHECK(f[63] == Approx(default_theta(63, 128) / 16).epsilon(1e-15));
  // factor 1: frequencies and attention factor unchanged
  const PositionConfig one = scaled("yarn", 1.0);
  const std::vector<double> g = RotaryEmbedding::inverse_frequencies(64, one);
  for (int64_t i = 0; i < 32; ++i) CHECK(g[i] == Approx(default_theta(i, 64)).epsilon(1e-15));
  CHECK(RotaryEmbedding::attention_factor(one) == 1.0);
}
