#include "trainers/study/config_probes.h"

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "engine/error.h"
#include "engine/parallel.h"
#include "trainers/config/config_loader.h"

namespace rotor {

const ConfigProbe& ConfigProbes::of(const StudyVariant& variant) {
  Config identity = variant.config;
  identity.run.name.clear();
  const std::string key = dump_config(identity);
  if (const auto it = probes_.find(key); it != probes_.end()) return it->second;
  ConfigProbe p;
  try {
    p.timing = probe_training_step(variant.config, steps_);
  } catch (const Error& e) {
    p.problem = e.what();
  }
  return probes_.emplace(key, p).first->second;
}

void share_cores_for_probes(int64_t jobs) {
  if (jobs > 1 && std::getenv("OMP_NUM_THREADS") == nullptr)
    set_num_threads(std::max(1, static_cast<int>(std::thread::hardware_concurrency() / jobs)));
}

}  // namespace rotor
