#pragma once
// Transformer encoder classifier:
//   token embedding (x token_multiplier) -> [CLS] -> position hook add_to_embeddings
//   -> dropout -> N blocks (position hooks rotate / logit_scale / relative_bias
//   / pair_bias act inside attention; every hook gets the window's positions) -> final layer norm (pre-LN only: post-LN
//   blocks end normalised, as in BERT and RoFormer) -> pooling (mean | cls | max over valid tokens) -> dropout ->
//   linear classifier. ForwardContext::causal makes softmax attention causal
//   (query i reads keys j <= i), for a causal LM built on the same encoder.
// Initialisation (BERT): weights and embeddings N(0, init_std = 0.02), biases
// 0, layer-norm gains 1; token embeddings as model.embedding_scale says (1:
// BERT's; sqrt_d: Vaswani's N(0, d^-1/2) times sqrt(d)), absolute positions at
// model.position.scale times their RMS; an encoding may set its own starting
// values (PositionEncoding::initialize: KERPLE, learned ALiBi slopes).
// Parameter names are documented in README.md and are what checkpoints and the
// golden tests use.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "engine/parameters.h"
#include "models/forward_context.h"
#include "models/model_config.h"
#include "models/position_encoding.h"
#include "models/transformer_block.h"

namespace rotor {

// A padded batch of token ids: tokens [batch, seq_len] row-major, pad id 0;
// row b is valid for positions < lengths[b].
struct ModelInput {
  const std::vector<int32_t>& tokens;
  const std::vector<int32_t>& lengths;
  int64_t batch, seq_len;
};

class EncoderClassifier {
 public:
  // `config` must have passed ModelConfig::validate() (the config loader runs it once).
  EncoderClassifier(const ModelConfig& config, DType dtype = DType::F32);

  // Draws the initial weights (a pure function of seed and parameter name).
  void initialize(uint64_t seed);
  // Keeps constrained parameters in their domain: call after every optimizer step.
  void constrain_parameters() { position_->constrain(params_); }
  ParameterStore& parameters() { return params_; }
  const ParameterStore& parameters() const { return params_; }
  const ModelConfig& config() const { return config_; }

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
  Var embed(const ModelInput& input, std::vector<int32_t>& lengths, const Positions& positions,
            ForwardContext& ctx) const;
  // Embedding and blocks (and the final norm): [batch, N, d_model]; `lengths` (in: the
  // input's) gain the CLS slot.
  Var encode(const ModelInput& input, ForwardContext& ctx, const Positions& positions,
             std::vector<int32_t>& lengths) const;
  Positions window_positions(int64_t slots, const ForwardContext& ctx) const;
  AttentionInputs attention_inputs(const std::vector<int32_t>& lengths, int64_t seq_len,
                                   const Positions& positions) const;
  Var pool(const Var& x, const std::vector<int32_t>& lengths) const;

  ModelConfig config_;
  DType dtype_;
  ParameterStore params_;
  ParameterId token_embedding_ = -1, cls_ = -1;
  int64_t random_position_range_ = 0;  // model.position.max_positions with randomized positions; 0: off
  std::unique_ptr<PositionEncoding> position_;
  std::vector<TransformerBlock> blocks_;
  std::optional<LayerNorm> final_norm_;
  Linear head_;
};

}  // namespace rotor
