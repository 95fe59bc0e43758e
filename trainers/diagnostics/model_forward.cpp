#include "trainers/diagnostics/model_forward.h"

#include <algorithm>

#include <fmt/format.h>

#include "engine/error.h"
#include "engine/var.h"
#include "models/encoder_classifier.h"
#include "models/language_model.h"

namespace rotor {

void run_forward(const Model& model, const ModelInput& input, ForwardContext& ctx) {
  NoGradGuard no_grad;
  if (const auto* classifier = dynamic_cast<const EncoderClassifier*>(&model)) {
    classifier->logits(input, ctx);
  } else if (const auto* lm = dynamic_cast<const LanguageModel*>(&model)) {
    lm->logits(input, ctx);
  } else {
    throw Error("run_forward: a model that is neither a classifier nor a language model");
  }
}

namespace {

// One token as an axis label: its text as the tokenizer decodes it.
std::string token_label(const Tokenizer& tokenizer, int32_t id) {
  // A lone byte of a multi-byte character (or a control byte) is no label and no valid JSON text: #id.
  const std::string text = tokenizer.decode({id});
  const bool prints = !text.empty() && std::none_of(text.begin(), text.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7f;
  }) && (text.size() > 1 || static_cast<unsigned char>(text[0]) < 0x80);
  return prints ? text : fmt::format("#{}", id);
}

}  // namespace

std::vector<std::string> slot_labels(const Model& model, const Tokenizer& tokenizer,
                                     const std::vector<int32_t>& tokens) {
  std::vector<std::string> labels;
  if (model.cls_slot() >= 0) labels.push_back("[CLS]");
  for (int32_t id : tokens) labels.push_back(token_label(tokenizer, id));
  return labels;
}

}  // namespace rotor
