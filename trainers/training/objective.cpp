#include "trainers/training/objective.h"

namespace rotor {

std::unique_ptr<Objective> make_objective(const Config& config, const Dataset& data) {
  // The config loader checked the task's name; this checks what was loaded (a file has no targets).
  if (const std::string why = data_mismatch(config, data.split("train").has_targets()); !why.empty())
    throw ConfigError(why);
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
