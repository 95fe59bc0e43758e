// Causal softmax attention inside a whole model (ForwardContext::causal), for
// every position encoding of the table: the fused kernel against the composed
// reference (logits, loss and every parameter gradient, padding and both
// dropouts on), and causality itself: changing token t never changes a hidden
// state before t, on either kernel. Each encoding takes its causal form
// (models/position_encoding.h, relative_bias), evaluated where j <= i.
// Causal linear attention: test_causal_linear_attention.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/models/causality_check.h"
#include "tests/models/kernel_comparison.h"
#include "tests/models/model_test_support.h"

using namespace rotor;
using namespace rotor::model_test;

namespace {

// Every encoding in the table, plus the second RoPE layout and learned ALiBi slopes.
std::vector<std::string> causal_variants() {
  std::vector<std::string> variants = position_encoding_names();
  variants.push_back("rope-half");
  variants.push_back("alibi_directional-learned");
  return variants;
}

// Those the fused kernel runs: all but an encoding whose bias reads every logit (CoPE), which the
// composed softmax alone takes (test_cope.cpp checks that the fused one is refused).
std::vector<std::string> fused_variants() {
  std::vector<std::string> variants;
  for (const std::string& v : causal_variants())
    if (!position_encoding(kernel_config(v, AttentionKernel::composed).position.type).needs_composed_attention)
      variants.push_back(v);
  return variants;
}

}  // namespace

TEST_CASE("causal fused attention equals the composed reference in every encoding", "[attention][model][causal]") {
  const std::string variant = GENERATE(from_range(fused_variants()));
  const DType dtype = GENERATE(DType::F64, DType::F32);
  const bool training = GENERATE(false, true);
  const int64_t seq_len = GENERATE(7, 70);  // 70: a key tile above the diagonal is skipped
  CAPTURE(variant, dtype == DType::F64 ? "f64" : "f32", training, seq_len);
  const double tol = dtype == DType::F64 ? 1e-10 : 1e-5;
  const ToyBatch b = make_toy_batch(ToyTask::order, 5, seq_len, 12, 9, 1, /*min_len=*/2);  // padded rows
  const ForwardBackward fused = run(kernel_config(variant, AttentionKernel::fused), dtype, b, training, true);
  const ForwardBackward composed = run(kernel_config(variant, AttentionKernel::composed), dtype, b, training, true);
  check_same(fused, composed, tol);
}

TEST_CASE("causal attention: changing token t never changes a hidden state before t", "[attention][model][causal]") {
  const std::string variant = GENERATE(from_range(causal_variants()));
  const AttentionKernel kernel = GENERATE(AttentionKernel::fused, AttentionKernel::composed);
  CAPTURE(variant, option_name(kernel));
  const std::vector<std::string> fused = fused_variants();
  if (kernel == AttentionKernel::fused && std::find(fused.begin(), fused.end(), variant) == fused.end()) return;
  EncoderClassifier model(kernel_config(variant, kernel), DType::F64);
  model.initialize(21);
  require_causal(model, 70, {0, 5, 63, 64, 69});
}
