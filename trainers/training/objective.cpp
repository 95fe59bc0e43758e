#include "trainers/training/objective.h"

#include <fmt/format.h>

namespace rotor {
namespace {

// Per-token targets come from a sequence task's samples, and only such an objective reads them.
void require_data_the_row_reads(const Config& config, const Dataset& data) {
  const ObjectiveSpec& spec = objective_spec(config.train.objective);
  const bool wants_targets = spec.data == ObjectiveData::per_token_targets;
  if (wants_targets == data.split("train").has_targets()) return;
  const std::string task = config.data.task.empty() ? "(files)" : "'" + config.data.task + "'";
  throw ConfigError(
      wants_targets
          ? fmt::format("data.task: {} has no per-token targets, which train.objective {} trains on; expected a "
                        "sequence task (reverse-string, parity-check, ...)",
                        task, spec.name())
          : fmt::format("data.task: {} is a sequence task, whose per-token targets train.objective {} does not "
                        "read; expected train.objective transduction or completion",
                        task, spec.name()));
}

}  // namespace

std::unique_ptr<Objective> make_objective(const Config& config, const Dataset& data) {
  require_data_the_row_reads(config, data);
  switch (config.train.objective) {
    case ObjectiveKind::clm:
      return make_causal_language_modelling(config, data);
    case ObjectiveKind::mlm:
      return make_masked_language_modelling(config, data);
    case ObjectiveKind::transduction:
      return make_transduction(config, data);
    case ObjectiveKind::completion:
      return make_completion(config, data);
    case ObjectiveKind::classify:
      break;
  }
  return make_classification(config, data);
}

}  // namespace rotor
