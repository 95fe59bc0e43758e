#include "trainers/training/run_compute_scope.h"

#include "trainers/training/thread_count.h"

namespace rotor {

RunComputeScope::RunComputeScope(const RunConfig& run) : precision_(run.precision) { apply_thread_count(run.threads); }

}  // namespace rotor
