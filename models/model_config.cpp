#include "models/model_config.h"

#include <cmath>

#include "models/position_encoding.h"

namespace rotor {
namespace {

[[noreturn]] void fail(const std::string& key, const std::string& what) {
  throw ModelConfigError("model." + key + ": " + what);
}

void require_positive(const std::string& key, int64_t v) {
  if (v <= 0) fail(key, "must be a positive integer, got " + std::to_string(v));
}

// The model.position.* keys an encoding can own, and whether a config moves one from its default.
struct PositionKey {
  const char* key;
  bool (*is_set)(const PositionConfig&);
};

const PositionKey kPositionKeys[] = {
    {"layout", [](const PositionConfig& p) { return p.layout != PositionConfig{}.layout; }},
    {"base", [](const PositionConfig& p) { return p.base != PositionConfig{}.base; }},
    {"fraction", [](const PositionConfig& p) { return p.fraction != PositionConfig{}.fraction; }},
    {"rotary_value", [](const PositionConfig& p) { return p.rotary_value != PositionConfig{}.rotary_value; }},
    {"scaling", [](const PositionConfig& p) { return p.scaling != PositionConfig{}.scaling; }},
    {"scaling_factor", [](const PositionConfig& p) { return p.scaling_factor != PositionConfig{}.scaling_factor; }},
    {"original_max_len",
     [](const PositionConfig& p) { return p.original_max_len != PositionConfig{}.original_max_len; }},
    {"scale", [](const PositionConfig& p) { return p.scale != PositionConfig{}.scale; }},
    {"max_len", [](const PositionConfig& p) { return p.max_len != PositionConfig{}.max_len; }},
    {"num_buckets", [](const PositionConfig& p) { return p.num_buckets != PositionConfig{}.num_buckets; }},
    {"max_distance", [](const PositionConfig& p) { return p.max_distance != PositionConfig{}.max_distance; }},
    {"per_layer", [](const PositionConfig& p) { return p.per_layer != PositionConfig{}.per_layer; }},
};

bool owns(const PositionEncodingSpec& spec, const std::string& key) {
  for (const std::string& k : spec.own_keys)
    if (k == key) return true;
  return false;
}

// A key another encoding owns, set away from its default, would be silently ignored: reject it.
void reject_foreign_keys(const PositionConfig& p, const PositionEncodingSpec& encoding) {
  for (const PositionKey& k : kPositionKeys) {
    if (!k.is_set(p) || owns(encoding, k.key)) continue;
    std::string owners;
    for (const PositionEncodingSpec& s : position_encodings())
      if (owns(s, k.key)) owners += (owners.empty() ? "" : " or ") + s.name;
    fail(std::string("position.") + k.key,
         "applies to position.type " + owners + ", not " + encoding.name + "; remove it or set it back to its default");
  }
}

}  // namespace

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
  return static_cast<int64_t>(std::llround(position.fraction * static_cast<double>(head_dim())));
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
  if (!(position.scale >= 0) || !std::isfinite(position.scale))
    fail("position.scale", "must be a finite number >= 0, got " + std::to_string(position.scale));

  const PositionEncodingSpec& encoding = position_encoding(position.type);
  reject_foreign_keys(position, encoding);
  encoding.validate(*this);
  if (attention == AttentionKind::linear && encoding.needs_logits)
    fail("attention", "linear attention has no logits to add a " + position.type + " bias to");
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

}  // namespace rotor
