#include "trainers/diagnostics/model_forward.h"

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

// The byte tokenizer's ids are the bytes after the special ids; a printable one is shown as itself.
std::string token_label(const Tokenizer& tokenizer, int32_t id) {
  static const char* const kSpecial[] = {"[PAD]", "[CLS]", "[SEP]", "[UNK]"};
  if (id >= 0 && id < Tokenizer::kNumSpecial) return kSpecial[id];
  const int32_t byte = id - Tokenizer::kNumSpecial;
  if (tokenizer.name() == "byte" && byte >= 0x20 && byte < 0x7f) return std::string(1, static_cast<char>(byte));
  return fmt::format("#{}", id);
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
