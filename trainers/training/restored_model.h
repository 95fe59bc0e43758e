#pragma once
// A trained model brought back from a checkpoint for `rotor eval`, `predict`
// and `inspect`: its config, tokenizer, labels and weights.
#include <memory>
#include <string>
#include <vector>

#include "datasets/dataset.h"
#include "models/encoder_classifier.h"
#include "models/language_model.h"
#include "trainers/training/training_checkpoint.h"

namespace rotor {

struct RestoredModel {
  CheckpointHeader header;                     // header.config has the overrides applied
  std::shared_ptr<const Tokenizer> tokenizer;  // header.loaded_tokenizer
  LabelVocab labels;
  // An EncoderClassifier, or a LanguageModel: causal (train.objective clm, completion) or masked (mlm,
  // transduction).
  std::unique_ptr<Model> model;

  // The classifier; throws ConfigError naming `command` when the checkpoint holds a language model.
  EncoderClassifier& classifier(const std::string& command) const;
  // The language model (train.objective clm, mlm, transduction or completion).
  LanguageModel& language_model() const;
  // The causal language model, for `command` ("rotor generate"), which needs one; throws ConfigError
  // naming `checkpoint`, the causal objectives (their rows' `causal`) and the checkpoint's objective when
  // its objective is another.
  LanguageModel& causal_language_model(const std::string& command, const std::string& checkpoint) const;
};

// overrides: `--set key=value` applied to the stored config (e.g. rope
// scaling for evaluation beyond the training length), which is parsed once
// (read_header).
// A position table's length (learned) was fixed when the model was trained,
// so an override of model.position.max_len is refused with this explanation
// rather than failing on the weights' shape.
RestoredModel restore_model(const std::string& checkpoint, const std::vector<std::string>& overrides = {});

// Throws ConfigError when windows of `tokens` tokens (given by `length_key`,
// e.g. "--max-len") need more positions than the trained model's position
// table has, suggesting a length that fits or an encoding without a table.
void check_trained_length(const ModelConfig& model, int64_t tokens, const std::string& length_key);

}  // namespace rotor
