#include "trainers/study/study_clock.h"

#include <algorithm>

#include "trainers/checkpoint/checkpoint_directory.h"
#include "trainers/study/run_results.h"
#include "trainers/training/progress.h"

namespace rotor {

void StudyClock::recorded(int64_t steps, double seconds) {
  recorded_steps_ += steps;
  recorded_s_ += seconds;
}

void StudyClock::pending(const std::string& run_id, int64_t steps_left) { steps_left_[run_id] = steps_left; }

void StudyClock::run_done(const std::string& run_id, double seconds) {
  const auto it = steps_left_.find(run_id);
  if (it == steps_left_.end()) return;
  if (it->second > 0) {
    measured_steps_ += it->second;
    measured_s_ += seconds;
  }
  steps_left_.erase(it);
}

std::string StudyClock::eta(int64_t jobs) const {
  const bool measured = measured_steps_ > 0;
  if (!measured && recorded_steps_ == 0) return "--";
  const double per_step = measured ? measured_s_ / static_cast<double>(measured_steps_)
                                   : recorded_s_ / static_cast<double>(recorded_steps_);
  int64_t steps = 0;
  for (const auto& [id, left] : steps_left_) {
    if (left < 0) return "--";
    steps += left;
  }
  const int64_t slots = std::max<int64_t>(1, std::min<int64_t>(jobs, static_cast<int64_t>(steps_left_.size())));
  return format_duration(per_step * static_cast<double>(steps) / static_cast<double>(slots));
}

StudyClock study_clock(const StudySpec& spec, const std::string& study_dir, const std::vector<StudyRun>& runs,
                       const std::vector<StudyRun>& pending) {
  StudyClock clock;
  int64_t most_steps = -1;
  for (const StudyRun& run : runs) {
    const std::string dir = run_directory(study_dir, run);
    if (!run_finished(dir)) continue;
    const RunResult r = read_run_result(run, dir);
    if (r.steps > 0 && r.elapsed_s > 0) clock.recorded(r.steps, r.elapsed_s);
    most_steps = std::max(most_steps, r.steps);
  }
  for (const StudyRun& run : pending) {
    const TrainConfig& t = spec.variant(run.variant).config.train;
    const int64_t planned = t.max_steps > 0 && t.max_epochs == 0 ? t.max_steps : most_steps;
    const int64_t done = committed_step(run_directory(study_dir, run));
    clock.pending(run.id, planned < 0 ? -1 : std::max<int64_t>(0, planned - done));
  }
  return clock;
}

int64_t committed_step(const std::string& run_dir) {
  const auto steps = CheckpointDirectory(run_dir).list();
  return steps.empty() ? 0 : steps.back().first;
}

}  // namespace rotor
