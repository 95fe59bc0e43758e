#pragma once
// model.vocab_size and model.num_classes are not config keys (the loader
// refuses them): they come from the data, the tokenizer's vocabulary and the
// training labels. Set here alone, for a new run and a restored checkpoint.
#include <cstdint>

#include "datasets/tokenizer.h"
#include "models/model_config.h"

namespace rotor {

inline void set_data_dimensions(ModelConfig& model, const Tokenizer& tokenizer, int64_t num_labels) {
  model.vocab_size = tokenizer.vocab_size();
  model.num_classes = num_labels;
}

}  // namespace rotor
