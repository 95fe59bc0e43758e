// `rotor compare` on a tiny study: every run trained and swept, finished runs
// skipped and interrupted ones resumed on a rerun, n/a cells with reasons,
// and the report's aggregates equal to mean and std over the seeds' own
// summaries.
#include <catch2/catch.hpp>
#include <numeric>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/storage/checkpoint_test_support.h"
#include "tests/trainers/study/study_fixture.h"
#include "trainers/run/run_lock.h"
#include "trainers/study/aggregation.h"
#include "trainers/study/run_results.h"
#include "trainers/study/study_clock.h"
#include "trainers/study/study_manifest.h"
#include "trainers/study/study_runner.h"
#include "trainers/training/trainer.h"

using namespace rotor;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Training windows of 8 tokens; learned positions then have 8 rows, so the
// 32-token sweep of listops-easy (documents up to ~30 tokens) is n/a.
const char* kTinyStudy =
    "set: {data.max_len: 8, train.max_steps: 12, train.eval_every: 6, train.checkpoint_every: 4}\n"
    "seeds: [1, 2]\nvariants: [rope, learned]\n"
    "evaluation:\n  lengths: [8, 32]\n  scalings: [none, ntk]\n";

json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

std::string read_file_text(const fs::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

fs::file_time_type mtime(const fs::path& p) { return fs::last_write_time(p); }

// report.json of the tiny study in dir/out: each variant's aggregate over
// its seeds' summaries, its validation curve, and its length sweep.
void check_report_json(const fs::path& dir) {
  const json report = read_json(dir / "out/report.json");
  REQUIRE(report["variants"].size() == 2);
  for (const json& v : report["variants"]) {
    // The aggregate equals mean and sample std of the seeds' summaries.
    std::vector<double> acc;
    for (uint64_t seed : {1, 2})
      acc.push_back(read_json(dir / "out/runs" / (v["name"].get<std::string>() + "-seed" + std::to_string(seed)) /
                              "summary.json")["scores"]["test"]["accuracy"]
                        .get<double>());
    const json& agg = v["metrics"]["test_accuracy"];
    CHECK(agg["n"] == 2);
    CHECK(agg["mean"].get<double>() == Approx((acc[0] + acc[1]) / 2));
    CHECK(agg["std"].get<double>() == Approx(std::abs(acc[0] - acc[1]) / std::sqrt(2.0)).margin(1e-12));
    CHECK(v["val_curve"].size() == 2);  // evaluations at steps 6 and 12
  }
  // rope: 8/none, 32/none, 32/ntk; learned: 8/none and an n/a 32/none.
  const json& rope_sweep = report["variants"][0]["sweep"];
  REQUIRE(rope_sweep.size() == 3);
  CHECK(rope_sweep[2]["scaling"] == "ntk");
  CHECK(rope_sweep[2]["accuracy"]["n"] == 2);
  const json& learned_sweep = report["variants"][1]["sweep"];
  REQUIRE(learned_sweep.size() == 2);
  CHECK(learned_sweep[0]["available"] == true);
  CHECK(learned_sweep[1]["available"] == false);
  CHECK_THAT(learned_sweep[1]["reason"].get<std::string>(), Catch::Contains("learned position table"));
}

// report.md and report.csv of the tiny study in dir/out.
void check_report_md_and_csv(const fs::path& dir) {
  std::ifstream md_in(dir / "out/report.md");
  const std::string md((std::istreambuf_iterator<char>(md_in)), std::istreambuf_iterator<char>());
  CHECK_THAT(md, Catch::Contains("n/a [1]"));
  CHECK_THAT(md, Catch::Contains("apt-get install python3-matplotlib"));
  CHECK_THAT(md, Catch::Contains("rotor compare study.yaml"));
  CHECK_THAT(md, Catch::Contains("as much about its load as about the encoding"));  // tokens/s is not a property of it
  std::ifstream csv(dir / "out/report.csv");
  std::string header;
  std::getline(csv, header);
  CHECK(header == "scope,variant,seed,metric,split,step,length,scaling,value,std,min,max,n,note");
}

// The first seed's attention-distance profiles: measured per variant, shown in report.md and report.json,
// linked from the position-usage section.
void check_offset_profiles(const fs::path& dir) {
  for (const char* variant : {"rope", "learned"}) {
    CHECK(fs::exists(dir / "out/runs" / (std::string(variant) + "-seed1") / "offsets.json"));
    CHECK_FALSE(fs::exists(dir / "out/runs" / (std::string(variant) + "-seed2") / "offsets.json"));
  }
  const std::string md = read_file_text(dir / "out/report.md");
  CHECK_THAT(md, Catch::Contains("[Attention against distance](#attention-against-distance)"));
  CHECK_THAT(md, Catch::Contains("\n## Attention against distance\n"));
  CHECK_THAT(md, Catch::Contains("### rope (seed 1)\n\nMean attention distance |j − i| per head, layer 0:"));
  CHECK_THAT(md, Catch::Contains("### learned (seed 1)\n\nMean attention distance"));
  const json profiles = read_json(dir / "out/report.json")["offset_profiles"];
  REQUIRE(profiles.size() == 2);
  CHECK(profiles[0]["variant"] == "rope");
  CHECK(profiles[0]["available"] == true);
  CHECK(profiles[0]["max_offset"] == 7);  // windows of the training length, 8 tokens (mean pooling: no CLS slot)
  CHECK_FALSE(profiles[0].contains("offset_check"));  // listops is no offset task
}

// A rotary variant's first seed's frequency use: measured for rope alone, its shares summing to 1 per head,
// shown beside its offset profiles.
void check_frequency_use(const fs::path& dir) {
  CHECK(fs::exists(dir / "out/runs/rope-seed1/frequencies.json"));
  CHECK_FALSE(fs::exists(dir / "out/runs/rope-seed2/frequencies.json"));
  CHECK_FALSE(fs::exists(dir / "out/runs/learned-seed1/frequencies.json"));  // learned positions rotate nothing
  const json uses = read_json(dir / "out/report.json")["frequency_use"];
  REQUIRE(uses.size() == 1);
  CHECK(uses[0]["variant"] == "rope");
  REQUIRE(uses[0]["available"] == true);
  CHECK(uses[0]["split"] == "val");
  REQUIRE(uses[0]["layers"].size() == 1);  // the tiny model's one layer
  for (const json& head : uses[0]["layers"][0]["heads"]) {
    const std::vector<double> shares = head["mean_abs_share"];
    CHECK(shares.size() == uses[0]["pairs"].size());
    CHECK(std::accumulate(shares.begin(), shares.end(), 0.0) == Approx(1.0).epsilon(1e-9));
  }
  const std::string md = read_file_text(dir / "out/report.md");
  const size_t rope = md.find("### rope (seed 1)"), learned = md.find("### learned (seed 1)");
  const size_t frequency = md.find("\nFrequency use (Barbero et al. 2024; `rotor analyze frequencies`)");
  CHECK((rope < frequency && frequency < learned));  // under rope's heading, and under it alone
  CHECK(md.find("Frequency use (Barbero", learned) == std::string::npos);
  CHECK_THAT(md, Catch::Contains("and which frequency pairs a rotary variant's logits use"));
}

// A study folder from before offsets.json still reports, saying how to measure them.
void check_report_without_offsets(const fs::path& dir, const std::string& study_dir) {
  fs::remove(dir / "out/runs/rope-seed1/offsets.json");
  fs::remove(dir / "out/runs/rope-seed1/frequencies.json");
  rebuild_study_report(study_dir);
  const std::string md = read_file_text(dir / "out/report.md");
  CHECK_THAT(md, Catch::Contains("### rope (seed 1)\n\nnot measured (the study ran before offset profiles were part of "
                                 "it); rerun `rotor compare study.yaml` to measure them for the finished runs."));
  CHECK_THAT(md, Catch::Contains("Not measured (the study ran before frequency use was part of it); rerun `rotor "
                                 "compare study.yaml` to measure it for the finished runs."));
}

}  // namespace

