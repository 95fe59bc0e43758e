// Directional ALiBi for encoders: the logit of query i and key j gets
// -m_before,h (i - j) for a key before the query (j < i) and -m_after,h (j - i)
// for a key after it, so the bias tells left from right. This is the third of
// the encoder options in the ALiBi authors' note (ofirpress/
// attention_with_linear_biases, issue 5): different slopes backward and
// forward, fixed or learned. The symmetric option is `alibi`.
//
// Fixed slopes (model.position.learned_slopes: false): ALiBi's geometric
// schedule for 2H heads split in two interleaved halves, after = every other
// slope from the first, before = the others. For a power-of-two H the
// before side is exactly ALiBi's H-head schedule (what a causal ALiBi head
// sees) and each after slope lies halfway (geometrically) between two of them,
// the same rule ALiBi uses to fill in heads beyond a power of two.
// Learned slopes (true): both directions' slopes are parameters shared by all
// layers (ALiBi's bias is the same in every layer), starting from that split,
// without weight decay, and projected onto m >= 0 after every optimizer step:
// a slope of 0 lets a head ignore distance on that side; a negative one would
// reward distance, which no ALiBi variant does.
//
// Causal attention (ForwardContext::causal) reads only keys j <= i, so the
// after slopes play no part. With fixed slopes the bias is then the ALiBi
// paper's causal -m_h (i - j) with its H-head schedule: the before split equals
// that schedule (to rounding) for a power-of-two H, and for other H (where the split's
// interleaving differs from ALiBi's fill-in rule) the schedule is used itself.
// Learned slopes keep the learned before slopes (no paper form to follow).
#include <algorithm>
#include <cstdlib>

#include "models/alibi.h"
#include "models/position_encoding.h"

namespace rotor {

namespace {

struct SlopeSplit {
  std::vector<double> before, after;
};

SlopeSplit schedule_split(int64_t heads) {
  const std::vector<double> all = alibi_slopes(2 * heads);
  SlopeSplit s;
  for (int64_t h = 0; h < heads; ++h) {
    s.after.push_back(all[2 * h]);
    s.before.push_back(all[2 * h + 1]);
  }
  return s;
}

// [1, 2N-1] constant distance to a key on one side (0 on the other) for offset k = (i - j) + (N - 1).
Var one_sided_distances(int64_t length, bool before, DType dtype) {
  std::vector<double> d(static_cast<size_t>(2 * length - 1));
  for (int64_t k = 0; k < 2 * length - 1; ++k) {
    const int64_t offset = k - (length - 1);  // i - j: positive for a key before the query
    d[k] = static_cast<double>(std::max<int64_t>(before ? offset : -offset, 0));
  }
  return Var(Tensor::from_doubles({1, 2 * length - 1}, dtype, d));
}

// before, after: [H] slopes (constants or parameters) -> [H, 2N-1] bias.
Var directional_bias(const Var& before, const Var& after, int64_t length, DType dtype) {
  const int64_t heads = before.size(0);
  const Var left = mul(reshape(before, {heads, 1}), one_sided_distances(length, true, dtype));
  const Var right = mul(reshape(after, {heads, 1}), one_sided_distances(length, false, dtype));
  return neg(add(left, right));
}

class DirectionalAlibiEncoding : public PositionEncoding {
 public:
  DirectionalAlibiEncoding(ParameterStore& store, int64_t heads, bool learned) : heads_(heads) {
    if (!learned) return;
    // ones() is a placeholder: initialize() copies the schedule in.
    before_ = store.declare("position.alibi_directional.slopes_before", {heads}, ParameterInit::ones(), false);
    after_ = store.declare("position.alibi_directional.slopes_after", {heads}, ParameterInit::ones(), false);
  }

  Var relative_bias(const ParameterStore& store, int64_t, int64_t length, bool causal) const override {
    if (before_ >= 0) return directional_bias(store.var(before_), store.var(after_), length, store.dtype());
    if (causal) return Var(alibi_bias(heads_, length, store.dtype()));  // the paper's causal ALiBi (header)
    const SlopeSplit s = schedule_split(heads_);  // O(H N): cheap enough to rebuild per call, as `alibi`
    const Var before(Tensor::from_doubles({heads_}, store.dtype(), s.before));
    const Var after(Tensor::from_doubles({heads_}, store.dtype(), s.after));
    return directional_bias(before, after, length, store.dtype());
  }

  void initialize(ParameterStore& store, uint64_t) const override {
    if (before_ < 0) return;
    const SlopeSplit s = schedule_split(heads_);
    store.value(before_).copy_from(Tensor::from_doubles({heads_}, DType::F64, s.before));
    store.value(after_).copy_from(Tensor::from_doubles({heads_}, DType::F64, s.after));
  }

  void constrain(ParameterStore& store) const override {
    if (before_ < 0) return;
    clamp_parameter_below(store, before_, 0.0);
    clamp_parameter_below(store, after_, 0.0);
  }

 private:
  int64_t heads_;
  ParameterId before_ = -1, after_ = -1;  // learned slopes; -1: the fixed split
};

}  // namespace

PositionEncodingSpec alibi_directional_encoding_spec() {
  PositionEncodingSpec s;
  s.name = "alibi_directional";
  s.validate = [](const ModelConfig&) {};
  s.make = [](ParameterStore& store, const ModelConfig& c) {
    return std::make_unique<DirectionalAlibiEncoding>(store, c.heads, c.position.flag("learned_slopes"));
  };
  s.options = with_randomized_positions({
      PositionOption::flag("learned_slopes", false,
                           "learn the slopes for keys before and after the query (start: the fixed split, kept >= 0)"),
  });
  s.needs_logits = true;
  return s;
}

}  // namespace rotor
