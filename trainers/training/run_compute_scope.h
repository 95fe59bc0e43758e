#pragma once
// How a run computes: its matrix-product precision (run.precision) on the
// calling thread and its OpenMP thread count (run.threads, bounded by
// apply_thread_count), set together in one place so that no computation of a
// run's numbers can take one without the other. Training, the dry run's probe
// and every computation on a restored model (restored_evaluation.h: eval,
// predict, a study's length sweep; a study's attention check) hold one.
#include "engine/precision.h"
#include "trainers/config/config.h"

namespace rotor {

class RunComputeScope {
 public:
  // `run`: the run's config, with any --set override (e.g. run.precision) applied.
  explicit RunComputeScope(const RunConfig& run);

 private:
  PrecisionScope precision_;  // restored when the scope ends; the thread count stays (it is process-wide)
};

}  // namespace rotor
