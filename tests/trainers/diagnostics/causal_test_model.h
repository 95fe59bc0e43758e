#pragma once
// A small causal language model for the generation and passkey tests: large
// initial weights give decided argmaxes, so greedy text is never a tie-break.
#include <memory>
#include <string>

#include "models/language_model.h"

namespace rotor::test {

inline std::unique_ptr<LanguageModel> causal_model(const std::string& encoding, uint64_t seed) {
  ModelConfig c;
  c.vocab_size = 260;
  c.d_model = 32;
  c.heads = 2;
  c.layers = 2;
  c.d_ff = 64;
  c.dropout = c.attention_dropout = 0;
  c.init_std = 0.3;
  c.position.type = encoding;
  auto model = std::make_unique<LanguageModel>(c, LanguageModelKind::causal);
  model->initialize(seed);
  return model;
}

}  // namespace rotor::test
