// train.objective completion (Kazemnejad et al. 2023, "The Impact of
// Positional Encoding on Length Generalization in Transformers"): a causal
// decoder reads prompt, "=", answer (teacher forcing, the prompt_answer
// layout of datasets/tasks/sequence_layout.h) and is trained on the answer
// tokens and the end mark only. Its row builds the causal LanguageModel and
// names its per-sample score exact_match: all answer positions right is greedy
// decoding reproducing the answer, so scoring needs no generation loop
// (`rotor predict` does decode). The loss, the batches and the scores are
// targeted_tokens.h's.
#include "trainers/training/objective.h"
#include "trainers/training/targeted_tokens.h"

namespace rotor {

std::unique_ptr<Objective> make_completion(const Config& config, const Dataset& data) {
  return make_targeted_tokens(config, data);
}

}  // namespace rotor