TEST_CASE("seed statistics: mean, sample std, min, max", "[study]") {
  const SeedStats s = seed_stats({0.5, 0.7, 0.9});
  CHECK(s.n == 3);
  CHECK(s.mean == Approx(0.7));
  CHECK(s.std == Approx(0.2));  // sqrt((0.04 + 0 + 0.04) / 2)
  CHECK(s.min == 0.5);
  CHECK(s.max == 0.9);
  CHECK(seed_stats({0.4}).std == 0.0);
  CHECK(seed_stats({}).n == 0);
  CHECK(std::isnan(seed_stats({}).mean));
}

TEST_CASE("the study ETA is the steps left at the time per step measured now, else recorded, else --", "[study]") {
  // (an epoch-bounded run's length is that of the longest finished run)
  rotor::StudyClock clock;
  clock.pending("a", 45);
  clock.pending("b", 45);
  CHECK(clock.eta(1) == "--");  // right after a resume nothing is known: no guess
  clock.recorded(100, 100.0);   // finished before this session: 1 s per step
  CHECK(clock.eta(1) == "1m30s");
  CHECK(clock.eta(2) == "45s");           // shared by two job slots
  CHECK(clock.eta(4) == "45s");           // two runs fill two slots at most
  clock.run_done("a", 90.0, {45, 90.0});  // this session: 45 steps in 90 s, on a busier machine
  CHECK(clock.eta(1) == "1m30s");         // b: 45 steps at 2 s
  clock.pending("c", -1, 10);             // a run bounded by epochs, resumed at step 10: as long as the longest (100)
  CHECK(clock.eta(1) == "4m30s");         // (45 + 90) steps at 2 s

  // A study bounded by epochs, started from scratch: the first finished run tells the length of the others.
  rotor::StudyClock epochs;
  epochs.pending("x", -1);
  epochs.pending("y", -1);
  CHECK(epochs.eta(1) == "--");
  epochs.run_done("x", 60.0, {30, 60.0});
  CHECK(epochs.eta(1) == "1m00s");  // y: 30 steps at 2 s

  const rotor::test::ScratchDir dir("study-clock");
  const std::string run = dir / "run";
  CHECK(rotor::committed_step(run) == 0);  // not started
  fs::create_directories(run + "/checkpoints");
  CHECK(rotor::committed_step(run) == 0);  // started, nothing saved yet
  std::ofstream(run + "/checkpoints/step-00000010.h5.tmp-4242") << "x";
  CHECK(rotor::committed_step(run) == 0);  // a write killed before its commit
  std::ofstream(run + "/checkpoints/step-00000010.h5") << "x";
  CHECK(rotor::committed_step(run) == 10);  // resumes at step 10
}

