#include "models/alibi.h"

#include <cmath>

#include "models/position_encoding.h"

namespace rotor {

std::vector<double> alibi_slopes(int64_t heads) {
  auto power_of_two = [](int64_t n) {
    // start = 2^(-8/n), slopes start^1..start^n
    const double start = std::pow(2.0, -8.0 / static_cast<double>(n));
    std::vector<double> s;
    for (int64_t i = 1; i <= n; ++i) s.push_back(std::pow(start, static_cast<double>(i)));
    return s;
  };
  int64_t p = 1;
  while (p * 2 <= heads) p *= 2;
  std::vector<double> slopes = power_of_two(p);
  if (p == heads) return slopes;
  // Non-power of two: the closest power's slopes, then every other slope of
  // twice that many heads (ofirpress/attention_with_linear_biases).
  const std::vector<double> extra = power_of_two(2 * p);
  for (int64_t i = 0; static_cast<int64_t>(slopes.size()) < heads; i += 2) slopes.push_back(extra[i]);
  return slopes;
}

Tensor alibi_bias(int64_t heads, int64_t length, DType dtype) {
  const std::vector<double> m = alibi_slopes(heads);
  const int64_t offsets = 2 * length - 1;
  std::vector<double> bias(static_cast<size_t>(heads * offsets));
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t k = 0; k < offsets; ++k)
      bias[h * offsets + k] = -m[h] * static_cast<double>(std::llabs(k - (length - 1)));
  return Tensor::from_doubles({heads, offsets}, dtype, bias);
}

namespace {

class AlibiEncoding : public PositionEncoding {
 public:
  explicit AlibiEncoding(int64_t heads) : heads_(heads) {}
  // Causal: keys j <= i get -m_h (i - j), the ALiBi paper's own (decoder) form, so the table is the same.
  Var relative_bias(const ParameterStore& store, int64_t, int64_t length, bool /*causal*/) const override {
    return Var(alibi_bias(heads_, length, store.dtype()));  // O(H N): cheap enough to rebuild per call
  }

 private:
  int64_t heads_;
};

}  // namespace

PositionEncodingSpec alibi_encoding_spec() {
  PositionEncodingSpec s;
  s.name = "alibi";
  s.validate = [](const ModelConfig&) {};
  s.make = [](ParameterStore&, const ModelConfig& c) { return std::make_unique<AlibiEncoding>(c.heads); };
  s.options = randomized_position_options();
  s.needs_logits = true;
  s.reversal_symmetric = true;
  return s;
}

}  // namespace rotor
