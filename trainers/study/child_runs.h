#pragma once
// `rotor compare --jobs N`: up to N runs at once, each in a child process
// `rotor compare SPEC --out DIR --only RUN` (the same trainer and sweep, in
// its own process: trainers keep process-wide state such as the thread
// count and signal handlers). A child's output goes to RUN/compare.log; it
// runs in its own process group, and SIGINT/SIGTERM/SIGHUP to the study are
// passed on once, so every child checkpoints and stops as a lone `rotor train`
// would. A child gets SIGTERM when the study dies (even by SIGKILL), so none
// outlives it. After a stop the study names the runs that did not finish.
#include <cstddef>
#include <string>
#include <vector>

#include "trainers/study/study_clock.h"
#include "trainers/study/study_runner.h"

namespace rotor {

// `already_done` runs of `total` were finished before; `clock` knows the
// steps `pending` have left. Returns 0; 1 when a run failed or its child was
// killed (the others are finished first); or 128 + the signal that stopped
// the study.
int run_children(const StudySpec& spec, const StudyOptions& options, const std::vector<StudyRun>& pending,
                 size_t already_done, size_t total, StudyClock& clock);

// The study's last line when runs failed and the others finished.
void print_failed_runs(const std::vector<std::string>& ids);

}  // namespace rotor
