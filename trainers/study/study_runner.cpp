#include "trainers/study/study_runner.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "trainers/config/config_loader.h"
#include "trainers/config/config_schema.h"
#include "trainers/study/attention_usage.h"
#include "trainers/study/child_runs.h"
#include "trainers/study/run_results.h"
#include "trainers/study/study_clock.h"
#include "trainers/study/study_manifest.h"
#include "trainers/study/study_report.h"
#include "trainers/training/progress.h"
#include "trainers/training/run_lock.h"
#include "trainers/training/trainer.h"

namespace rotor {
namespace fs = std::filesystem;
namespace {

// A finished run is only reused when the spec still gives its config: after
// an edit of the spec or its base, stale results must not enter the report.
void require_unchanged(const StudySpec& spec, const StudyRun& run, const std::string& run_dir) {
  Config expected = load_config(spec.base, spec.run_overrides(run));
  const Config trained = load_config((fs::path(run_dir) / "config.yaml").string());
  // train.gradient_groups 0 means "one per rank", resolved when the run started.
  if (expected.train.gradient_groups == 0) expected.train.gradient_groups = trained.train.gradient_groups;
  std::string changed;
  for (const std::string& key : differing_keys(trained, expected))
    if (!resumable_change(key)) changed += " " + key;
  if (!changed.empty())
    throw ConfigError(run_dir + " was trained with another config than " + spec.path + " now gives (" +
                      changed.substr(1) +
                      " differ): delete that run directory to train it again, or use another --out");
}

// Trains (or resumes) one run, then sweeps its best checkpoint. Returns the
// trainer's exit code when it stopped early.
int train_and_sweep(const StudySpec& spec, const std::string& dir, const StudyRun& run) {
  const std::string run_dir = run_directory(dir, run);
  if (!run_finished(run_dir)) {
    TrainRequest request;
    request.config_path = spec.base;
    request.overrides = spec.run_overrides(run);
    request.resume = "auto";
    request.out_dir = run_dir;
    const int code = train(request);
    if (code != 0) return code;
  }
  const std::vector<SweepCell> plan = sweep_plan(spec, spec.variant(run.variant).config);
  run_length_sweep(run_dir, plan, [&](size_t done, size_t total, const SweepCell& c) {
    fmt::print(stderr, "  sweep {}/{} {}: {}, {} tokens, scaling {}: {}\n", done, total, run.id, c.split, c.length,
               c.scaling, c.available ? fmt::format("accuracy {:.6f}", c.accuracy) : "n/a: " + c.reason);
  });
  if (!has_attention_usage(run_dir)) measure_attention_usage(run_dir);
  return 0;
}

}  // namespace

std::string study_directory(const StudySpec& spec, const std::string& out) {
  if (!out.empty()) return out;
  if (!spec.out_dir.empty()) return spec.out_dir;
  return (fs::path("runs") / "compare" / fs::path(spec.path).stem()).string();
}

int run_study(const StudySpec& spec, const StudyOptions& options) {
  const std::vector<StudyRun> all = spec.runs();
  std::vector<StudyRun> runs;
  for (const StudyRun& r : all)
    if (options.only.empty() || r.id == options.only) runs.push_back(r);
  if (runs.empty()) {
    std::string ids;
    for (const StudyRun& r : all) ids += " " + r.id;
    throw ConfigError("--only " + options.only + ": no such run in " + spec.path + " (runs:" + ids + ")");
  }
  // One study process per folder, refused before anything is written. A --jobs child (--only) runs under its
  // parent's lock, and its run directory has a lock of its own.
  std::optional<RunLock> study_lock;
  if (options.only.empty()) {
    study_lock.emplace(options.dir, "study directory");
    require_same_spec(options.dir, spec);
    write_study_manifest(options.dir, {spec, options.command});
  }
  fs::create_directories(options.dir);
  std::vector<StudyRun> pending;
  for (const StudyRun& r : runs) {
    const std::string run_dir = run_directory(options.dir, r);
    if (run_finished(run_dir)) require_unchanged(spec, r, run_dir);
    if (!run_finished(run_dir) || !has_attention_usage(run_dir) ||
        !missing_points(run_dir, sweep_plan(spec, spec.variant(r.variant).config)).empty())
      pending.push_back(r);
  }
  if (options.only.empty())
    fmt::print(stderr, "study {}: {} runs ({} variants x {} seeds) in {}; {} done, {} to run\n", spec.path, runs.size(),
               spec.variants.size(), spec.seeds.size(), fs::absolute(options.dir).lexically_normal().string(),
               runs.size() - pending.size(), pending.size());
  StudyClock clock = study_clock(spec, options.dir, runs, pending);
  if (options.jobs > 1 && pending.size() > 1) {
    const int code = run_children(spec, options, pending, runs.size() - pending.size(), runs.size(), clock);
    if (code != 0) return code;
  } else {
    for (size_t i = 0; i < pending.size(); ++i) {
      const size_t index = runs.size() - pending.size() + i + 1;
      fmt::print(stderr, "\n== run {} of {}: {} ({}) | study ETA {}\n", index, runs.size(), pending[i].id,
                 run_directory(options.dir, pending[i]), clock.eta(1));
      const auto start = std::chrono::steady_clock::now();
      const int code = train_and_sweep(spec, options.dir, pending[i]);
      if (code != 0) {
        fmt::print(stderr, "study stopped during {}; rerun the same command to continue (finished runs are kept)\n",
                   pending[i].id);
        return code;
      }
      clock.run_done(pending[i].id, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  }
  if (!options.only.empty()) return 0;
  rebuild_study_report(options.dir);
  return 0;
}

void rebuild_study_report(const std::string& dir) {
  const StudyReport report = build_study_report(dir, read_study_manifest(dir));
  const PlotOutcome plots = write_study_report(report);
  int64_t finished = 0;
  for (const RunResult& r : report.runs) finished += r.finished;
  fmt::print(stderr, "\nreport of {}/{} finished runs: {}/report.md, report.csv, report.json\n", finished,
             report.runs.size(), dir);
  if (plots.problem.empty())
    fmt::print(stderr, "plots: {}/plots/ ({} files)\n", dir, plots.files.size());
  else
    fmt::print(stderr, "no plots: {}\n", plots.problem);
  for (const std::string& line : report.evidence.verdicts) fmt::print(stderr, "verdict, {}\n", line);
  if (!report.evidence.order_verdict.empty()) fmt::print(stderr, "order control: {}\n", report.evidence.order_verdict);
}

}  // namespace rotor
