#include "trainers/study/study_clock.h"

#include <algorithm>

#include "trainers/checkpoint/checkpoint_directory.h"
#include "trainers/training/progress.h"

namespace rotor {

void StudyClock::run_done(double seconds, bool from_first_step) {
  if (!from_first_step) return;
  seconds_ += seconds;
  ++samples_;
}

std::string StudyClock::eta(size_t runs_left, int64_t jobs) const {
  if (samples_ == 0) return "known after the first run trained from its start";
  return format_duration(seconds_ / static_cast<double>(samples_) * static_cast<double>(runs_left) /
                         static_cast<double>(std::max<int64_t>(1, jobs)));
}

bool trains_from_first_step(const std::string& run_dir) { return CheckpointDirectory(run_dir).list().empty(); }

}  // namespace rotor
