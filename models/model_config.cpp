#include "models/model_config.h"

#include <algorithm>
#include <cmath>

#include "models/interleaved_position.h"
#include "models/position_encoding.h"

namespace rotor {
namespace {

[[noreturn]] void fail(const std::string& key, const std::string& what) {
  throw ModelConfigError("model." + key + ": " + what);
}

void require_positive(const std::string& key, int64_t v) {
  if (v <= 0) fail(key, "must be a positive integer, got " + std::to_string(v));
}

// A key another encoding declares, set away from its default, would be silently ignored: reject it.
void reject_foreign_keys(const PositionConfig& p, const PositionEncodingSpec& encoding) {
  for (const auto& entry : p.values) {
    const std::string& key = entry.first;
    if (!p.is_set(key) || encoding.declares(key)) continue;
    fail("position." + key, "applies to position.type " + position_option_owners(key) + ", not " + encoding.name +
                                "; remove it or set it back to its default");
  }
}

// The declared range of each of the encoding's numeric keys, NaN and infinities excluded.
void check_ranges(const PositionConfig& p, const PositionEncodingSpec& encoding) {
  for (const PositionOption& o : encoding.options) {
    if (!o.range.bounded()) continue;
    const PositionValue v = p.value(o.key);
    const double x =
        std::holds_alternative<double>(v) ? std::get<double>(v) : static_cast<double>(std::get<int64_t>(v));
    if (!std::isfinite(x) || !o.range.violation(x).empty())
      fail("position." + o.key, "must be a finite number " + o.range.text() + ", got " + position_value_text(v));
  }
}

}  // namespace

PositionValue PositionConfig::value(const std::string& key) const {
  const auto it = values.find(key);
  if (it != values.end()) return it->second;
  const PositionOption* o = find_position_option(key);
  if (o == nullptr) throw ModelConfigError("model.position." + key + ": no position encoding has this key");
  return o->default_value;
}

void PositionConfig::set(const std::string& key, PositionValue v) {
  const PositionOption* o = find_position_option(key);
  if (o == nullptr) throw ModelConfigError("model.position." + key + ": no position encoding has this key");
  v = coerce_position_value(*o, std::move(v));
  if (!o->choices.empty() &&
      std::find(o->choices.begin(), o->choices.end(), std::get<std::string>(v)) == o->choices.end())
    throw ModelConfigError("model.position." + key + ": '" + std::get<std::string>(v) + "' is not one of its values");
  values[key] = std::move(v);
}

bool PositionConfig::is_set(const std::string& key) const {
  const auto it = values.find(key);
  if (it == values.end()) return false;
  const PositionOption* o = find_position_option(key);
  return o == nullptr || it->second != o->default_value;
}

double ModelConfig::token_init_std() const {
  return embedding_scale == EmbeddingScale::sqrt_d ? 1.0 / std::sqrt(static_cast<double>(d_model)) : init_std;
}

double ModelConfig::token_multiplier() const {
  return embedding_scale == EmbeddingScale::sqrt_d ? std::sqrt(static_cast<double>(d_model)) : 1.0;
}

// Exactly 1 under sqrt_d (not d^-1/2 * sqrt(d), which may round), so position.scale sqrt(1/2) gives
// the sinusoidal table a multiplier of exactly 1, Vaswani's.
double ModelConfig::token_rms() const { return embedding_scale == EmbeddingScale::sqrt_d ? 1.0 : init_std; }

int64_t ModelConfig::rotary_dims() const {
  return static_cast<int64_t>(std::llround(position.number("fraction") * static_cast<double>(head_dim())));
}

void ModelConfig::validate() const {
  require_positive("vocab_size", vocab_size);
  require_positive("d_model", d_model);
  require_positive("layers", layers);
  require_positive("heads", heads);
  require_positive("d_ff", d_ff);
  require_positive("num_classes", num_classes);
  if (num_classes < 2) fail("num_classes", "a classifier needs at least 2 classes, got " + std::to_string(num_classes));
  if (d_model % heads != 0)
    fail("heads", "d_model " + std::to_string(d_model) + " is not divisible by heads " + std::to_string(heads));
  if (dropout < 0 || dropout >= 1) fail("dropout", "must be in [0, 1), got " + std::to_string(dropout));
  if (attention_dropout < 0 || attention_dropout >= 1)
    fail("attention_dropout", "must be in [0, 1), got " + std::to_string(attention_dropout));
  if (!(norm_eps > 0)) fail("norm_eps", "must be > 0");
  if (!(init_std > 0)) fail("init_std", "must be > 0");

  const PositionEncodingSpec& encoding = position_encoding(position.type);
  reject_foreign_keys(position, encoding);
  check_ranges(position, encoding);
  encoding.validate(*this);
  if (linear_rotation != LinearRotation::after_feature_map && attention != AttentionKind::linear)
    fail("linear_rotation", "applies to model.attention: linear only");
  if (attention == AttentionKind::linear && encoding.needs_logits)
    fail("attention", "linear attention has no logits to add a " + position.type + " bias to");
  if (encoding.needs_composed_attention && attention == AttentionKind::softmax &&
      attention_kernel != AttentionKernel::composed)
    fail("attention_kernel", position.type +
                                 "'s bias reads every logit q.k of a row, which only the composed "
                                 "softmax forms; set model.attention_kernel: composed (O(N^2) memory per layer)");
  if (position.flag("logn_scaling") && attention == AttentionKind::linear)
    fail("position.logn_scaling", "sharpens softmax logits; linear attention has no softmax");
  if (position.flag("logn_scaling") && position.integer("original_max_len") < 2)
    fail("position.original_max_len", "logn_scaling divides by log(original_max_len), which needs at least 2, got " +
                                          std::to_string(position.integer("original_max_len")));
  validate_interleaved_position(*this);
}

bool ModelConfig::position_free() const {
  return position_encoding(position.type).position_free &&
         (!interleaved_position.active() || position_encoding(interleaved_position.position.type).position_free);
}

ModelConfig ModelConfig::with_position(const PositionConfig& p) const {
  ModelConfig c = *this;
  c.position = p;
  c.interleaved_position = InterleavedPosition();
  return c;
}

void ModelConfig::validate_length(int64_t tokens, const std::string& length_key) const {
  const int64_t rows = position_encoding(position.type).max_positions(*this);
  const int64_t needed = positions_for(tokens);
  if (rows > 0 && needed > rows)
    fail("position.max_len", "the " + position.type + " position table has " + std::to_string(rows) + " rows, but " +
                                 length_key + " = " + std::to_string(tokens) +
                                 (pooling == Pooling::cls ? " plus the CLS position" : "") + " needs " +
                                 std::to_string(needed) + "; set model.position.max_len: " + std::to_string(needed));
}

void ModelConfig::validate_training_length(int64_t tokens, const std::string& length_key) const {
  validate_length(tokens, length_key);
  const int64_t needed = positions_for(tokens), range = position.integer("max_positions");
  if (position.flag("randomized") && needed > range)
    fail("position.max_positions", "randomized positions are drawn from [0, " + std::to_string(range) + "), but " +
                                       length_key + " = " + std::to_string(tokens) +
                                       (pooling == Pooling::cls ? " plus the CLS position" : "") + " needs " +
                                       std::to_string(needed) + " distinct positions");
}

}  // namespace rotor
