// Student's t by Abramowitz & Stegun 26.7.3 (odd df) and 26.7.4 (even df):
// with theta = atan(t / sqrt(df)),
//   odd:  A = (2 / pi) (theta + sin(theta) (cos + 2/3 cos^3 + (2 4)/(3 5) cos^5 + ... up to cos^(df-2)))
//   even: A = sin(theta) (1 + 1/2 cos^2 + (1 3)/(2 4) cos^4 + ... up to cos^(df-2))
// where A = P(|T| <= t). The quantile is found by bisection on A, which rises
// monotonically in t.
#include "trainers/study/student_t.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace rotor {

double student_t_central_probability(double t, int64_t df) {
  if (df < 1) throw std::invalid_argument("student_t: degrees of freedom must be >= 1, got " + std::to_string(df));
  if (std::isinf(t)) return 1.0;
  const double theta = std::atan(std::fabs(t) / std::sqrt(static_cast<double>(df)));
  const double c = std::cos(theta), s = std::sin(theta), c2 = c * c;
  if (df % 2 == 1) {
    if (df == 1) return 2.0 * theta / M_PI;
    double term = c, sum = c;  // cos, then (2 4 ... (k-1)) / (3 5 ... k) cos^k
    for (int64_t k = 3; k <= df - 2; k += 2) {
      term *= c2 * static_cast<double>(k - 1) / static_cast<double>(k);
      sum += term;
    }
    return 2.0 / M_PI * (theta + s * sum);
  }
  double term = 1.0, sum = 1.0;  // 1, then (1 3 ... (k-3)) / (2 4 ... (k-2)) cos^(k-2)
  for (int64_t k = 4; k <= df; k += 2) {
    term *= c2 * static_cast<double>(k - 3) / static_cast<double>(k - 2);
    sum += term;
  }
  return s * sum;
}

double student_t_two_sided_p(double t, int64_t df) { return std::max(0.0, 1.0 - student_t_central_probability(t, df)); }

double student_t_critical(double alpha, int64_t df) {
  if (!(alpha > 0.0 && alpha < 1.0)) throw std::invalid_argument("student_t: alpha must be in (0, 1)");
  double low = 0.0, high = 1.0;
  while (student_t_central_probability(high, df) < 1.0 - alpha) high *= 2.0;
  while (high - low > 1e-12 * high) {
    const double mid = 0.5 * (low + high);
    (student_t_central_probability(mid, df) < 1.0 - alpha ? low : high) = mid;
  }
  return 0.5 * (low + high);
}

double student_t_half_width(double sd, int64_t n, double alpha) {
  if (n < 2) return std::nan("");
  return student_t_critical(alpha, n - 1) * sd / std::sqrt(static_cast<double>(n));
}

}  // namespace rotor
