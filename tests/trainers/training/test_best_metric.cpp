// train.best_metric names a metric the objective declares, and the trainer keeps
// the validation that is best in that metric's declared direction.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tests/trainers/training/run_fixture.h"
#include "trainers/training/trainer.h"

using namespace rotor;

namespace {

// The step and value of each validation in RUN/metrics.jsonl, and the step it marked best last.
struct Validations {
  std::vector<std::pair<int64_t, double>> values;
  int64_t marked_best = -1;
};

Validations validations(const std::filesystem::path& run, const std::string& metric) {
  Validations v;
  for (const std::string& line : test::deterministic_metrics(run)) {
    const nlohmann::json e = nlohmann::json::parse(line);
    if (e["event"] != "eval") continue;
    v.values.emplace_back(e["step"].get<int64_t>(), e["metrics"][metric].get<double>());
    if (e["best"].get<bool>()) v.marked_best = e["step"].get<int64_t>();
  }
  return v;
}

}  // namespace

TEST_CASE("a language model picks its best checkpoint by the metric train.best_metric names", "[clm]") {
  const auto dir = test::fresh_dir("best-metric-clm");
  TrainRequest r{test::tiny_run_config(dir),
                 {"train.objective=clm", "train.best_metric=accuracy", "train.eval_every=4"},
                 "",
                 (dir / "run").string()};
  REQUIRE(train(r) == 0);
  const Validations v = validations(dir / "run", "accuracy");
  REQUIRE(v.values.size() == 6);
  // Higher token accuracy is better; the first of equal ones stays the best.
  std::pair<int64_t, double> best = v.values.front();
  for (const auto& s : v.values)
    if (s.second > best.second) best = s;
  CHECK(v.marked_best == best.first);
  const nlohmann::json summary = nlohmann::json::parse(test::read_text(dir / "run" / "summary.json"));
  CHECK(summary["best_metric"] == "accuracy");
  CHECK(summary["best_step"] == best.first);
  CHECK(summary["best_value"].get<double>() == best.second);
}
