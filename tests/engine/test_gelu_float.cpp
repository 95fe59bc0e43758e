// The float GELU kernels use their own vectorisable erf and exp (not libm):
// forward and derivative must stay within float rounding of the double
// (libm) values over the whole range, including the clamped tails.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/kernels/elementwise.h"

using namespace rotor;
using rotor::kernels::Unary;

TEST_CASE("float GELU (erf form) matches the double kernel within float rounding") {
  std::vector<float> xf;
  for (float x = -20.0f; x <= 20.0f; x += 0.00731f) xf.push_back(x);
  for (float x : {0.0f, -0.0f, 1e-30f, -1e-30f, 100.0f, -100.0f, 1e6f, -1e6f}) xf.push_back(x);
  const int64_t n = static_cast<int64_t>(xf.size());
  std::vector<double> xd(xf.begin(), xf.end());
  std::vector<float> yf(n), dxf(n, 0.0f), onesf(n, 1.0f);
  std::vector<double> yd(n), dxd(n, 0.0), onesd(n, 1.0);
  kernels::unary_forward<float>(Unary::gelu_erf, xf.data(), yf.data(), n);
  kernels::unary_forward<double>(Unary::gelu_erf, xd.data(), yd.data(), n);
  kernels::unary_backward<float>(Unary::gelu_erf, xf.data(), yf.data(), onesf.data(), dxf.data(), n);
  kernels::unary_backward<double>(Unary::gelu_erf, xd.data(), yd.data(), onesd.data(), dxd.data(), n);
  double worst_y = 0.0, worst_dx = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    // relative to max(1, |value|): absolute near 0, relative for large |x|
    worst_y = std::max(worst_y, std::abs(yf[i] - yd[i]) / std::max(1.0, std::abs(yd[i])));
    worst_dx = std::max(worst_dx, std::abs(dxf[i] - dxd[i]) / std::max(1.0, std::abs(dxd[i])));
  }
  // 6e-7 is the deep negative tail (x ~ -5.6), where 1 + erf cancels and the
  // rational fit is ~2 ulp of 1 off; libm's erff in float gets 1.1e-7.
  CHECK(worst_y < 1e-6);
  CHECK(worst_dx < 5e-7);
}
