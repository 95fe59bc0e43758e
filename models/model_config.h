#pragma once
// The encoder classifier's configuration: a plain struct whose field names are
// the YAML keys under `model:` (the trainer's config layer maps them 1:1).
// Options with a fixed set of values are enums (models/model_options.h);
// position.type names a row of the position-encoding table
// (models/position_encoding.h). validate() checks every constraint once, when
// the config is loaded, and names the offending key; the model assumes a
// validated config.
#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/error.h"
#include "models/model_options.h"
#include "models/position_option.h"

namespace rotor {

struct ModelConfigError : Error {
  using Error::Error;
};

// model.position: the encoding's name and the values of its own keys. Each
// encoding declares its keys, types and defaults (PositionEncodingSpec::options);
// a key not set here reads as its declared default. validate() rejects a key
// of another encoding set away from its default.
struct PositionConfig {
  // A name in position_encoding_names(): rope | sinusoidal | learned | t5_bias | alibi | none | ...
  std::string type = "rope";
  // Values set by a config; the others take their declared defaults.
  std::map<std::string, PositionValue> values;

  // The value of `key` (set, else its default); throws ModelConfigError when no encoding declares `key`.
  PositionValue value(const std::string& key) const;
  bool flag(const std::string& key) const { return std::get<bool>(value(key)); }
  int64_t integer(const std::string& key) const { return std::get<int64_t>(value(key)); }
  double number(const std::string& key) const { return std::get<double>(value(key)); }
  std::string text(const std::string& key) const { return std::get<std::string>(value(key)); }
  std::vector<double> numbers(const std::string& key) const { return std::get<std::vector<double>>(value(key)); }
  template <class E>
  E choice(const std::string& key) const {
    return *parse_option<E>(text(key));  // set() admits only the declared choices
  }
  // Sets `key`, converted to its declared type; throws ModelConfigError naming it when undeclared,
  // of another type or not one of its choices.
  void set(const std::string& key, PositionValue v);
  void set(const std::string& key, bool v) { set(key, PositionValue(v)); }
  void set(const std::string& key, int v) { set(key, PositionValue(int64_t{v})); }
  void set(const std::string& key, int64_t v) { set(key, PositionValue(v)); }
  void set(const std::string& key, double v) { set(key, PositionValue(v)); }
  void set(const std::string& key, const char* v) { set(key, PositionValue(std::string(v))); }
  void set(const std::string& key, const std::string& v) { set(key, PositionValue(v)); }
  void set(const std::string& key, const std::vector<double>& v) { set(key, PositionValue(v)); }
  template <class E, std::enable_if_t<std::is_enum_v<E>, int> = 0>
  void set(const std::string& key, E v) {
    set(key, PositionValue(std::string(option_name(v))));
  }
  // Whether `key` holds a value other than its default.
  bool is_set(const std::string& key) const;
};

// model.interleaved_position: a second encoding on every `every`-th layer from
// layer `first` (0-based), model.position on the others. Llama 4's iRoPE (no
// positions on every fourth layer: every 4, first 3), Gemma 3's and ModernBERT's
// global layers with another RoPE base (every 6, first 5; every 3, first 0).
// models/interleaved_position.h checks it.
struct InterleavedPosition {
  int64_t every = 0;  // 0: off, every layer takes model.position
  int64_t first = 0;
  PositionConfig position{"none", {}};

  bool active() const { return every > 0; }
  bool takes(int64_t layer) const { return active() && layer >= first && (layer - first) % every == 0; }
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
  LinearRotation linear_rotation = LinearRotation::after_feature_map;
  HiddenActivation activation = HiddenActivation::gelu_erf;
  double norm_eps = 1e-5;
  double init_std = 0.02;
  EmbeddingScale embedding_scale = EmbeddingScale::one;
  int64_t num_classes = 2;
  PositionConfig position;
  InterleavedPosition interleaved_position;

  // The encoding of block `layer`: model.position, or interleaved_position's on the layers it takes.
  const PositionConfig& position_of_layer(int64_t layer) const {
    return interleaved_position.takes(layer) ? interleaved_position.position : position;
  }
  // No layer's encoding gives a position signal (none, also on any interleaved layers).
  bool position_free() const;
  // This config with `position` in place of model.position: the config the interleaved
  // encoding is built and checked with (interleaved_position off).
  ModelConfig with_position(const PositionConfig& p) const;
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
  // validate_length for the training windows, and with randomized positions
  // that model.position.max_positions holds their positions.
  void validate_training_length(int64_t tokens, const std::string& length_key) const;
};

}  // namespace rotor
