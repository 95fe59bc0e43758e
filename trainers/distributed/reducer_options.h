#pragma once
// Tuning of the gradient reduction that never changes results, so it is read
// from the environment rather than the run's config:
//   ROTOR_MPI_OVERLAP=0|1    start bucket sums during the backward pass (default 1)
//   ROTOR_MPI_BUCKET_MB=x    bucket size in MiB (default 4)
#include <cstdint>

namespace rotor {

struct ReducerOptions {
  bool overlap = true;
  int64_t bucket_bytes = int64_t{4} << 20;
};

// Throws ConfigError naming the variable when a value is malformed.
ReducerOptions reducer_options_from_environment();

}  // namespace rotor
