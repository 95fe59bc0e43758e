#pragma once
// A study's step timings, one per distinct config: variants that differ only in
// their name share one probe (training/step_probe.h). The dry run's estimate and
// the order a study starts its runs in both read them.
#include <cstdint>
#include <map>
#include <string>

#include "trainers/study/study_spec.h"
#include "trainers/training/step_probe.h"

namespace rotor {

struct ConfigProbe {
  StepProbe timing;
  std::string problem;  // why this config cannot start; empty when timed
};

class ConfigProbes {
 public:
  explicit ConfigProbes(int64_t steps) : steps_(steps) {}
  // The probe of `variant`'s config, timed at its first request.
  const ConfigProbe& of(const StudyVariant& variant);

 private:
  int64_t steps_;  // timed per config, after one to warm up
  std::map<std::string, ConfigProbe> probes_;
};

// As a study shares the cores between its --jobs children (child_runs.cpp): this process's
// threads for a probe, unless OMP_NUM_THREADS is set (run.threads still wins, in the probe).
void share_cores_for_probes(int64_t jobs);

}  // namespace rotor
