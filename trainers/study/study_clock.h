#pragma once
// The study's ETA: the optimizer steps its pending runs have left, times the
// time per step, plus each pending run's time outside training (its length
// sweep and attention pass), shared by the job slots. The time per step is
// the training time over the steps of the runs finished in this session (it
// reflects the machine's load now); before that, the one recorded by the
// study's finished runs (summary.json: training time and steps, kept across
// reruns); with neither, or when a run's length is unknown, "--". Only
// training time counts per step: a resumed run that trained 5 steps and then
// swept for a minute must not make every step look 12 s long. The rest of a
// run's wall time, measured here, is its time outside training. Counting
// steps, not runs, keeps a resumed run (a study rerun after Ctrl-C) from
// passing for a whole one: its remainder is its steps left.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trainers/study/study_spec.h"

namespace rotor {

// What a finished run's summary.json says of its training: every step and
// the training time they took (over all its sessions).
struct RunTraining {
  int64_t steps = -1;  // -1: no summary
  double seconds = 0.0;
};

class StudyClock {
 public:
  // A run finished before this session: `steps` in `seconds` of training.
  void recorded(int64_t steps, double seconds);
  // A run still to train, with the steps it has left (-1: not known, as for a
  // run bounded by epochs before any run has finished) and those it has done.
  void pending(const std::string& run_id, int64_t steps_left, int64_t steps_done = 0);
  // A pending run finished in this session after `wall_seconds` (training,
  // sweep and attention pass), its summary saying `training`. A finished run
  // also tells how long the runs of unknown length are: as long as the
  // longest finished one.
  void run_done(const std::string& run_id, double wall_seconds, const RunTraining& training);
  // "3m05s" for the pending runs not done yet, or "--".
  std::string eta(int64_t jobs) const;

 private:
  struct Pending {
    int64_t left = -1, done = 0;
  };
  double recorded_s_ = 0.0, measured_s_ = 0.0, outside_training_s_ = 0.0;
  int64_t recorded_steps_ = 0, measured_steps_ = 0, measured_runs_ = 0;
  int64_t most_steps_ = -1;  // of any finished run
  std::map<std::string, Pending> pending_;
};

// The steps and training time of a finished run (its summary.json); steps -1 when it has none.
RunTraining finished_training(const std::string& run_dir);

// The clock of a study about to train `pending`: the finished runs among
// `runs` give the recorded time per step; each pending run has left its
// planned steps (train.max_steps when it alone bounds the run, else the most a
// finished run took) less those of its newest checkpoint.
StudyClock study_clock(const StudySpec& spec, const std::string& study_dir, const std::vector<StudyRun>& runs,
                       const std::vector<StudyRun>& pending);

// The step of a run directory's newest committed checkpoint; 0 when it has
// none (a temporary left by a kill does not count): training starts there.
int64_t committed_step(const std::string& run_dir);

}  // namespace rotor
