#pragma once
// One evaluation forward of a model whatever its head, run only for what a
// watcher in the ForwardContext sees (attention_capture): the classifier's
// logits, or the language model's (causal attention for a causal one).
#include <cstdint>
#include <string>
#include <vector>

#include "datasets/tokenizer.h"
#include "models/model.h"

namespace rotor {

void run_forward(const Model& model, const ModelInput& input, ForwardContext& ctx);

// The names of the slots one window of `tokens` occupies: [CLS] first when the model has that slot,
// then each token as text where the tokenizer maps ids to bytes, else its id.
std::vector<std::string> slot_labels(const Model& model, const Tokenizer& tokenizer,
                                     const std::vector<int32_t>& tokens);

}  // namespace rotor
