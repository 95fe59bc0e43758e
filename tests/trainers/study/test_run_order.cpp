// The order a study's --jobs children start in (trainers/study/run_order.h):
// longest first, ties and unknown lengths in the spec's order; the lengths
// come from each config's timed step and its steps left.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "tests/trainers/study/study_fixture.h"
#include "trainers/run/run_directory.h"
#include "trainers/study/run_order.h"
#include "trainers/study/run_results.h"
#include "trainers/training/trainer.h"

namespace rotor {
namespace {

std::vector<std::string> ids(const std::vector<StudyRun>& runs) {
  std::vector<std::string> out;
  for (const StudyRun& r : runs) out.push_back(r.id);
  return out;
}

StudyRun order_run(const std::string& id) {
  StudyRun r;
  r.id = id;
  return r;
}

}  // namespace

TEST_CASE("run order: longest first, ties and unknown lengths in the spec's order", "[study]") {
  const std::map<std::string, double> seconds{{"a", 10}, {"b", 30}, {"c", -1}, {"d", 30}, {"e", 0}, {"f", -1}};
  const std::vector<StudyRun> runs{order_run("a"), order_run("b"), order_run("c"),
                                   order_run("d"), order_run("e"), order_run("f")};
  const auto sorted = longest_first(runs, [&](const StudyRun& r) { return seconds.at(r.id); });
  CHECK(ids(sorted) == std::vector<std::string>{"b", "d", "a", "e", "c", "f"});
  CHECK(ids(longest_first({}, [](const StudyRun&) { return 1.0; })).empty());
}

TEST_CASE("run order: a config's step times its runs, and a run's committed steps shorten it", "[study][slow]") {
  const auto dir = test::fresh_dir("run-order");
  // Two configs whose steps differ ~6x here (3 ms against 18 ms): wide enough that a noisy host keeps the
  // deep one's whole run above the shallow one's and its last step below it. Seed 2 of the deep one has
  // 23 of its 24 steps done. (1 layer against 4 at d_model 16, ~3.7x, flipped on a loaded CI machine.)
  const StudySpec spec = parse_study_spec(
      test::tiny_study_spec(dir,
                            "set: {train.max_steps: 24, train.checkpoint_every: 4}\nseeds: [1, 2]\n"
                            "variants:\n  - {name: shallow, set: {model.layers: 1}}\n"
                            "  - {name: deep, set: {model.layers: 3, model.d_model: 48, model.d_ff: 96}}\n"));
  const std::string out = (dir / "out").string();
  const StudyRun deep2 = spec.runs()[3];
  REQUIRE(deep2.id == "deep-seed2");
  TrainRequest partial{spec.base, spec.run_overrides(deep2), "", run_directory(out, deep2)};
  partial.stop_after = 23;
  REQUIRE(train(partial) == 0);
  const auto order = ids(longest_runs_first(spec, out, spec.runs(), 2));
  CHECK(order == std::vector<std::string>{"deep-seed1", "shallow-seed1", "shallow-seed2", "deep-seed2"});
}

}  // namespace rotor
