// Learning-rate schedules against hand-computed values, and config validation.
#include <catch2/catch.hpp>
#include <cmath>

#include "engine/error.h"
#include "engine/optim/lr_schedule.h"

using namespace rotor;

TEST_CASE("constant schedule, with and without warm-up") {
  const LrSchedule plain = LrSchedule::constant(0.1);
  CHECK(plain.lr_at(0) == 0.1);
  CHECK(plain.lr_at(1) == 0.1);
  CHECK(plain.lr_at(1000000) == 0.1);
  const LrSchedule warm = LrSchedule::constant(0.1, 4);  // 0.1 * t / 4 below step 4
  CHECK(warm.lr_at(0) == 0.0);
  CHECK(warm.lr_at(1) == Approx(0.025));
  CHECK(warm.lr_at(2) == Approx(0.05));
  CHECK(warm.lr_at(4) == 0.1);
  CHECK(warm.lr_at(100) == 0.1);
}

TEST_CASE("linear warm-up then linear decay to a floor") {
  // lr 1, W 10, T 110, floor 0.1: decay = 0.1 + 0.9 * (110 - t) / 100
  const LrSchedule s = LrSchedule::linear_warmup_linear_decay(1.0, 10, 110, 0.1);
  CHECK(s.lr_at(0) == 0.0);
  CHECK(s.lr_at(5) == Approx(0.5));     // 1 * 5 / 10
  CHECK(s.lr_at(10) == Approx(1.0));    // 0.1 + 0.9 * 100 / 100
  CHECK(s.lr_at(35) == Approx(0.775));  // 0.1 + 0.9 * 75 / 100
  CHECK(s.lr_at(60) == Approx(0.55));   // 0.1 + 0.9 * 50 / 100
  CHECK(s.lr_at(110) == 0.1);
  CHECK(s.lr_at(500) == 0.1);
  const LrSchedule no_warmup = LrSchedule::linear_warmup_linear_decay(2.0, 0, 4);  // 2 * (4 - t) / 4
  CHECK(no_warmup.lr_at(0) == 2.0);
  CHECK(no_warmup.lr_at(1) == Approx(1.5));
  CHECK(no_warmup.lr_at(3) == Approx(0.5));
  CHECK(no_warmup.lr_at(4) == 0.0);
}

TEST_CASE("linear warm-up then cosine decay to a floor") {
  // lr 1, W 10, T 110, floor 0.1: decay = 0.1 + 0.9 * (1 + cos(pi (t - 10) / 100)) / 2
  const LrSchedule s = LrSchedule::linear_warmup_cosine(1.0, 10, 110, 0.1);
  CHECK(s.lr_at(5) == Approx(0.5));
  CHECK(s.lr_at(10) == Approx(1.0));
  CHECK(s.lr_at(35) == Approx(0.1 + 0.9 * (1 + std::sqrt(0.5)) / 2));  // cos(pi/4): 0.86819805...
  CHECK(s.lr_at(60) == Approx(0.55));                                  // cos(pi/2) = 0
  CHECK(s.lr_at(85) == Approx(0.1 + 0.9 * (1 - std::sqrt(0.5)) / 2));  // cos(3pi/4): 0.23180194...
  CHECK(s.lr_at(110) == 0.1);
  CHECK(s.lr_at(111) == 0.1);
  // Warm-up as long as the run: the peak is reached at the last step.
  const LrSchedule all_warmup = LrSchedule::linear_warmup_cosine(1.0, 8, 8);
  CHECK(all_warmup.lr_at(4) == Approx(0.5));
  CHECK(all_warmup.lr_at(8) == 0.0);
}

TEST_CASE("inverse square root: lr * min(t / W, sqrt(W / t))") {
  const LrSchedule s = LrSchedule::inverse_sqrt(1.0, 4);
  CHECK(s.lr_at(0) == 0.0);
  CHECK(s.lr_at(1) == Approx(0.25));
  CHECK(s.lr_at(2) == Approx(0.5));
  CHECK(s.lr_at(4) == Approx(1.0));
  CHECK(s.lr_at(16) == Approx(0.5));   // sqrt(4 / 16)
  CHECK(s.lr_at(100) == Approx(0.2));  // sqrt(4 / 100)
  for (int64_t t = 1; t <= 64; ++t) {
    const double W = 4, td = static_cast<double>(t);
    CHECK(s.lr_at(t) == Approx(std::min(td / W, std::sqrt(W / td))));
  }
}

TEST_CASE("a schedule built from a config matches its factory") {
  LrScheduleConfig config;
  config.kind = LrScheduleKind::cosine;
  config.lr = 3e-4;
  config.warmup_steps = 100;
  config.total_steps = 1000;
  config.min_lr = 3e-5;
  const LrSchedule from_config(config), from_factory = LrSchedule::linear_warmup_cosine(3e-4, 100, 1000, 3e-5);
  CHECK(from_config.kind() == LrSchedule::Kind::cosine);
  for (int64_t t : {0, 1, 50, 100, 101, 550, 999, 1000, 2000}) CHECK(from_config.lr_at(t) == from_factory.lr_at(t));
}

TEST_CASE("schedule configs are validated, naming the field") {
  auto config = [](LrScheduleKind kind, int64_t warmup, int64_t total) {
    LrScheduleConfig c;
    c.kind = kind;
    c.warmup_steps = warmup;
    c.total_steps = total;
    return c;
  };
  CHECK_THROWS_WITH(LrSchedule(config(LrScheduleKind::constant, -1, 0)), Catch::Contains("lr_schedule.warmup_steps"));
  CHECK_THROWS_WITH(LrSchedule(config(LrScheduleKind::linear, 100, 50)), Catch::Contains("lr_schedule.total_steps"));
  CHECK_THROWS_WITH(LrSchedule(config(LrScheduleKind::cosine, 0, 0)), Catch::Contains("lr_schedule.total_steps"));
  CHECK_THROWS_WITH(LrSchedule(config(LrScheduleKind::inverse_sqrt, 0, 0)),
                    Catch::Contains("lr_schedule.warmup_steps"));
  LrScheduleConfig negative_lr = config(LrScheduleKind::constant, 0, 0);
  negative_lr.lr = -1e-3;
  CHECK_THROWS_WITH(LrSchedule(negative_lr), Catch::Contains("lr_schedule.lr"));
  LrScheduleConfig high_floor = config(LrScheduleKind::linear, 0, 10);
  high_floor.min_lr = 1.0;
  CHECK_THROWS_WITH(LrSchedule(high_floor), Catch::Contains("lr_schedule.min_lr"));
  CHECK_THROWS_AS(LrSchedule::constant(0.1).lr_at(-1), ValueError);
}
