#pragma once
// Causality of a whole model's hidden states, shared by the softmax and linear
// attention tests: changing token t of an unpadded batch never changes a
// hidden state before t (and does change the one at t).
#include <catch2/catch.hpp>

#include <functional>
#include <vector>

#include "tests/models/model_test_support.h"

namespace rotor::model_test {

// Hidden states [B, N, d] of a causal forward in training mode (dropout on).
inline std::vector<double> causal_states(const EncoderClassifier& model, const ToyBatch& b) {
  NoGradGuard no_grad;
  ForwardContext ctx{true, 5, 3};
  ctx.causal = true;
  return model.hidden_states(b.input(), ctx).value().to_doubles();
}

// Changes token t in every row of 3 unpadded sequences of n tokens, for each t in `changed`:
// `outputs` ([B, n, width] per batch) must keep every slot before t and change slot t.
inline void require_causal(const std::function<std::vector<double>(const ToyBatch&)>& outputs, int64_t width, int64_t n,
                           const std::vector<int64_t>& changed) {
  const ToyBatch b = make_toy_batch(ToyTask::order, 3, n, 12, 9, 1, /*min_len=*/n);
  const std::vector<double> before = outputs(b);
  for (int64_t t : changed) {
    CAPTURE(t);
    ToyBatch other = b;
    for (int64_t row = 0; row < b.batch; ++row) {
      int32_t& token = other.tokens[static_cast<size_t>(row * n + t)];
      token = token == 11 ? 10 : 11;
    }
    const std::vector<double> after = outputs(other);
    bool changed_at_t = false;
    for (int64_t row = 0; row < b.batch; ++row)
      for (int64_t i = 0; i <= t; ++i)
        for (int64_t e = 0; e < width; ++e) {
          const size_t at = static_cast<size_t>((row * n + i) * width + e);
          if (i < t) REQUIRE(before[at] == after[at]);
          if (i == t) changed_at_t = changed_at_t || before[at] != after[at];
        }
    CHECK(changed_at_t);
  }
}

// The model's causal hidden states (causal_states) as above.
inline void require_causal(const EncoderClassifier& model, int64_t n, const std::vector<int64_t>& changed) {
  require_causal([&](const ToyBatch& b) { return causal_states(model, b); }, model.config().d_model, n, changed);
}

}  // namespace rotor::model_test
