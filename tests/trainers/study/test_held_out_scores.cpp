// A study's held-out scores are computed once: the trainer takes a split's final score from the length sweep's
// point at the split's own length, where that point scores the split as the trainer would, and evaluates it itself
// everywhere else (own_length_point). The study end to end: tests/cli/test_sequence_objectives.sh.
#include <catch2/catch.hpp>

#include "trainers/config/config.h"
#include "trainers/study/length_sweep.h"

using namespace rotor;

namespace {

Config with_objective(ObjectiveKind objective, int64_t eval_max_len) {
  Config c;
  c.train.objective = objective;
  c.data.max_len = 64;
  c.data.eval_max_len = eval_max_len;
  return c;
}

}  // namespace

TEST_CASE("the sweep scores a held-out split for the trainer only where it scores it as the trainer would", "[study]") {
  const Config sequences = with_objective(ObjectiveKind::transduction, 120);
  // A split's one unscaled point, here beside a scaled one of another split: that point, whatever its length (a
  // sequence task's samples are never cut).
  const std::vector<SweepCell> plan{sweep_point("test", 120), sweep_point("test_200", 600),
                                    sweep_point("test_200", 600, "ntk")};
  REQUIRE(own_length_point(plan, sequences, "test_200"));
  CHECK(own_length_point(plan, sequences, "test_200")->length == 600);
  CHECK(own_length_point(plan, sequences, "test")->length == 120);
  CHECK_FALSE(own_length_point(plan, sequences, "val"));  // not in the sweep: the trainer scores it

  // Several lengths of one split: none of them is the trainer's.
  CHECK_FALSE(own_length_point({sweep_point("test", 64), sweep_point("test", 256)}, sequences, "test"));

  // A classifier's documents are cut at data.eval_max_len: a longer point scores them whole, unlike the trainer.
  CHECK(own_length_point({sweep_point("test_256", 256)}, with_objective(ObjectiveKind::classify, 256), "test_256"));
  CHECK_FALSE(
      own_length_point({sweep_point("test_256", 256)}, with_objective(ObjectiveKind::classify, 128), "test_256"));
  CHECK(own_length_point({sweep_point("test", 64)}, with_objective(ObjectiveKind::classify, 0),
                         "test"));  // 0: max_len

  // A language model's stream windows are strided and budgeted as the sweep asks, not as the trainer scores.
  SweepCell windows = sweep_point("test", 64);
  windows.stream_windows = true;
  CHECK_FALSE(own_length_point({windows}, with_objective(ObjectiveKind::clm, 64), "test"));
}
