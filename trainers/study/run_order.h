#pragma once
// The order in which a study's --jobs children start: the longest run first.
// With N slots, a long run (FIRE's, a many-step one) that starts near the end
// finishes alone while the other slots idle; started first, it overlaps the
// short ones. A run's length is its steps left times its config's timed step
// (config_probes.h). Only the order changes: each run is the same run, with
// the same bits, whatever its turn, and the report keeps the spec's order.
#include <functional>
#include <string>
#include <vector>

#include "trainers/study/study_spec.h"

namespace rotor {

// `runs` sorted by `seconds` (unknown: negative), longest first; ties and
// unknown lengths keep the spec's order, unknown ones after the known.
std::vector<StudyRun> longest_first(std::vector<StudyRun> runs, const std::function<double(const StudyRun&)>& seconds);

// `runs` of `spec` in `study_dir`, longest first by their training time left
// on this machine now (each distinct config's step timed with the cores
// shared between `jobs`). A config that cannot start counts as unknown: its
// run starts last and fails there with its own message.
std::vector<StudyRun> longest_runs_first(const StudySpec& spec, const std::string& study_dir,
                                         const std::vector<StudyRun>& runs, int64_t jobs);

}  // namespace rotor
