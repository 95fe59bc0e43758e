#pragma once
// Language models on the shared encoder (models/transformer_encoder.h), never
// with a [CLS] slot (model.pooling is ignored):
// - causal (GPT-2's objective): the encoder runs with causal attention whatever
//   ForwardContext::causal says, so slot i sees tokens 0..i only and a causal LM
//   can never read the token it predicts. The caller shifts the targets (slot i
//   predicts token i+1).
// - masked (BERT's MLM): bidirectional attention; BERT's transform first,
//   h' = LayerNorm(GELU(h W_t^T + b_t)) (`lm_head.transform`, `lm_head.norm`,
//   exact-erf GELU), as in BERT's pre-training head.
// Both tie the output layer to the token embedding E [V, d], as BERT and GPT-2 do
// (one table for reading and writing tokens; V x d fewer parameters):
//   logits = h' E^T + b, b = `lm_head.bias` [V].
// E thus gets gradient from the lookup and from the output layer.
// Initialisation as the encoder's (BERT): N(0, init_std) weights, zero biases,
// unit layer-norm gains. The head's parameters are declared after the encoder's.
#include <cstdint>
#include <optional>
#include <vector>

#include "models/model.h"
#include "models/transformer_encoder.h"

namespace rotor {

enum class LanguageModelKind { causal, masked };

class LanguageModel : public Model {
 public:
  // `config` must have passed ModelConfig::validate() (the config loader runs it once).
  LanguageModel(const ModelConfig& config, LanguageModelKind kind, DType dtype = DType::F32);

  LanguageModelKind kind() const { return kind_; }
  // [batch, N, vocab_size]: the scores of every slot's token over the vocabulary, at the
  // window's positions (EncoderClassifier::logits draws them the same way). Attention is
  // causal for the causal kind and bidirectional for the masked kind, whatever ctx.causal
  // says (ctx.causal is restored on return).
  Var logits(const ModelInput& input, ForwardContext& ctx) const;
  // Mean cross entropy over the slots whose target is not -100 (ignored: padding,
  // unscored slots; 0 when every target is). targets: [batch * N] row-major, one per input slot.
  Var loss(const Var& logits, const std::vector<int32_t>& targets) const;

 private:
  Var output(const Var& hidden) const;  // the head: [B, N, d] -> [B, N, V]

  LanguageModelKind kind_;
  std::optional<Linear> transform_;  // masked kind: BERT's dense d -> d
  std::optional<LayerNorm> transform_norm_;
  ParameterId output_bias_ = -1;
};

}  // namespace rotor
