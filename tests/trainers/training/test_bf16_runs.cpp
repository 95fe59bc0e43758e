// Training runs with run.precision bf16: the same bits at any thread count
// (resume: test_resume.cpp), the precision recorded in the run's config, and
// checkpoints that hold fp32 weights either way, so a bf16 run's checkpoint
// evaluates in fp32 and an fp32 run's in bf16, with scores a bf16 rounding
// apart.
#include <catch2/catch.hpp>

#include <cmath>

#include "datasets/dataset.h"
#include "storage/checkpoint.h"
#include "tests/trainers/training/run_fixture.h"
#include "trainers/config/config.h"
#include "trainers/training/restored_evaluation.h"
#include "trainers/training/restored_model.h"
#include "trainers/training/trainer.h"

using namespace rotor;

namespace {

// Wide enough that the products are cut into tiles shared between threads.
const std::vector<std::string> kWide = {"model.d_model=64", "model.heads=4", "model.d_ff=256", "train.max_steps=8",
                                        "run.precision=bf16"};

std::vector<std::string> with(std::vector<std::string> overrides, const std::string& extra) {
  overrides.push_back(extra);
  return overrides;
}

SplitScores val_scores(const std::string& checkpoint, const std::string& precision) {
  const RestoredModel r = restore_model(checkpoint, {"run.precision=" + precision});
  CHECK(option_name(r.header.config.run.precision) == precision);
  LoadOptions opt;
  opt.tokenizer = r.header.tokenizer;
  opt.labels = r.header.labels;
  const Dataset data = load_dataset(r.header.config.data, opt);
  DataConfig at_length = r.header.config.data;
  at_length.eval_max_len = eval_max_len(at_length);
  return evaluate_at_length(r, data.split("val"), at_length, at_length.eval_max_len, checkpoint);
}

}  // namespace

TEST_CASE("a bf16 run is bit-identical with 1 and 2 threads", "[bf16][determinism]") {
  const auto dir = test::fresh_dir("bf16-threads");
  const std::string objective = GENERATE(as<std::string>{}, "classify", "clm");
  const std::string config = test::tiny_run_config(dir);
  const std::vector<std::string> overrides = with(kWide, "train.objective=" + objective);
  REQUIRE(train({config, with(overrides, "run.threads=1"), "", (dir / "one").string()}) == 0);
  REQUIRE(train({config, with(overrides, "run.threads=2"), "", (dir / "two").string()}) == 0);
  CHECK(test::deterministic_metrics(dir / "one") == test::deterministic_metrics(dir / "two"));
  const auto a = read_checkpoint((dir / "one" / "checkpoints" / "step-00000008.h5").string());
  const auto b = read_checkpoint((dir / "two" / "checkpoints" / "step-00000008.h5").string());
  for (const auto& [key, t] : a.tensors) {
    INFO(key);
    CHECK(t.to_doubles() == b.tensors.at(key).to_doubles());
  }
  CHECK_THAT(test::read_text(dir / "one" / "config.yaml"), Catch::Contains("precision: bf16"));
}

TEST_CASE("a checkpoint evaluates in either precision: fp32 weights, scores a bf16 rounding apart", "[bf16][eval]") {
  const auto dir = test::fresh_dir("bf16-eval");
  const std::string objective = GENERATE(as<std::string>{}, "classify", "clm");
  const std::string trained_in = GENERATE(as<std::string>{}, "fp32", "bf16");
  CAPTURE(objective, trained_in);
  REQUIRE(train({test::tiny_run_config(dir),
                 {"train.objective=" + objective, "run.precision=" + trained_in, "train.max_steps=8"},
                 "",
                 (dir / "run").string()}) == 0);
  const std::string checkpoint = (dir / "run" / "checkpoints" / "step-00000008.h5").string();
  CHECK(read_checkpoint(checkpoint).tensors.begin()->second.dtype() == DType::F32);
  const SplitScores fp32 = val_scores(checkpoint, "fp32"), bf16 = val_scores(checkpoint, "bf16");
  CAPTURE(fp32.get("loss"), bf16.get("loss"));
  REQUIRE(std::isfinite(bf16.get("loss")));
  CHECK(bf16.get("loss") != fp32.get("loss"));
  CHECK(std::abs(bf16.get("loss") - fp32.get("loss")) < 0.01 * fp32.get("loss"));
}
