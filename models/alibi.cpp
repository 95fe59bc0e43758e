#include "models/alibi.h"

#include <cmath>

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
  std::vector<double> bias(static_cast<size_t>(heads * length * length));
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t i = 0; i < length; ++i)
      for (int64_t j = 0; j < length; ++j)
        bias[(h * length + i) * length + j] = -m[h] * static_cast<double>(std::llabs(i - j));
  return Tensor::from_doubles({heads, length, length}, dtype, bias);
}

}  // namespace rotor
