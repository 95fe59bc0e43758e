#pragma once
// A suite of tasks (a spec with `tasks:`, see study_spec.h): one study per
// task in DIR/<task>, run one after the other with the same options, then a
// report across them in DIR: the separation table (task x variant, accuracy
// in distribution and at the longest evaluation, tier-1 variants marked) and
// each task's verdict, order control and flags, gathered from the tasks'
// own reports. DIR/suite.json records the spec and the task folders, so
// `rotor compare --report DIR` rebuilds every report from the runs alone.
#include <string>

#include "trainers/study/study_runner.h"

namespace rotor {

// --out, else the spec's out_dir, else runs/compare/<spec file stem>.
std::string suite_directory(const StudySuite& suite, const std::string& out);

// options.dir: the suite folder. Returns the exit code as run_study does.
int run_suite(const StudySuite& suite, const StudyOptions& options);

bool is_suite_directory(const std::string& dir);
// Rebuilds each task's report, then the suite's (report.md, report.json).
void rebuild_suite_report(const std::string& dir);

}  // namespace rotor
