#pragma once
// Running a study: every (variant, seed) trained by the normal trainer into
// STUDY/runs/<variant>-seed<seed> and then length-swept. A run with a
// summary.json and a complete sweep is skipped; an interrupted one resumes
// from its newest checkpoint (`--resume auto`), so a study survives Ctrl-C
// and reboots. Shows run i of n and the study's ETA around each run's own
// progress bar.
//
// `mpirun -np N rotor compare SPEC` spreads the runs over N ranks (on one or
// several machines sharing the study folder): rank r trains every N-th run
// still to do, each by itself (no data parallelism across ranks), into the
// same run directories; rank 0 holds the study lock and writes the report
// once every rank is done. A killed rank loses only its current run's steps
// since its last checkpoint; rerunning the command resumes, with any -np.
#include <cstdint>
#include <string>

#include "trainers/study/study_report.h"
#include "trainers/study/study_spec.h"

namespace rotor {

struct StudyOptions {
  std::string dir;      // the study directory
  int64_t jobs = 1;     // runs at once; > 1 runs each in a child `rotor compare --only` process
  std::string only;     // non-empty: train and sweep this run id alone, no report
  std::string command;  // the command line, for the report
  bool report = true;   // false: leave the report to the caller (a suite writes its tasks' reports itself)
};

// --out, else the spec's out_dir, else runs/compare/<spec file stem>[/<task>].
std::string study_directory(const StudySpec& spec, const std::string& out);

// Returns the exit code: 0 when every run is done (the report is written),
// 130/143 when a run was stopped by SIGINT/SIGTERM after its checkpoint, 1
// when a run failed or was killed (after the other runs finished; no report).
int run_study(const StudySpec& spec, const StudyOptions& options);

// `rotor compare --report DIR`: the report from the finished runs alone
// (written, summarised on stderr and returned).
StudyReport rebuild_study_report(const std::string& dir);

}  // namespace rotor
