#include "trainers/training/objective.h"

#include <fmt/format.h>

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

std::string describe_scores(const SplitScores& s) {
  if (s.absent()) return "no token scored: loss, perplexity and accuracy absent";
  if (s.language_model)
    return fmt::format("loss {:.4f}  perplexity {:.3f}  bits/token {:.4f}  token accuracy {:.4f}", s.loss,
                       s.perplexity(), s.bits_per_token(), s.accuracy);
  return fmt::format("accuracy {:.4f}  macro-F1 {:.4f}  loss {:.4f}", s.accuracy, s.macro_f1, s.loss);
}

}  // namespace rotor