TEST_CASE("a run's sweep and attention pass, and a resumed run's remainder, are not counted as time per step",
          "[study]") {
  // Issue 35: a rerun's ETA went from 24 to 54 minutes when a run resumed near its end finished: its few steps
  // and its whole sweep were divided by those few steps.
  rotor::StudyClock clock;
  clock.recorded(100, 100.0);  // finished before this session: 1 s per step
  clock.pending("a", 10, 90);  // resumed at step 90 of 100
  clock.pending("b", 100);
  CHECK(clock.eta(1) == "1m50s");            // 110 steps at 1 s
  clock.run_done("a", 70.0, {100, 100.0});   // 10 s of its training here, then 60 s of sweep and attention pass
  CHECK(clock.eta(1) == "2m40s");            // b: 100 steps at 1 s, and 60 s outside training
  clock.run_done("b", 400.0, {100, 300.0});  // a busier machine now: 3 s per step, 100 s outside training
  clock.pending("c", 100);
  CHECK(clock.eta(1) == "4m40s");  // the training rate of the runs done here, (100 + 300) s / 200 steps, and
                                   // the mean time outside training, (60 + 100) s / 2
}

TEST_CASE("a resumed study's ETA counts the remainder of resumed runs at the finished runs' recorded rate",
          "[study][slow]") {
  const auto dir = test::fresh_dir("study-eta");
  const StudySpec spec = parse_study_spec(test::tiny_study_spec(dir, kTinyStudy));
  const std::vector<StudyRun> runs = spec.runs();
  const std::string out = (dir / "out").string();
  TrainRequest finished{spec.base, spec.run_overrides(runs[0]), "", run_directory(out, runs[0])};
  REQUIRE(train(finished) == 0);
  TrainRequest partial{spec.base, spec.run_overrides(runs[1]), "", run_directory(out, runs[1])};
  partial.stop_after = 8;
  REQUIRE(train(partial) == 0);
  StudyClock clock = study_clock(spec, out, runs, {runs[1]});
  const RunResult done = read_run_result(runs[0], run_directory(out, runs[0]), objective_spec(ObjectiveKind::classify));
  StudyClock expected;
  expected.recorded(done.steps, done.elapsed_s);
  expected.pending(runs[1].id, 12 - 8);  // train.max_steps 12, resumed at its step-8 checkpoint
  CHECK(clock.eta(1) == expected.eta(1));
  CHECK(clock.eta(1) != "--");
}

TEST_CASE("a study directory in use is refused before study.json is written", "[study]") {
  const auto dir = test::fresh_dir("study-lock");
  const StudySpec spec = parse_study_spec(test::tiny_study_spec(dir, kTinyStudy));
  StudyOptions options;
  options.dir = (dir / "out").string();
  const RunLock other_process(options.dir, "study directory");
  CHECK_THROWS_WITH(run_study(spec, options),
                    Catch::Contains("study directory " + options.dir + " is in use by another rotor process"));
  CHECK_FALSE(fs::exists(dir / "out/study.json"));
}

