// `rotor compare` on a tiny causal-LM study, end to end: runs trained and
// swept with a sliding window, learned positions n/a past their table with
// the reason, and a report that names the objective and carries the
// validation loss as its curve.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/trainers/study/study_fixture.h"
#include "trainers/study/study_runner.h"

using namespace rotor;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The targets each cell of a run's length sweep scored.
std::vector<int64_t> scored_targets(const fs::path& sweep_file) {
  std::ifstream in(sweep_file);
  const json sweep = json::parse(in);  // named: a range-for over a temporary's member would dangle
  std::vector<int64_t> out;
  for (const json& cell : sweep.at("cells")) {
    int64_t scored = 0;
    for (const json& t : cell["window_tokens"]) scored += t.get<int64_t>();
    out.push_back(scored);
  }
  return out;
}

}  // namespace

TEST_CASE("a tiny language-model study: sliding sweep, learned n/a past its table, loss curves, thresholds",
          "[study][slow]") {
  const auto dir = test::fresh_dir("lm-study-run");
  const std::string spec_path = test::tiny_study_spec(
      dir,
      "set: {train.objective: clm, data.max_len: 8, train.max_steps: 12, train.eval_every: 6}\n"
      "seeds: [1, 2]\nvariants: [rope, learned]\n"
      "evaluation:\n  lengths: [8, 32]\n  stride: 4\n  max_tokens: 64\n  thresholds: [100, 0.001]\n");
  const StudySpec spec = parse_study_spec(spec_path);
  StudyOptions options;
  options.dir = (dir / "out").string();
  options.command = "rotor compare study.yaml";
  setenv("ROTOR_PYTHON", "/nonexistent/python3", 1);  // the report without plots
  REQUIRE(run_study(spec, options) == 0);
  unsetenv("ROTOR_PYTHON");

  std::ifstream in(dir / "out/report.json");
  const json report = json::parse(in);
  CHECK(report["objective"] == "clm");
  for (const json& run : report["runs"]) {
    INFO(run["id"].get<std::string>());
    REQUIRE(run["val_curve"].size() == 2);  // validations at steps 6 and 12, as losses
    CHECK(run["val_curve"][0].contains("loss"));
    const bool learned = run["variant"] == "learned";
    for (const json& cell : run["sweep"]) {
      INFO(cell.dump());
      const bool beyond_table = learned && cell["length"] == 32;
      CHECK(cell["available"] == !beyond_table);
      CHECK(cell["split"] == "test");  // an n/a cell names its point too, so a rerun does not evaluate it again
      CHECK(cell["scaling"] == "none");
      if (beyond_table) {
        CHECK_THAT(cell["reason"].get<std::string>(), Catch::Contains("position table"));
        continue;
      }
      CHECK(cell["stride"] == 4);  // min(stride, length) at both lengths
      CHECK(cell["max_tokens"] == 64);
      CHECK(cell["perplexity"].get<double>() > 1.0);
    }
  }
  // The token budget: each cell scored the test split's first 64 targets.
  for (const int64_t scored : scored_targets(dir / "out/runs/rope-seed1/length_sweep.json")) CHECK(scored == 64);
  // Steps to threshold: every run's loss is below 100 at its first validation, and none reaches 0.001.
  REQUIRE(report["convergence"].size() == 2);
  for (const json& v : report["convergence"][0]["variants"]) {
    CHECK(v["reached"] == 2);
    CHECK(v["mean"] == 6.0);
  }
  for (const json& v : report["convergence"][1]["variants"]) {
    CHECK(v["runs"] == 2);
    CHECK(v["reached"] == 0);
    CHECK(v["mean"].is_null());
  }
  std::ifstream md(dir / "out/report.md");
  const std::string text((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  CHECK_THAT(text, Catch::Contains("## Steps to threshold"));
  CHECK_THAT(text, Catch::Contains("the split's first 64 targets only"));
  CHECK_THAT(text, Catch::Contains("| rope − learned | 0 | – | – |"));
}
