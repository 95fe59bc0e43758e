#pragma once
// Transformer encoder classifier: the shared encoder (models/transformer_encoder.h,
// with a [CLS] slot under cls pooling) -> pooling (mean | cls | max over valid
// tokens) -> dropout -> linear classifier `head`. ForwardContext::causal makes
// the encoder's attention causal.
// Initialisation (BERT): weights and embeddings N(0, init_std = 0.02), biases
// 0, layer-norm gains 1; token embeddings as model.embedding_scale says (1:
// BERT's; sqrt_d: Vaswani's N(0, d^-1/2) times sqrt(d)), absolute positions at
// model.position.scale times their RMS; an encoding may set its own starting
// values (PositionEncoding::initialize: KERPLE, learned ALiBi slopes).
// Parameter names are documented in docs/guide/checkpoints.md and are what checkpoints and the
// golden tests use.
#include <cstdint>
#include <vector>

#include "models/model.h"
#include "models/transformer_encoder.h"  // ModelInput

namespace rotor {

class EncoderClassifier : public Model {
 public:
  // `config` must have passed ModelConfig::validate() (the config loader runs it once).
  EncoderClassifier(const ModelConfig& config, DType dtype = DType::F32);

  // Reads the parameters only (the encodings' lazy tables are guarded caches).
  // The window's positions are 0..N-1, or with model.position.randomized in
  // training a sorted random subset of [0, max_positions) drawn from ctx.
  Var logits(const ModelInput& input, ForwardContext& ctx) const;  // [batch, num_classes]
  // The same at explicit positions of the N slots (CLS included; empty: 0..N-1).
  Var logits(const ModelInput& input, ForwardContext& ctx, const Positions& positions) const;
  // The final hidden states, [batch, N, d_model] (N: seq_len, and the CLS slot
  // first with cls pooling), at the window's positions as logits() draws them.
  // With ctx.causal every state reads only the tokens at or before its slot.
  Var hidden_states(const ModelInput& input, ForwardContext& ctx) const;
  Var loss(const Var& logits, const std::vector<int32_t>& labels, double label_smoothing = 0.0) const;

 private:
  Var pool(const Var& x, const std::vector<int32_t>& lengths) const;

  Linear head_;
};

}  // namespace rotor