TEST_CASE("another spec for an existing study directory is refused, naming both specs", "[study]") {
  const auto dir = test::fresh_dir("study-other-spec");
  const StudySpec spec = parse_study_spec(test::tiny_study_spec(dir, kTinyStudy));
  const std::string out = (dir / "out").string();
  fs::create_directories(out);
  write_study_manifest(out, {spec, "rotor compare study.yaml"});
  const auto written = mtime(dir / "out/study.json");
  std::string other_text = kTinyStudy;
  other_text.replace(other_text.find("seeds: [1, 2]"), 13, "seeds: [3]");
  std::ofstream(dir / "other.yaml") << "base: tiny.yaml\n" << other_text;
  const StudySpec other = parse_study_spec((dir / "other.yaml").string());
  StudyOptions options;
  options.dir = out;
  CHECK_THROWS_WITH(run_study(other, options), Catch::Contains("holds the study of another spec, " + spec.path) &&
                                                   Catch::Contains("not " + other.path));
  CHECK(mtime(dir / "out/study.json") == written);
  // The same spec (also edited: its runs' configs are checked one by one) or a copy of it is the same study.
  CHECK_NOTHROW(require_same_spec(out, spec));
  std::ofstream(dir / "copy.yaml") << spec.text;
  CHECK_NOTHROW(require_same_spec(out, parse_study_spec((dir / "copy.yaml").string())));
  std::ofstream(spec.path, std::ios::app) << "# edited\n";
  CHECK_NOTHROW(require_same_spec(out, parse_study_spec(spec.path)));
}

TEST_CASE("a tiny study: runs, sweep, report, and a rerun skips finished runs", "[study][slow]") {
  const auto dir = test::fresh_dir("study-run");
  const std::string spec_path = test::tiny_study_spec(dir, kTinyStudy);
  const StudySpec spec = parse_study_spec(spec_path);
  StudyOptions options;
  options.dir = (dir / "out").string();
  options.command = "rotor compare study.yaml";

  // An interrupted run before the study starts: rope-seed2 stopped at step 4.
  TrainRequest partial{spec.base, spec.run_overrides(spec.runs()[1]), "", (dir / "out/runs/rope-seed2").string()};
  partial.stop_after = 4;
  REQUIRE(train(partial) == 0);
  const fs::path step4 = dir / "out/runs/rope-seed2/checkpoints/step-00000004.h5";
  REQUIRE(fs::exists(step4));
  const auto step4_time = mtime(step4);

  setenv("ROTOR_PYTHON", "/nonexistent/python3", 1);  // the report without plots
  REQUIRE(run_study(spec, options) == 0);
  unsetenv("ROTOR_PYTHON");
  // Resumed, not restarted: the step-4 checkpoint was kept as it was.
  CHECK(mtime(step4) == step4_time);
  for (const StudyRun& run : spec.runs()) {
    INFO(run.id);
    CHECK(fs::exists(dir / "out/runs" / run.id / "summary.json"));
    CHECK(fs::exists(dir / "out/runs" / run.id / "length_sweep.json"));
  }

  check_report_json(dir);
  check_report_md_and_csv(dir);
  check_offset_profiles(dir);
  check_frequency_use(dir);

  check_report_without_offsets(dir, options.dir);

  // A rerun trains nothing and sweeps only what is missing.
  const fs::path summary = dir / "out/runs/learned-seed1/summary.json";
  const auto summary_time = mtime(summary);
  const auto sweep_time = mtime(dir / "out/runs/rope-seed1/length_sweep.json");
  fs::remove(dir / "out/runs/learned-seed2/length_sweep.json");
  REQUIRE(run_study(spec, options) == 0);
  CHECK(mtime(summary) == summary_time);
  CHECK(mtime(dir / "out/runs/rope-seed1/length_sweep.json") == sweep_time);
  CHECK(fs::exists(dir / "out/runs/learned-seed2/length_sweep.json"));
  CHECK(fs::exists(dir / "out/runs/rope-seed1/offsets.json"));  // measured for the finished run
  CHECK(fs::exists(dir / "out/runs/rope-seed1/frequencies.json"));

  // --report rebuilds the same numbers from the run directories.
  const json before = read_json(dir / "out/report.json");
  fs::remove(dir / "out/report.json");
  rebuild_study_report(options.dir);
  CHECK(read_json(dir / "out/report.json")["variants"] == before["variants"]);

  // A finished run trained with another config is an error, not a stale result.
  std::string text = kTinyStudy;
  text.replace(text.find("train.max_steps: 12"), 19, "train.max_steps: 12, train.lr: 0.01");
  const StudySpec edited = parse_study_spec(test::tiny_study_spec(dir, text));
  CHECK_THROWS_WITH(run_study(edited, options), Catch::Contains("rope-seed1 was trained with another config") &&
                                                    Catch::Contains("(train.lr differ)"));
}
