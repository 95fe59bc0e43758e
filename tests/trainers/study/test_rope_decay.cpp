// `rotor analyze rope-decay`: RoFormer Figure 2's relative upper bound, with
// values pinned to an independent Python computation (as in the models test
// of the rotary tables), and the all-ones attention score.
#include <catch2/catch.hpp>

#include <cmath>

#include "trainers/config/config.h"
#include "trainers/study/rope_decay.h"

using namespace rotor;

TEST_CASE("rope decay: the paper's bound for d = 128, base 10000", "[study][decay]") {
  const std::vector<RopeDecayPoint> d = rope_decay(128, 10000.0, 256, 0);
  REQUIRE(d.size() == 257);
  CHECK(d[0].bound == Approx(32.5).epsilon(1e-15));
  CHECK(d[1].bound == Approx(31.53816614265808).epsilon(1e-12));
  CHECK(d[5].bound == Approx(20.845357778356764).epsilon(1e-12));
  CHECK(d[100].bound == Approx(10.227329948505133).epsilon(1e-12));
  CHECK(d[256].bound == Approx(6.543097322978939).epsilon(1e-12));
  // All-ones q and k: every pair contributes 2 cos(r theta_i); at r = 0 that is d.
  CHECK(d[0].score == Approx(128.0));
  double score = 0;
  for (int i = 0; i < 64; ++i) score += 2 * std::cos(7.0 * std::pow(10000.0, -2.0 * i / 128));
  CHECK(d[7].score == Approx(score).epsilon(1e-12));
}

TEST_CASE("rope decay: a query inside the range sees the same curve both ways", "[study][decay]") {
  const std::vector<RopeDecayPoint> d = rope_decay(64, 500.0, 40, 20);
  CHECK(d[20].distance == 0);
  CHECK(d[20].bound == Approx(16.5));
  for (int r = 1; r <= 20; ++r) {
    CHECK(d[20 + r].bound == Approx(d[20 - r].bound).epsilon(1e-14));
    CHECK(d[20 + r].distance == -d[20 - r].distance);
  }
  CHECK_THROWS_AS(rope_decay(63, 10000.0, 10, 0), ConfigError);
  CHECK_THROWS_AS(rope_decay(64, 1.0, 10, 0), ConfigError);
  CHECK_THROWS_AS(rope_decay(64, 10000.0, 10, 11), ConfigError);
}

TEST_CASE("rope decay: sizes beyond any use are refused before the first point is computed", "[study][decay]") {
  CHECK_THROWS_WITH(rope_decay(128, 10000.0, 1000000000000, 0),
                    "--max-distance: expected 0..1048576, got 1000000000000");
  CHECK_THROWS_WITH(rope_decay(10000000000, 10000.0, 256, 0),
                    "--head-dim: expected a positive even number up to 4096, got 10000000000");
  CHECK(rope_decay(4096, 10000.0, 8, 0).size() == 9);
  CHECK(rope_decay(2, 10000.0, 1 << 20, 0).size() == (1u << 20) + 1);
}
