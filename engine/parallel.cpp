#include "engine/parallel.h"

#include <omp.h>

#include <algorithm>
#include <thread>

namespace rotor {

int num_threads() { return omp_get_max_threads(); }

void set_num_threads(int n) {
  if (n > 0) omp_set_num_threads(n);
}

int64_t machine_cores() { return std::max(1u, std::thread::hardware_concurrency()); }

int64_t most_threads() { return kThreadsPerCore * machine_cores(); }

}  // namespace rotor
