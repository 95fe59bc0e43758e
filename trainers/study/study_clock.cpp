#include "trainers/study/study_clock.h"

#include <algorithm>

#include "trainers/run/run_directory.h"
#include "trainers/study/run_results.h"
#include "trainers/training/progress.h"

namespace rotor {

void StudyClock::recorded(int64_t steps, double seconds) {
  recorded_steps_ += steps;
  recorded_s_ += seconds;
  most_steps_ = std::max(most_steps_, steps);
}

void StudyClock::pending(const std::string& run_id, int64_t steps_left, int64_t steps_done) {
  pending_[run_id] = {steps_left, steps_done};
}

void StudyClock::run_done(const std::string& run_id, double wall_seconds, const RunTraining& training) {
  const auto it = pending_.find(run_id);
  if (it == pending_.end()) return;
  if (training.steps > 0 && training.seconds > 0) {
    // The summary's time covers all the run's steps, those of earlier sessions too: its rate, not its total.
    const double per_step = training.seconds / static_cast<double>(training.steps);
    const int64_t trained = std::max<int64_t>(0, training.steps - it->second.done);
    measured_steps_ += training.steps;
    measured_s_ += training.seconds;
    outside_training_s_ += std::max(0.0, wall_seconds - per_step * static_cast<double>(trained));
    ++measured_runs_;
  }
  most_steps_ = std::max(most_steps_, training.steps);
  pending_.erase(it);
}

std::string StudyClock::eta(int64_t jobs) const {
  const bool measured = measured_steps_ > 0;
  if (!measured && recorded_steps_ == 0) return "--";
  const double per_step = measured ? measured_s_ / static_cast<double>(measured_steps_)
                                   : recorded_s_ / static_cast<double>(recorded_steps_);
  int64_t steps = 0;
  for (const auto& [id, p] : pending_) {
    if (p.left < 0 && most_steps_ < 0) return "--";
    steps += p.left >= 0 ? p.left : std::max<int64_t>(0, most_steps_ - p.done);
  }
  const double per_run = measured_runs_ > 0 ? outside_training_s_ / static_cast<double>(measured_runs_) : 0.0;
  const int64_t slots = std::max<int64_t>(1, std::min<int64_t>(jobs, static_cast<int64_t>(pending_.size())));
  const double seconds = per_step * static_cast<double>(steps) + per_run * static_cast<double>(pending_.size());
  return format_duration(seconds / static_cast<double>(slots));
}

RunTraining finished_training(const std::string& run_dir) {
  if (!RunDirectory(run_dir).finished()) return {};
  const RunSummary s = RunDirectory(run_dir).read_summary();
  return {s.steps, s.elapsed_s};
}

StudyClock study_clock(const StudySpec& spec, const std::string& study_dir, const std::vector<StudyRun>& runs,
                       const std::vector<StudyRun>& pending) {
  StudyClock clock;
  int64_t most_steps = -1;
  for (const StudyRun& run : runs) {
    const std::string dir = run_directory(study_dir, run);
    if (!RunDirectory(dir).finished()) continue;
    const RunSummary s = RunDirectory(dir).read_summary();
    if (s.steps > 0 && s.elapsed_s > 0) clock.recorded(s.steps, s.elapsed_s);
    most_steps = std::max(most_steps, s.steps);
  }
  for (const StudyRun& run : pending) {
    const TrainConfig& t = spec.variant(run.variant).config.train;
    const int64_t planned = t.max_steps > 0 && t.max_epochs == 0 ? t.max_steps : most_steps;
    const int64_t done = committed_step(run_directory(study_dir, run));
    clock.pending(run.id, planned < 0 ? -1 : std::max<int64_t>(0, planned - done), done);
  }
  return clock;
}

int64_t committed_step(const std::string& run_dir) {
  const auto steps = RunDirectory(run_dir).checkpoints().list();
  return steps.empty() ? 0 : steps.back().first;
}

}  // namespace rotor
