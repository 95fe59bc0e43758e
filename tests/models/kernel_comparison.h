#pragma once
// A whole model's forward and backward on the fused attention kernel against
// the composed reference (attention_kernel: composed): the tiny two-layer
// configs with both dropouts on, logits, loss and every parameter gradient.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "tests/models/model_test_support.h"

namespace rotor::model_test {

struct ForwardBackward {
  std::vector<double> logits;
  std::vector<std::pair<std::string, std::vector<double>>> grads;  // per parameter
  double loss = 0;
};

inline ForwardBackward run(const ModelConfig& c, DType dtype, const ToyBatch& b, bool training, bool causal = false) {
  EncoderClassifier model(c, dtype);
  model.initialize(21);
  model.parameters().zero_grad();
  ForwardContext ctx{training, 5, 3};
  ctx.causal = causal;
  const Var logits = model.logits(b.input(), ctx);
  const Var loss = model.loss(logits, b.labels);
  backward(loss);
  ForwardBackward r{logits.value().to_doubles(), {}, loss.value().item()};
  const ParameterStore& params = model.parameters();
  for (size_t id = 0; id < params.infos().size(); ++id)
    r.grads.emplace_back(params.infos()[id].name, params.grad(static_cast<ParameterId>(id)).to_doubles());
  return r;
}

// max |a - b| / max(max |b|, floor): a relative error over the whole tensor.
inline double relative_error(const std::vector<double>& a, const std::vector<double>& b, double floor = 1e-12) {
  REQUIRE(a.size() == b.size());
  double diff = 0, scale = floor;
  for (size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return diff / scale;
}

// "alibi_directional-learned": alibi_directional with learned slopes.
inline ModelConfig kernel_config(const std::string& variant, AttentionKernel kernel) {
  const bool learned_slopes = variant == "alibi_directional-learned";
  ModelConfig c = with_dropout_on(tiny_config(learned_slopes ? "alibi_directional" : variant), kernel);
  if (learned_slopes) c.position.set("learned_slopes", true);
  if (variant == "learned") c.position.set("max_len", 128);
  if (variant == "xpos") c.position.set("xpos_scale_base", 16.0);  // scales up to 0.29^(-35/16) ~ 15 at N = 70
  return c;
}

inline void check_same(const ForwardBackward& fused, const ForwardBackward& composed, double tol) {
  CHECK(relative_error(fused.logits, composed.logits) < tol);
  CHECK(std::abs(fused.loss - composed.loss) < tol * std::max(1.0, std::abs(composed.loss)));
  REQUIRE(fused.grads.size() == composed.grads.size());
  // The k bias's exact gradient is zero (it shifts a whole softmax row), so a
  // gradient is measured against at least 1e-3 of the largest one: rounding
  // noise on an exact zero is not an error.
  double largest = 0;
  for (const auto& g : composed.grads)
    for (double x : g.second) largest = std::max(largest, std::abs(x));
  for (size_t p = 0; p < fused.grads.size(); ++p) {
    CAPTURE(fused.grads[p].first);
    CHECK(relative_error(fused.grads[p].second, composed.grads[p].second, 1e-3 * largest) < tol);
  }
}

}  // namespace rotor::model_test
