#include "trainers/distributed/reducer_options.h"

namespace rotor {

ReducerOptions reducer_options(const RunConfig& run) { return {run.mpi_overlap, run.mpi_bucket_bytes}; }

}  // namespace rotor
