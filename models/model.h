#pragma once
// What every model is, whatever it is trained for: a ParameterStore and the
// shared TransformerEncoder declared into it first; a subclass adds its head(s)
// after the encoder (so the encoder's parameter names and order are the same in
// every model, and an encoder trained under one objective loads into another).
// The trainer holds a Model for everything objective-independent: the parameters
// (optimizer, checkpoints), initialisation and the constraint after each step.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/parameters.h"
#include "models/model_config.h"
#include "models/transformer_encoder.h"

namespace rotor {

class Model {
 public:
  virtual ~Model() = default;

  ParameterStore& parameters() { return params_; }
  const ParameterStore& parameters() const { return params_; }
  const ModelConfig& config() const { return config_; }
  // Draws the initial weights (a pure function of seed and parameter name).
  void initialize(uint64_t seed);
  // Keeps constrained parameters in their domain: call after every optimizer step.
  void constrain_parameters() { encoder_.constrain(params_); }
  // The shared encoder's parameters (every one but the heads'), in declaration
  // order: what a fine-tune takes from a pre-trained model (model.init_from).
  std::vector<std::string> encoder_parameters() const;
  // The encoder's learned [CLS] vector (-1 without one): a pre-trained
  // language model has none, so a fine-tune may start it fresh like a head.
  ParameterId cls_slot() const { return encoder_.cls_slot(); }
  // The position encoding's hooks, for diagnostics that evaluate them on their own (the learned bias).
  const PositionEncoding& position_encoding() const { return encoder_.position_encoding(); }

 protected:
  // `config` must have passed ModelConfig::validate() (the config loader runs it once).
  Model(const ModelConfig& config, DType dtype, bool cls_slot);
  const TransformerEncoder& encoder() const { return encoder_; }
  DType dtype() const { return dtype_; }

 private:
  ModelConfig config_;
  DType dtype_;
  ParameterStore params_;
  TransformerEncoder encoder_;      // declared after params_: it declares into them
  size_t encoder_parameter_count_;  // the encoder declares first (after encoder_: counted once it has)
};

}  // namespace rotor
