#include "trainers/study/run_order.h"

#include <algorithm>
#include <map>

#include "trainers/run/run_directory.h"
#include "trainers/study/config_probes.h"
#include "trainers/study/run_results.h"
#include "trainers/study/study_clock.h"

namespace rotor {

std::vector<StudyRun> longest_first(std::vector<StudyRun> runs, const std::function<double(const StudyRun&)>& seconds) {
  std::map<std::string, double> length;
  for (const StudyRun& r : runs) length[r.id] = seconds(r);
  std::stable_sort(runs.begin(), runs.end(),
                   [&](const StudyRun& a, const StudyRun& b) { return length.at(a.id) > length.at(b.id); });
  return runs;
}

std::vector<StudyRun> longest_runs_first(const StudySpec& spec, const std::string& study_dir,
                                         const std::vector<StudyRun>& runs, int64_t jobs) {
  share_cores_for_probes(jobs);
  ConfigProbes probes(2);
  return longest_first(runs, [&](const StudyRun& run) {
    const std::string run_dir = run_directory(study_dir, run);
    if (RunDirectory(run_dir).finished()) return 0.0;  // trained: only its sweep or diagnostics are left, no probe
    const ConfigProbe& p = probes.of(spec.variant(run.variant));
    if (!p.problem.empty()) return -1.0;
    const int64_t left = std::max<int64_t>(0, p.timing.planned_steps - committed_step(run_dir));
    return p.timing.seconds_per_step * static_cast<double>(left);
  });
}

}  // namespace rotor
