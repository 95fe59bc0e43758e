#pragma once
// The study's ETA: the mean wall time of the runs trained from their first
// step in this session, times the runs left, shared by the job slots. A run
// resumed from a checkpoint (a study rerun after Ctrl-C) took only its
// remainder here, so it is not a sample: counting it made the ETA of a resumed
// study far too short.
#include <cstddef>
#include <cstdint>
#include <string>

namespace rotor {

class StudyClock {
 public:
  void run_done(double seconds, bool from_first_step);
  std::string eta(size_t runs_left, int64_t jobs) const;

 private:
  double seconds_ = 0.0;
  int64_t samples_ = 0;
};

// Whether a run directory holds no committed checkpoint yet (a temporary left
// by a kill does not count): its training starts at step 0.
bool trains_from_first_step(const std::string& run_dir);

}  // namespace rotor
