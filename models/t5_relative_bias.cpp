#include "models/t5_relative_bias.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "models/position_encoding.h"

namespace rotor {

namespace {

// A distance n >= 0 in `range` buckets: below range/2 exact, then log-spaced up to max_distance.
int64_t distance_bucket(int64_t n, int64_t range, int64_t max_distance) {
  const int64_t max_exact = range / 2;
  if (n < max_exact) return n;
  const double scaled = std::log(static_cast<double>(n) / max_exact) /
                        std::log(static_cast<double>(max_distance) / max_exact) *
                        static_cast<double>(range - max_exact);
  return std::min(range - 1, max_exact + static_cast<int64_t>(scaled));
}

}  // namespace

int64_t t5_bucket(int64_t rel, int64_t num_buckets, int64_t max_distance) {
  const int64_t half = num_buckets / 2;
  return (rel > 0 ? half : 0) + distance_bucket(std::llabs(rel), half, max_distance);
}

int64_t t5_causal_bucket(int64_t rel, int64_t num_buckets, int64_t max_distance) {
  return distance_bucket(std::max<int64_t>(-rel, 0), num_buckets, max_distance);
}

Var t5_relative_bias(const Var& table, int64_t length, int64_t num_buckets, int64_t max_distance, bool causal) {
  const int64_t offsets = 2 * length - 1;
  std::vector<int32_t> ids(static_cast<size_t>(offsets));
  for (int64_t k = 0; k < offsets; ++k) {  // k = (i - j) + (N - 1), so key - query = (N - 1) - k
    const int64_t rel = length - 1 - k;
    ids[k] = static_cast<int32_t>(causal ? t5_causal_bucket(rel, num_buckets, max_distance)
                                         : t5_bucket(rel, num_buckets, max_distance));
  }
  return permute(embedding(table, ids, {offsets}), {1, 0});  // [2N-1, H] -> [H, 2N-1]
}

namespace {

// The std of the table's N(0, std) start: model.init_std (0.02 by default, every weight's) or
// d_model^-1/2 (Hugging Face's T5; the separation suite found the narrow start stuck at no bias).
double table_std(const ModelConfig& c) {
  return c.position.choice<T5TableInit>("table_init") == T5TableInit::inverse_sqrt_d_model
             ? 1.0 / std::sqrt(static_cast<double>(c.d_model))
             : c.init_std;
}

// One shared table ("position.t5_bias.weight", as T5) or one per layer
// ("layers.<i>.attn.t5_bias.weight").
class T5BiasEncoding : public PositionEncoding {
 public:
  T5BiasEncoding(ParameterStore& store, const ModelConfig& c)
      : num_buckets_(c.position.integer("num_buckets")), max_distance_(c.position.integer("max_distance")) {
    const ParameterInit init = ParameterInit::normal(table_std(c));
    if (!c.position.flag("per_layer")) {
      tables_.push_back(store.declare("position.t5_bias.weight", {num_buckets_, c.heads}, init));
      return;
    }
    for (int64_t i = 0; i < c.layers; ++i)
      tables_.push_back(
          store.declare("layers." + std::to_string(i) + ".attn.t5_bias.weight", {num_buckets_, c.heads}, init));
  }

  Var relative_bias(const ParameterStore& store, int64_t layer, int64_t length, bool causal) const override {
    // The causal buckets' log range starts at num_buckets/2 (validate() checks only the encoder's num_buckets/4).
    if (causal && max_distance_ <= num_buckets_ / 2)
      throw ModelConfigError("model.position.max_distance: causal T5 buckets need it above num_buckets/2 = " +
                             std::to_string(num_buckets_ / 2) + ", got " + std::to_string(max_distance_));
    const ParameterId table = tables_[tables_.size() == 1 ? 0 : static_cast<size_t>(layer)];
    return t5_relative_bias(store.var(table), length, num_buckets_, max_distance_, causal);
  }

 private:
  int64_t num_buckets_, max_distance_;
  std::vector<ParameterId> tables_;
};

void validate_t5(const ModelConfig& c) {
  const int64_t buckets = c.position.integer("num_buckets");
  if (buckets < 4 || buckets % 2 != 0)
    throw ModelConfigError("model.position.num_buckets: must be an even number >= 4, got " + std::to_string(buckets));
  if (c.position.integer("max_distance") <= buckets / 4)
    throw ModelConfigError("model.position.max_distance: must exceed num_buckets/4 = " + std::to_string(buckets / 4));
}

}  // namespace

PositionEncodingSpec t5_bias_encoding_spec() {
  PositionEncodingSpec s;
  s.name = "t5_bias";
  s.validate = validate_t5;
  s.make = [](ParameterStore& store, const ModelConfig& c) { return std::make_unique<T5BiasEncoding>(store, c); };
  s.options = with_randomized_positions({
      PositionOption::integer("num_buckets", 32, "relative-position buckets"),
      PositionOption::integer("max_distance", 128, "distance of the last bucket"),
      PositionOption::flag("per_layer", false, "one table per layer instead of shared"),
      // The default from a measured comparison (results/t5-start): never worse, better on the LM.
      PositionOption::choice("table_init", T5TableInit::inverse_sqrt_d_model,
                             "the table's start: Hugging Face's N(0, d_model^-1/2) or N(0, model.init_std) "
                             "(the default before 2026-11-28)"),
  });
  s.needs_logits = true;
  return s;
}

}  // namespace rotor
