#pragma once
// The encoder classifier's configuration: a plain struct whose field names are
// the YAML keys under `model:` (the trainer's config layer maps them 1:1).
// Options with a fixed set of values are enums (models/model_options.h);
// position.type names a row of the position-encoding table
// (models/position_encoding.h). validate() checks every constraint once, when
// the config is loaded, and names the offending key; the model assumes a
// validated config.
#include <cstdint>
#include <string>

#include "engine/error.h"
#include "models/model_options.h"

namespace rotor {

struct ModelConfigError : Error {
  using Error::Error;
};

// Keys under one encoding's heading are that encoding's alone: validate()
// rejects them, set away from their defaults, under another position.type.
struct PositionConfig {
  // A name in position_encoding_names(): rope | sinusoidal | learned | t5_bias | alibi | none
  std::string type = "rope";

  // --- rope (RoFormer)
  RotaryLayout layout =
      RotaryLayout::interleaved;  // interleaved: pairs (2i, 2i+1) as in the paper; half: (i, i+r/2) as in GPT-NeoX
  double base = 10000.0;          // theta_i = base^(-2i/r)
  double fraction = 1.0;          // share of each head's dims that are rotated (partial rotary)
  bool rotary_value = false;      // also rotate v (HF RoFormer option)
  RopeScaling scaling = RopeScaling::none;  // evaluation beyond the training length
  double scaling_factor = 1.0;              // target length / original length
  int64_t original_max_len =
      512;  // training length (yarn's correction range); the config loader sets data.max_len unless given

  // --- sinusoidal, learned: RMS of the added position signal at initialisation, relative to the token
  // embeddings' (ModelConfig::token_rms()); 1 gives positions and tokens the same footing.
  double scale = 1.0;

  // --- learned
  int64_t max_len = 512;  // rows of the learned table; longer inputs are an error

  // --- t5_bias
  int64_t num_buckets = 32;
  int64_t max_distance = 128;
  bool per_layer = false;  // one table per layer instead of T5's single shared table
};

struct ModelConfig {
  int64_t vocab_size = 260;
  int64_t d_model = 256;
  int64_t layers = 4;
  int64_t heads = 4;
  int64_t d_ff = 1024;
  double dropout = 0.1;
  double attention_dropout = 0.1;
  NormPlacement norm = NormPlacement::pre;  // BERT and the original RoFormer are post-LN (no final norm)
  Pooling pooling = Pooling::mean;
  AttentionKind attention = AttentionKind::softmax;
  AttentionKernel attention_kernel = AttentionKernel::fused;
  Activation activation = Activation::gelu;
  double norm_eps = 1e-5;
  double init_std = 0.02;
  EmbeddingScale embedding_scale = EmbeddingScale::one;
  int64_t num_classes = 2;
  PositionConfig position;

  int64_t head_dim() const { return d_model / heads; }
  // Token embeddings: the std they are drawn with, their multiplier in the
  // forward pass, and the product, their expected RMS at initialisation.
  double token_init_std() const;
  double token_multiplier() const;
  double token_rms() const;
  // Dims rotated per head under rope: fraction * head_dim.
  int64_t rotary_dims() const;
  // Positions a window of `tokens` tokens occupies: one more with CLS pooling.
  int64_t positions_for(int64_t tokens) const { return tokens + (pooling == Pooling::cls ? 1 : 0); }
  // Throws ModelConfigError naming the key ("model.position.fraction", ...).
  void validate() const;
  // Throws ModelConfigError naming the position key when windows of `tokens`
  // tokens (set by `length_key`, e.g. "data.max_len") do not fit the encoding.
  void validate_length(int64_t tokens, const std::string& length_key) const;
};

}  // namespace rotor
