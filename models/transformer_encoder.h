#pragma once
// The encoder every model shares (the classifier and the language models differ
// only in their heads):
//   token embedding (x token_multiplier) -> [CLS] (cls_slot) -> position hook
//   add_to_embeddings -> dropout -> N blocks (position hooks rotate / logit_scale /
//   relative_bias / pair_bias act inside attention; every hook gets the window's
//   positions) -> final layer norm (pre-LN only: post-LN blocks end normalised, as
//   in BERT and RoFormer). ForwardContext::causal makes attention causal (query i
//   reads keys j <= i; softmax on both kernels and linear attention), each encoding
//   in its decoder form.
// It declares its parameters into the model's ParameterStore (it holds ids, not the
// store) in a fixed order: the position encoding's, embed.tokens.weight, embed.cls,
// layers.i.*, final_norm. Checkpoints and the golden files depend on those names.
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
  // The data's position of every token, [batch, seq_len] row-major (models/position_groups.h);
  // null: each window at 0..N-1 (or randomized positions).
  const std::vector<int32_t>* positions = nullptr;
};

class TransformerEncoder {
 public:
  // `config` must have passed ModelConfig::validate(). cls_slot: a learned [CLS]
  // vector is prepended at slot 0 (classification with cls pooling).
  TransformerEncoder(ParameterStore& params, const ModelConfig& config, DType dtype, bool cls_slot);

  // The position encoding's own starting values, after params.allocate(seed).
  void initialize(ParameterStore& params, uint64_t seed) const;
  // Keeps constrained position parameters in their domain (after every optimizer step).
  void constrain(ParameterStore& params) const;

  // Embedding, blocks and final norm: [batch, N, d_model], N = slots(seq_len), at
  // `positions` of the N slots (empty: 0..N-1), or at the input's own positions when it
  // has them (then `positions` must be empty: randomized positions are refused, naming
  // model.position.randomized). `lengths` (in: the input's) gain the CLS slot.
  Var encode(const ParameterStore& params, const ModelInput& input, ForwardContext& ctx, const Positions& positions,
             std::vector<int32_t>& lengths) const;
  // The positions of a window of `slots` slots: 0..N-1, or with model.position.randomized
  // in training a sorted random subset of [0, max_positions) drawn from ctx.
  Positions window_positions(int64_t slots, const ForwardContext& ctx) const;
  // The slots a sequence of seq_len tokens takes (the CLS slot included).
  int64_t slots(int64_t seq_len) const { return seq_len + (cls_ >= 0 ? 1 : 0); }
  ParameterId token_embedding() const { return token_embedding_; }
  ParameterId cls_slot() const { return cls_; }  // -1 without a [CLS] slot
  // model.position's encoding, and that of block `layer` (model.interleaved_position's on the layers it takes).
  const PositionEncoding& position_encoding() const { return *position_; }
  const PositionEncoding& layer_encoding(int64_t layer) const;

 private:
  // encode() for a batch whose rows share `positions`.
  Var encode_window(const ParameterStore& params, const ModelInput& input, ForwardContext& ctx,
                    const Positions& positions, std::vector<int32_t>& lengths) const;
  // encode() at the input's own positions: each group of rows at the same positions as one batch.
  Var encode_at_input_positions(const ParameterStore& params, const ModelInput& input, ForwardContext& ctx,
                                std::vector<int32_t>& lengths) const;
  Var embed(const ParameterStore& params, const ModelInput& input, std::vector<int32_t>& lengths,
            const Positions& positions, ForwardContext& ctx) const;
  AttentionInputs attention_inputs(const std::vector<int32_t>& lengths, int64_t seq_len,
                                   const Positions& positions) const;

  ModelConfig config_;
  DType dtype_;
  ParameterId token_embedding_ = -1, cls_ = -1;
  int64_t random_position_range_ = 0;   // model.position.max_positions with randomized positions; 0: off
  bool randomized_evaluation_ = false;  // evaluation forwards draw positions too
  std::unique_ptr<PositionEncoding> position_;
  std::unique_ptr<PositionEncoding> interleaved_;  // null unless model.interleaved_position is on
  std::vector<TransformerBlock> blocks_;
  std::optional<LayerNorm> final_norm_;
};

}  // namespace rotor
