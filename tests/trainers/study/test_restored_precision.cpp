// A study computes on a finished run's checkpoint as `rotor eval` does: in
// the run's precision. A bf16 classifier's length-sweep cell is eval's bf16
// evaluation bit for bit (and an fp32 evaluation's last bits differ), and its
// attention check does not depend on the precision of the thread that asks.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "datasets/dataset.h"
#include "engine/precision.h"
#include "tests/trainers/training/run_fixture.h"
#include "trainers/run/run_directory.h"
#include "trainers/study/attention_usage.h"
#include "trainers/study/length_sweep.h"
#include "trainers/training/restored_evaluation.h"
#include "trainers/training/restored_model.h"
#include "trainers/training/trainer.h"

using namespace rotor;
namespace fs = std::filesystem;

namespace {

// A finished bf16 classifier run in dir/run; its directory.
std::string trained_bf16_classifier(const fs::path& dir) {
  const std::string run_dir = (dir / "run").string();
  REQUIRE(train({test::tiny_run_config(dir), {"run.precision=bf16", "train.max_steps=8"}, "", run_dir}) == 0);
  return run_dir;
}

// `rotor eval CHECKPOINT --split val --max-len LENGTH [--set OVERRIDES]`'s scores.
SplitScores eval_scores(const std::string& checkpoint, int64_t length, const std::vector<std::string>& overrides) {
  const RestoredModel r = restore_model(checkpoint, overrides);
  LoadOptions opt;
  opt.tokenizer = r.header.tokenizer;
  opt.labels = r.header.labels;
  const Dataset data = load_dataset(r.header.config.data, opt);
  DataConfig at_length = r.header.config.data;
  at_length.eval_max_len = length;
  return evaluate_at_length(r, data.split("val"), at_length, length, checkpoint);
}

}  // namespace

TEST_CASE("a bf16 classifier's sweep cell equals rotor eval in bf16 bit for bit, not fp32", "[bf16][study][sweep]") {
  const std::string run_dir = trained_bf16_classifier(test::fresh_dir("bf16-sweep"));
  const int64_t length = 32;  // the training length
  SweepCell point;
  point.split = "val";
  point.length = length;
  run_length_sweep(run_dir, {point});
  const std::vector<SweepCell> cells = RunDirectory(run_dir).read_length_sweep().cells;
  REQUIRE(cells.size() == 1);
  const SweepCell& cell = cells[0];
  REQUIRE(cell.available);
  const std::string checkpoint = RunDirectory(run_dir).best_checkpoint_path();
  const SplitScores bf16 = eval_scores(checkpoint, length, {});
  const SplitScores fp32 = eval_scores(checkpoint, length, {"run.precision=fp32"});
  CAPTURE(cell.scores.get("loss"), bf16.get("loss"), fp32.get("loss"));
  CHECK(cell.scores.get("loss") == bf16.get("loss"));
  CHECK(cell.scores.get("accuracy") == bf16.get("accuracy"));
  CHECK(cell.scores.get("macro_f1") == bf16.get("macro_f1"));
  CHECK(cell.scores == bf16);
  CHECK(cell.scores.get("loss") != fp32.get("loss"));
}

TEST_CASE("a bf16 classifier's attention check computes in bf16 whatever the caller's precision",
          "[bf16][study][attention]") {
  const std::string run_dir = trained_bf16_classifier(test::fresh_dir("bf16-attention"));
  const auto measured_in = [&](Precision caller) {
    const PrecisionScope precision(caller);
    return measure_attention_usage(run_dir);
  };
  const AttentionUsage from_fp32 = measured_in(Precision::fp32), from_bf16 = measured_in(Precision::bf16);
  REQUIRE(from_fp32.available);
  CHECK(from_fp32.windows == from_bf16.windows);
  CHECK(from_fp32.layer_entropy == from_bf16.layer_entropy);
}
