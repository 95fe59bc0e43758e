#pragma once
// The thread count OpenMP gets, from any source, bounded in one place: every
// command applies it before it computes (main at start-up for OMP_NUM_THREADS;
// run.threads through RunComputeScope, run_compute_scope.h, which training,
// the dry run and every computation on a restored model hold).
#include <cstdint>

namespace rotor {

// Gives OpenMP `requested` threads (run.threads; 0 keeps OpenMP's own count,
// OMP_NUM_THREADS or every core), at most most_threads() (engine/parallel.h).
// A larger request (OMP_NUM_THREADS, or a config written on a bigger machine)
// is lowered with one warning, and OMP_NUM_THREADS is lowered with it so that
// child processes (a study's runs) inherit the bounded count.
void apply_thread_count(int64_t requested);

}  // namespace rotor
