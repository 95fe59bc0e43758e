#include "models/model_config.h"

#include <cmath>

namespace rotor {
namespace {

[[noreturn]] void fail(const std::string& key, const std::string& what) {
  throw ModelConfigError("model." + key + ": " + what);
}

void require_positive(const std::string& key, int64_t v) {
  if (v <= 0) fail(key, "must be a positive integer, got " + std::to_string(v));
}

void require_one_of(const std::string& key, const std::string& v, std::initializer_list<const char*> allowed) {
  std::string list;
  for (const char* a : allowed) {
    if (v == a) return;
    list += std::string(list.empty() ? "" : ", ") + a;
  }
  fail(key, "unknown value '" + v + "' (expected one of: " + list + ")");
}

}  // namespace

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
  require_one_of("norm", norm, {"pre", "post"});
  require_one_of("pooling", pooling, {"mean", "cls", "max"});
  require_one_of("attention", attention, {"softmax", "linear"});
  require_one_of("activation", activation, {"gelu", "gelu_tanh", "relu"});

  const PositionConfig& p = position;
  require_one_of("position.type", p.type, {"rope", "sinusoidal", "learned", "t5_bias", "alibi", "none"});
  if (p.type == "rope") {
    require_one_of("position.layout", p.layout, {"interleaved", "half"});
    require_one_of("position.scaling", p.scaling, {"none", "linear", "ntk", "yarn"});
    if (head_dim() % 2 != 0)
      fail("position.type", "rope needs an even head dimension, but d_model/heads = " + std::to_string(head_dim()));
    if (!(p.fraction > 0 && p.fraction <= 1))
      fail("position.fraction", "must be in (0, 1], got " + std::to_string(p.fraction));
    const double dims = p.fraction * static_cast<double>(head_dim());
    if (std::abs(dims - std::round(dims)) > 1e-9 || rotary_dims() % 2 != 0 || rotary_dims() == 0)
      fail("position.fraction", std::to_string(p.fraction) + " of head dim " + std::to_string(head_dim()) +
                                    " is not an even whole number of dims");
    if (!(p.base > 1)) fail("position.base", "must be > 1, got " + std::to_string(p.base));
    if (p.scaling != "none" && !(p.scaling_factor >= 1))
      fail("position.scaling_factor", "must be >= 1, got " + std::to_string(p.scaling_factor));
    if (p.scaling == "ntk" && rotary_dims() <= 2)
      fail("position.scaling", "ntk needs more than 2 rotated dims");
    if (p.scaling == "yarn") require_positive("position.original_max_len", p.original_max_len);
  }
  if (p.type == "learned") require_positive("position.max_len", p.max_len);
  if (p.type == "t5_bias") {
    if (p.num_buckets < 4 || p.num_buckets % 2 != 0)
      fail("position.num_buckets", "must be an even number >= 4, got " + std::to_string(p.num_buckets));
    if (p.max_distance <= p.num_buckets / 4)
      fail("position.max_distance", "must exceed num_buckets/4 = " + std::to_string(p.num_buckets / 4));
  }
  if (attention == "linear" && (p.type == "t5_bias" || p.type == "alibi"))
    fail("attention", "linear attention has no logits to add a " + p.type + " bias to");
}

}  // namespace rotor
