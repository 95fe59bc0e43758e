#include "models/logn_query_scaling.h"

#include <cmath>

namespace rotor {

std::vector<PositionOption> logn_scaling_options() {
  return {PositionOption::flag("logn_scaling", false,
                               "Qwen's log-length query scaling: past original_max_len L, the query at 1-based "
                               "position n is multiplied by log(n) / log(L) (softmax attention)"),
          training_length_option()};
}

LognQueryScaling::LognQueryScaling(const PositionConfig& c)
    : training_length_(c.flag("logn_scaling") ? c.integer("original_max_len") : 0) {}

double LognQueryScaling::factor(int64_t position) const {
  const int64_t n = position + 1;
  if (!enabled() || n <= training_length_) return 1.0;
  return std::log(static_cast<double>(n)) / std::log(static_cast<double>(training_length_));
}

Var LognQueryScaling::apply(const Var& q, const Positions& positions) const {
  const int64_t n = q.size(2);
  if (!enabled() || positions.end(n) <= training_length_) return q;
  std::vector<double> factors(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) factors[i] = factor(positions.at(i));
  return mul(q, Var(Tensor::from_doubles({1, 1, n, 1}, q.dtype(), factors)));
}

}  // namespace rotor
