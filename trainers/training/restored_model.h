#pragma once
// A trained model brought back from a checkpoint for `rotor eval`, `predict`
// and `inspect`: its config, tokenizer, labels and weights.
#include <memory>
#include <string>
#include <vector>

#include "datasets/dataset.h"
#include "models/encoder_classifier.h"
#include "trainers/training/training_checkpoint.h"

namespace rotor {

struct RestoredModel {
  CheckpointHeader header;  // header.config has the overrides applied
  std::unique_ptr<Tokenizer> tokenizer;
  LabelVocab labels;
  std::unique_ptr<EncoderClassifier> model;
};

// overrides: `--set key=value` applied to the stored config (e.g. rope
// scaling for evaluation beyond the training length).
RestoredModel restore_model(const std::string& checkpoint, const std::vector<std::string>& overrides = {});

}  // namespace rotor
