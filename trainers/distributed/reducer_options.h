#pragma once
// Tuning of the gradient reduction across MPI ranks, from the run section
// (run.mpi_overlap, run.mpi_bucket_bytes). It never changes results, so it may
// change on resume.
#include <cstdint>

#include "trainers/config/config.h"

namespace rotor {

struct ReducerOptions {
  bool overlap = true;  // start bucket sums during the backward pass
  int64_t bucket_bytes = int64_t{4} << 20;
};

ReducerOptions reducer_options(const RunConfig& run);

}  // namespace rotor
