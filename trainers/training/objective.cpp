#include "trainers/training/objective.h"

namespace rotor {

std::unique_ptr<Objective> make_objective(const Config& config, const Dataset& data) {
  switch (config.train.objective) {
    case ObjectiveKind::clm:
      return make_causal_language_modelling(config, data);
    case ObjectiveKind::mlm:
      return make_masked_language_modelling(config, data);
    case ObjectiveKind::classify:
      break;
  }
  return make_classification(config, data);
}

}  // namespace rotor
