#include "trainers/study/study_runner.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "trainers/config/config_loader.h"
#include "trainers/config/config_schema.h"
#include "trainers/distributed/communicator.h"
#include "trainers/run/declared_scores.h"
#include "trainers/run/run_directory.h"
#include "trainers/run/run_lock.h"
#include "trainers/study/attention_usage.h"
#include "trainers/study/child_runs.h"
#include "trainers/study/frequency_measurement.h"
#include "trainers/study/length_sweep.h"
#include "trainers/study/offset_measurement.h"
#include "trainers/study/run_order.h"
#include "trainers/study/run_results.h"
#include "trainers/study/study_clock.h"
#include "trainers/study/study_manifest.h"
#include "trainers/study/study_report.h"
#include "trainers/training/progress.h"
#include "trainers/training/trainer.h"

namespace rotor {
namespace fs = std::filesystem;
namespace {

// A finished run is only reused when the spec still gives its config: after
// an edit of the spec or its base, stale results must not enter the report.
void require_unchanged(const StudySpec& spec, const StudyRun& run, const std::string& run_dir) {
  Config expected = load_config(spec.base, spec.run_overrides(run));
  const Config trained = load_recorded_config(RunDirectory(run_dir).config_path());
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

// The report shows one seed's attention-distance profiles (and a rotary variant's frequency use) per variant:
// the first's.
bool profiled_seed(const StudySpec& spec, const StudyRun& run) { return run.seed == spec.seeds.front(); }

bool needs_frequency_use(const StudySpec& spec, const StudyRun& run, const RunDirectory& files) {
  return profiled_seed(spec, run) && measures_frequency_use(spec.variant(run.variant).config) &&
         !files.has_frequency_use();
}

// Trains (or resumes) one run, then sweeps its best checkpoint. Returns the
// trainer's exit code when it stopped early.
int train_and_sweep(const StudySpec& spec, const std::string& dir, const StudyRun& run) {
  const std::string run_dir = run_directory(dir, run);
  const Config& config = spec.variant(run.variant).config;
  const std::vector<SweepCell> plan = sweep_plan(spec, config);
  if (!RunDirectory(run_dir).finished()) {
    TrainRequest request;
    request.config_path = spec.base;
    request.overrides = spec.run_overrides(run);
    request.resume = "auto";
    request.out_dir = run_dir;
    // The sweep's own-length points are the trainer's test scores: each held-out split is evaluated once.
    const int code = train(request, [&](const std::string& split, const std::string& checkpoint, const Dataset& data) {
      return sweep_held_out_split(run_dir, plan, config, split, checkpoint, data);
    });
    if (code != 0) return code;
  }
  const ObjectiveSpec& objective = objective_spec(config.train.objective);
  run_length_sweep(run_dir, plan, [&](size_t done, size_t total, const SweepCell& c) {
    fmt::print(stderr, "  sweep {}/{} {}: {}, {} tokens, scaling {}: {}\n", done, total, run.id, c.split, c.length,
               c.scaling, c.available ? describe_scores(objective, c.scores) : "n/a: " + c.reason);
  });
  if (!RunDirectory(run_dir).has_attention_usage()) measure_attention_usage(run_dir);
  if (profiled_seed(spec, run) && !RunDirectory(run_dir).has_offset_profiles()) measure_run_offsets(run_dir);
  if (needs_frequency_use(spec, run, RunDirectory(run_dir))) measure_run_frequencies(run_dir);
  return 0;
}

}  // namespace

std::string study_directory(const StudySpec& spec, const std::string& out) {
  if (!out.empty()) return out;
  if (!spec.out_dir.empty()) return spec.out_dir;
  return (fs::path("runs") / "compare" / fs::path(spec.path).stem() / spec.task).lexically_normal().string();
}

namespace {

// Trains and sweeps `mine` one after the other in this process. `done`: runs
// of the study finished before, `total`: all runs. A run that fails with an
// error (a damaged best checkpoint, say) does not stop the runs after it,
// which are independent: it is named with how to redo it, and the study
// exits 1 at the end. A signal stops the study at once.
int train_in_process(const StudySpec& spec, const StudyOptions& options, const std::vector<StudyRun>& mine, size_t done,
                     size_t total, StudyClock& clock, const std::string& who) {
  std::vector<std::string> failed;
  for (size_t i = 0; i < mine.size(); ++i) {
    const std::string run_dir = run_directory(options.dir, mine[i]);
    fmt::print(stderr, "\n== {}run {} of {}: {} ({}) | study ETA {}\n", who, done + i + 1, total, mine[i].id, run_dir,
               clock.eta(1));
    const auto start = std::chrono::steady_clock::now();
    int code = 0;
    try {
      code = train_and_sweep(spec, options.dir, mine[i]);
    } catch (const Error& e) {
      fmt::print(stderr,
                 "\nerror: {}\n== {}run {} failed; the study goes on without it. To redo it, rerun the same command "
                 "once the cause is fixed; if its checkpoints are damaged, delete {} first to train it again\n",
                 e.what(), who, mine[i].id, run_dir);
      failed.push_back(mine[i].id);
      continue;
    }
    if (code != 0) {
      fmt::print(stderr, "study stopped during {}; rerun the same command to continue (finished runs are kept)\n",
                 mine[i].id);
      return code;
    }
    clock.run_done(mine[i].id, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                   finished_training(run_dir));
  }
  if (failed.empty()) return 0;
  if (options.only.empty()) print_failed_runs(failed);
  return 1;
}

// The runs of `pending` that rank `rank` of `size` trains: every size-th.
std::vector<StudyRun> share_of_rank(const std::vector<StudyRun>& pending, int rank, int size) {
  std::vector<StudyRun> mine;
  for (size_t i = static_cast<size_t>(rank); i < pending.size(); i += static_cast<size_t>(size))
    mine.push_back(pending[i]);
  return mine;
}

}  // namespace

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
  // Under mpirun the ranks share the runs out; rank 0 owns the study folder and the report.
  Communicator& ranks = launched_ranks();
  if (ranks.size() > 1 && options.jobs > 1)
    throw ConfigError("--jobs " + std::to_string(options.jobs) + " under mpirun: each of the " +
                      std::to_string(ranks.size()) + " ranks trains one run at a time; use mpirun -np or --jobs");
  // One study process per folder, refused before anything is written. A --jobs child (--only) runs under its
  // parent's lock, and its run directory has a lock of its own.
  std::optional<RunLock> study_lock;
  if (options.only.empty() && ranks.is_root()) {
    study_lock.emplace(options.dir, "study directory");
    require_same_spec(options.dir, spec);
    write_study_manifest(options.dir, {spec, options.command});
  }
  ranks.barrier();
  fs::create_directories(options.dir);
  std::vector<StudyRun> pending;
  for (const StudyRun& r : runs) {
    const std::string run_dir = run_directory(options.dir, r);
    const RunDirectory files(run_dir);
    if (files.finished()) require_unchanged(spec, r, run_dir);
    if (!files.finished() || !files.has_attention_usage() || (profiled_seed(spec, r) && !files.has_offset_profiles()) ||
        needs_frequency_use(spec, r, files) ||
        !missing_points(run_dir, sweep_plan(spec, spec.variant(r.variant).config)).empty())
      pending.push_back(r);
  }
  ranks.barrier();  // every rank has listed what is left before any run starts
  if (options.only.empty() && ranks.is_root())
    fmt::print(stderr, "study {}: {} runs ({} variants x {} seeds) in {}; {} done, {} to run{}\n", spec.path,
               runs.size(), spec.variants.size(), spec.seeds.size(),
               fs::absolute(options.dir).lexically_normal().string(), runs.size() - pending.size(), pending.size(),
               ranks.size() > 1 ? fmt::format(", shared by {} MPI ranks", ranks.size()) : "");
  const std::vector<StudyRun> mine = share_of_rank(pending, ranks.rank(), ranks.size());
  StudyClock clock = study_clock(spec, options.dir, runs, mine);
  const size_t done = runs.size() - pending.size();
  const bool slots_to_fill = options.jobs > 1 && mine.size() > static_cast<size_t>(options.jobs);
  const int code = options.jobs > 1 && mine.size() > 1
                       ? run_children(spec, options,
                                      slots_to_fill ? longest_runs_first(spec, options.dir, mine, options.jobs) : mine,
                                      done, runs.size(), clock)
                       : train_in_process(spec, options, mine, done, runs.size(), clock,
                                          ranks.size() > 1 ? fmt::format("rank {}: ", ranks.rank()) : "");
  if (code != 0) return code;
  ranks.idle_barrier();  // the report needs every rank's runs
  if (!options.only.empty() || !ranks.is_root() || !options.report) return 0;
  rebuild_study_report(options.dir);
  return 0;
}

StudyReport rebuild_study_report(const std::string& dir) {
  StudyReport report = build_study_report(dir, read_study_manifest(dir));
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
  return report;
}

}  // namespace rotor
