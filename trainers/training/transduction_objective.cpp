// train.objective transduction (Deletang et al. 2023, "Neural Networks and the
// Chomsky Hierarchy"; Ruoss et al. 2023 the same set-up): a bidirectional
// encoder reads a sequence task's input followed by one query token per output
// symbol (the queries layout, datasets/tasks/sequence_layout.h, the authors'
// make_model_with_empty_targets) and predicts output[i] at the i-th query. Its
// row builds the masked LanguageModel (bidirectional attention, BERT's
// transform, the output tied to the token embedding) in place of the authors'
// untied linear read-out, and names its per-sample score sequence_accuracy.
// The loss, the batches and the scores are targeted_tokens.h's.
#include "trainers/training/objective.h"
#include "trainers/training/targeted_tokens.h"

namespace rotor {

std::unique_ptr<Objective> make_transduction(const Config& config, const Dataset& data) {
  return make_targeted_tokens(config, data);
}

}  // namespace rotor
