// The training loop's stopping rules and the files a run leaves behind.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "tests/trainers/training/run_fixture.h"
#include "trainers/training/trainer.h"

using namespace rotor;

namespace {
std::string read_back(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST_CASE("early stopping ends the run after `patience` evaluations without improvement") {
  const auto dir = test::fresh_dir("early-stop");
  // A learning rate too small to change any prediction: the first evaluation
  // stays the best, the second one is stale.
  TrainRequest r{test::tiny_run_config(dir),
                 {"train.lr=1e-12", "train.min_lr=0", "train.early_stopping_patience=1", "train.eval_every=4"},
                 "",
                 (dir / "run").string()};
  REQUIRE(train(r) == 0);
  const std::string summary = read_back(dir / "run" / "summary.json");
  CHECK_THAT(summary, Catch::Contains("\"steps\":8,"));
  CHECK_THAT(summary, Catch::Contains("\"best_step\":4,"));
  CHECK_THAT(summary, Catch::Contains("\"test\":{\"accuracy\":"));
  // The best checkpoint survives keep_last.
  CHECK(std::filesystem::exists(dir / "run" / "checkpoints" / "step-00000004.h5"));
  CHECK_THAT(read_back(dir / "run" / "config.yaml"), Catch::Contains("early_stopping_patience: 1"));
}

TEST_CASE("a run by epochs stops at the epoch boundary and logs every event as JSON lines") {
  const auto dir = test::fresh_dir("epochs");
  TrainRequest r{test::tiny_run_config(dir),
                 {"train.max_steps=0", "train.max_epochs=2", "train.eval_every=0"},
                 "",
                 (dir / "run").string()};
  REQUIRE(train(r) == 0);
  const auto lines = test::deterministic_metrics(dir / "run");
  int evals = 0;
  for (const std::string& line : lines) {
    CHECK(line.front() == '{');
    CHECK(line.back() == '}');
    if (line.find("\"event\":\"eval\"") != std::string::npos) ++evals;
  }
  CHECK(evals == 2);  // one per epoch
  // 160 training windows in batches of 16 with accumulation 2: 5 updates per epoch.
  CHECK_THAT(read_back(dir / "run" / "summary.json"), Catch::Contains("\"steps\":10,"));
}

TEST_CASE("a run by epochs whose warm-up outlasts it is refused once the steps per epoch are known") {
  const auto dir = test::fresh_dir("epochs-warmup");
  // 5 updates per epoch (see above): 2 epochs are 10 steps, shorter than a 12-step warm-up.
  TrainRequest r{test::tiny_run_config(dir),
                 {"train.max_steps=0", "train.max_epochs=2", "train.warmup_steps=12"},
                 "",
                 (dir / "run").string()};
  CHECK_THROWS_WITH(train(r),
                    "train.warmup_steps: 12 warm-up steps are longer than the whole run of 10 steps "
                    "(train.max_epochs 2 x 5 steps an epoch), so the learning rate would never decay; set "
                    "train.warmup_steps to about a tenth of the run (1)");
  CHECK_FALSE(std::filesystem::exists(dir / "run" / "checkpoints" / "latest"));
}
