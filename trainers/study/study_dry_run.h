#pragma once
// `rotor compare SPEC --dry-run`: what a study would do, before it does it.
// Its runs (and which its folder holds already, finished or started), the
// keys in which the variants' resolved configs differ, and an estimate of the
// training time: each distinct config's step timed in this process
// (training/step_probe.h), times its runs' steps left. Nothing is trained and
// nothing is written but the token cache.
#include <cstdint>
#include <string>

#include "trainers/study/study_spec.h"

namespace rotor {

struct DryRunOptions {
  std::string dir;          // the study directory (study_directory())
  int64_t jobs = 1;         // --jobs: runs at once
  int64_t probe_steps = 3;  // steps timed per distinct config, after one to warm up
};

// The dry run's text for people; a config that cannot start says why in its row.
std::string dry_run_study(const StudySpec& spec, const DryRunOptions& options);

}  // namespace rotor
