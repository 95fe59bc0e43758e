// YaRN's attention factor is a temperature on the softmax logits (arXiv
// 2309.00071, eq. 22): softmax(af^2 q.k / sqrt(dh)) with af = 0.1 ln(s) + 1,
// whatever share of the dims rotates and whether v rotates. One attention
// layer against the same computation written out here in double.
#include <catch2/catch.hpp>

#include <cmath>

#include "model_test_support.h"
#include "models/attention.h"

using namespace rotor;
using namespace rotor::model_test;

namespace {

const double kPi = 3.14159265358979323846;

// YaRN frequencies written from the paper / HF formulas (beta_fast 32, beta_slow 1).
std::vector<double> yarn_theta(int64_t r, double base, double s, double original) {
  auto correction = [&](double rotations) {
    return r * std::log(original / (rotations * 2 * kPi)) / (2 * std::log(base));
  };
  const double low = std::max(0.0, std::floor(correction(32))), high = std::min(r - 1.0, std::ceil(correction(1)));
  std::vector<double> theta;
  for (int64_t i = 0; i < r / 2; ++i) {
    const double t = std::pow(base, -2.0 * i / r);
    const double ramp = std::min(1.0, std::max(0.0, (i - low) / (high - low)));  // 1: interpolate fully
    theta.push_back(t / s * ramp + t * (1 - ramp));
  }
  return theta;
}

// y = W x + b for W [out, in] row-major.
std::vector<double> affine(const std::vector<double>& w, const std::vector<double>& b, const std::vector<double>& x) {
  std::vector<double> y(b);
  const size_t in = x.size();
  for (size_t o = 0; o < y.size(); ++o)
    for (size_t i = 0; i < in; ++i) y[o] += w[o * in + i] * x[i];
  return y;
}

// Interleaved pairs (2i, 2i+1), i < r/2, of one head's vector turned by pos * theta_i; the rest unchanged.
std::vector<double> rotate(std::vector<double> v, const std::vector<double>& theta, int64_t pos) {
  for (size_t i = 0; i < theta.size(); ++i) {
    const double a = pos * theta[i], x = v[2 * i], y = v[2 * i + 1];
    v[2 * i] = x * std::cos(a) - y * std::sin(a);
    v[2 * i + 1] = x * std::sin(a) + y * std::cos(a);
  }
  return v;
}

// The attention layer "attn" of `store` (config `c`) on N rows x, written out
// in double: interleaved rotation by theta of q and k (and v if rotary_value),
// softmax(af^2 q.k / sqrt(dh)), the output projection.
std::vector<double> reference_attention(ParameterStore& store, const std::vector<double>& x, int64_t N,
                                        const ModelConfig& c, const std::vector<double>& theta, double af,
                                        bool rotary_value) {
  const int64_t d = c.d_model, H = c.heads, dh = c.head_dim();
  auto param = [&](const std::string& name) { return store.var(name).value().to_doubles(); };
  std::vector<std::vector<double>> q, k, v;  // [N][d]
  for (int64_t p = 0; p < N; ++p) {
    const std::vector<double> xp(x.begin() + p * d, x.begin() + (p + 1) * d);
    q.push_back(affine(param("attn.q.weight"), param("attn.q.bias"), xp));
    k.push_back(affine(param("attn.k.weight"), param("attn.k.bias"), xp));
    v.push_back(affine(param("attn.v.weight"), param("attn.v.bias"), xp));
  }
  auto head = [&](const std::vector<double>& row, int64_t h) {
    return std::vector<double>(row.begin() + h * dh, row.begin() + (h + 1) * dh);
  };
  std::vector<double> want;
  for (int64_t i = 0; i < N; ++i) {
    std::vector<double> merged;
    for (int64_t h = 0; h < H; ++h) {
      const std::vector<double> qi = rotate(head(q[i], h), theta, i);
      std::vector<double> logits, o(static_cast<size_t>(dh), 0.0);
      double top = -1e300, total = 0;
      for (int64_t j = 0; j < N; ++j) {
        logits.push_back(af * af * dot(qi, rotate(head(k[j], h), theta, j)) / std::sqrt(static_cast<double>(dh)));
        top = std::max(top, logits.back());
      }
      for (double& l : logits) total += (l = std::exp(l - top));
      for (int64_t j = 0; j < N; ++j) {
        const std::vector<double> vj = rotary_value ? rotate(head(v[j], h), theta, j) : head(v[j], h);
        for (int64_t e = 0; e < dh; ++e) o[e] += logits[j] / total * vj[e];
      }
      merged.insert(merged.end(), o.begin(), o.end());
    }
    const std::vector<double> out = affine(param("attn.out.weight"), param("attn.out.bias"), merged);
    want.insert(want.end(), out.begin(), out.end());
  }
  return want;
}

}  // namespace

TEST_CASE("yarn: the attention factor scales the logits by its square, with partial rotary and rotary_value",
          "[rope][scaling][yarn]") {
  const bool rotary_value = GENERATE(false, true);
  const double fraction = GENERATE(0.5, 1.0);
  ModelConfig c = tiny_config("rope-interleaved");  // d 16, 2 heads of 8
  c.init_std = 0.5;
  c.position.set("fraction", fraction);
  c.position.set("rotary_value", rotary_value);
  c.position.set("scaling", RopeScaling::yarn);
  c.position.set("scaling_factor", 4.0);
  c.position.set("original_max_len", 16);
  c.position.set("base", 100.0);
  REQUIRE_NOTHROW(c.validate());
  const int64_t d = c.d_model, r = c.rotary_dims(), N = 6;

  ParameterStore store(DType::F64);
  const MultiHeadAttention attention(store, "attn", c);
  const std::unique_ptr<PositionEncoding> rope = make_position_encoding(store, c);
  store.allocate(11);
  const std::vector<double> x = random_normal(N * d, 5);
  AttentionInputs in;
  in.position = rope.get();
  in.logit_mask = Tensor::zeros({1, 1, 1, N}, DType::F64);
  ForwardContext ctx;
  const std::vector<double> got =
      attention.forward(store, Var(Tensor::from_doubles({1, N, d}, DType::F64, x)), in, ctx).value().to_doubles();

  const double af = 0.1 * std::log(4.0) + 1.0;
  const std::vector<double> want =
      reference_attention(store, x, N, c, yarn_theta(r, 100.0, 4.0, 16.0), af, rotary_value);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(want[i]).margin(1e-12));
  CHECK(rope->logit_scale() == Approx(af * af).epsilon(1e-15));
}
