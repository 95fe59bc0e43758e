#include "trainers/training/thread_count.h"

#include <cstdlib>
#include <string>

#include <fmt/core.h>

#include "engine/parallel.h"

namespace rotor {

void apply_thread_count(int64_t requested) {
  // libgomp reads OMP_NUM_THREADS at start-up but creates its team at the
  // first parallel region: lowering the count before then avoids its crash.
  const int64_t asked = requested > 0 ? requested : num_threads();
  const int64_t most = most_threads();
  const int64_t count = asked > most ? most : asked;
  static int64_t last_warned = 0;  // one warning per request lowered, not one per model restored
  if (asked > most && asked != last_warned) {
    const char* env = std::getenv("OMP_NUM_THREADS");
    const std::string source = requested > 0 ? fmt::format("run.threads {}", asked)
                                             : fmt::format("OMP_NUM_THREADS={}", env ? env : std::to_string(asked));
    fmt::print(stderr, "warning: {} is more than {} x this machine's {} cores; using {} threads\n", source,
               kThreadsPerCore, machine_cores(), count);
    last_warned = asked;
  }
  if (requested <= 0 && asked <= most) return;  // OpenMP's own count stands
  set_num_threads(static_cast<int>(count));
  if (requested <= 0) setenv("OMP_NUM_THREADS", std::to_string(count).c_str(), /*overwrite=*/1);
}

}  // namespace rotor
