#include "models/sinusoidal_encoding.h"

#include <cmath>
#include <vector>

namespace rotor {

Tensor sinusoidal_table(int64_t length, int64_t d, DType dtype) {
  std::vector<double> pe(static_cast<size_t>(length * d));
  for (int64_t p = 0; p < length; ++p)
    for (int64_t j = 0; j < d; ++j) {
      const double angle = static_cast<double>(p) * std::pow(10000.0, -static_cast<double>(j - j % 2) / d);
      pe[p * d + j] = j % 2 == 0 ? std::sin(angle) : std::cos(angle);
    }
  return Tensor::from_doubles({length, d}, dtype, pe);
}

}  // namespace rotor
