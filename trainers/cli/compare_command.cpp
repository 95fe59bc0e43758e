// `rotor compare`: a position-encoding study (variants x seeds, length sweep)
// and its report (trainers/study/).
#include <filesystem>

#include <fmt/format.h>

#include "trainers/cli/command.h"
#include "trainers/distributed/communicator.h"
#include "trainers/run/json_file.h"
#include "trainers/study/study_dry_run.h"
#include "trainers/study/study_runner.h"
#include "trainers/study/study_suite.h"

namespace rotor {
namespace {
namespace fs = std::filesystem;

struct CompareRequest {
  std::string spec;        // SPEC.yaml; empty with report_dir
  std::string out_dir;     // --out
  int64_t jobs = 1;        // --jobs
  std::string only;        // --only RUN_ID
  std::string task;        // --task NAME: one task of a suite spec, as a study of its own
  std::string report_dir;  // --report DIR: rebuild the report without training
  std::string command;     // the command line, quoted, for the report
  bool dry_run = false;    // --dry-run: say what would run and how long it would take, run nothing
};

// --dry-run: each study of the request (a suite's tasks each in turn), on stdout.
int dry_run(const CompareRequest& request, const StudySuite& suite) {
  DryRunOptions options;
  options.jobs = request.jobs;
  if (!request.task.empty() || !suite.has_tasks()) {
    const StudySpec& spec = request.task.empty() ? suite.studies.front() : suite.study(request.task);
    options.dir = study_directory(spec, request.out_dir);
    fmt::print("{}", dry_run_study(spec, options));
    return 0;
  }
  for (const StudySpec& spec : suite.studies) {
    options.dir = (fs::path(suite_directory(suite, request.out_dir)) / spec.task).string();
    fmt::print("task {}: {}\n", spec.task, dry_run_study(spec, options));
  }
  return 0;
}

int compare_command(const CompareRequest& request) {
  if (request.spec.empty() == request.report_dir.empty()) {
    fmt::print(stderr, "rotor compare: give a SPEC file or --report DIR\n");
    return 2;
  }
  // Under mpirun every rank trains whole runs alone (study_runner.h).
  runs_alone_on_each_rank();
  if (!request.report_dir.empty()) {
    if (!launched_ranks().is_root()) return 0;
    if (is_suite_directory(request.report_dir))
      rebuild_suite_report(request.report_dir);
    else
      rebuild_study_report(request.report_dir);
    return 0;
  }
  if (request.jobs < 1) throw ConfigError("--jobs: expected at least 1, got " + std::to_string(request.jobs));
  const StudySuite suite = parse_study_suite(request.spec);
  if (request.dry_run) return dry_run(request, suite);
  StudyOptions options;
  options.jobs = request.jobs;
  options.only = request.only;
  options.command = request.command;
  if (!request.task.empty() || !suite.has_tasks()) {  // one study: a plain spec, or one task of a suite
    const StudySpec& spec = request.task.empty() ? suite.studies.front() : suite.study(request.task);
    options.dir = study_directory(spec, request.out_dir);
    return run_study(spec, options);
  }
  if (!request.only.empty()) throw ConfigError("--only " + request.only + ": in a suite of tasks, give --task too");
  options.dir = suite_directory(suite, request.out_dir);
  return run_suite(suite, options);
}

}  // namespace

Command add_compare_command(CLI::App& app, const std::string& command_line) {
  auto compare = std::make_shared<CompareRequest>();
  auto* cmp = app.add_subcommand("compare",
                                 "Run a position-encoding study (variants x seeds, length sweep) and "
                                 "write its report; rerunning skips finished runs; under mpirun -np N the ranks "
                                 "share the runs");
  cmp->add_option("spec", compare->spec, "Study spec (YAML), e.g. configs/compare/quick.yaml")
      ->check(CLI::ExistingFile);
  cmp->add_option("--out", compare->out_dir, "Study directory (default: the spec's out_dir, else runs/compare/<spec>)");
  cmp->add_option("--jobs", compare->jobs, "Runs trained at once, each in its own process (default 1)");
  cmp->add_option("--only", compare->only, "Train and evaluate this run alone (<variant>-seed<seed>), no report");
  cmp->add_option("--task", compare->task,
                  "A suite spec (tasks:): run this task alone as a study of its own (--out is then its folder)");
  cmp->add_option("--report", compare->report_dir, "Rebuild the report of a study directory from finished runs")
      ->excludes("spec");
  cmp->add_flag("--dry-run", compare->dry_run,
                "List the runs, where the variants' configs differ and an estimate of the training time from a few "
                "timed steps of each distinct config; train nothing")
      ->excludes("--report");
  compare->command = command_line;
  return {cmp, [compare] { return compare_command(*compare); }};
}

}  // namespace rotor
