// The C++ models against an independent PyTorch implementation
// (tools/golden/make_golden.py): same weights and batch, so logits, loss and
// every parameter gradient must agree (float64: 1e-9 relative; float32: 1e-4).
// The *_causal files run with ForwardContext::causal (each encoding's decoder
// form; linear attention's running sums over j <= i) and also hold every
// position's hidden state.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "golden_file.h"
#include "model_test_support.h"
#include "models/language_model.h"
#include "models/t5_relative_bias.h"

using namespace rotor;
using rotor::model_test::option;

namespace {

std::string golden_path(const std::string& variant) {
  return std::string(ROTOR_TEST_DATA_DIR) + "/golden/" + variant + ".h5";
}

ModelConfig config_from(const test::GoldenFile& f) {
  ModelConfig c;
  c.vocab_size = f.attr_int("vocab_size");
  c.d_model = f.attr_int("d_model");
  c.heads = f.attr_int("heads");
  c.layers = f.attr_int("layers");
  c.d_ff = f.attr_int("d_ff");
  c.num_classes = f.attr_int("classes");
  c.norm = option<NormPlacement>(f.attr_string("norm"));
  c.pooling = option<Pooling>(f.attr_string("pooling"));
  c.attention = option<AttentionKind>(f.attr_string("attention"));
  if (f.has_attr("linear_rotation")) c.linear_rotation = option<LinearRotation>(f.attr_string("linear_rotation"));
  if (f.has_attr("embedding_scale")) c.embedding_scale = option<EmbeddingScale>(f.attr_string("embedding_scale"));
  c.norm_eps = f.attr_double("ln_eps");
  c.dropout = c.attention_dropout = 0.0;
  c.position.type = f.attr_string("position_type");
  test::set_position_keys(f, c.position);
  test::set_interleaved_position(f, c);
  return c;
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

// max |a - b| / max(max |b|, floor). The floor matters only for tensors whose
// exact gradient is zero: without rotation, the key bias shifts every logit of
// a query by the same amount, which softmax ignores, so PyTorch and we both
// produce rounding noise around 0 there.
// The floor is a fraction of the model's largest gradient. That noise is a
// cancelling sum of terms as large as that gradient, so it is a few of their
// roundings: in float32 (ulp 6e-8) the fraction is 1e-2, which makes the
// tolerance ~17 float32 ulps of the largest gradient (1e-3 left 1.7 ulps and
// failed on another CPU's kernels at 1.03e-4); float64 keeps 1e-3.
double zero_gradient_floor(DType dtype) { return dtype == DType::F32 ? 1e-2 : 1e-3; }

double relative_error(const std::vector<double>& a, const std::vector<double>& b, double floor = 1e-300) {
  double diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff = std::max(diff, std::abs(a[i] - b[i]));
  return diff / std::max(max_abs(b), floor);
}

struct GoldenRun {
  double logits_error = 0, loss_error = 0, grad_error = 0, hidden_error = 0;
  std::string worst_grad;
};

bool causal_file(const test::GoldenFile& f) { return f.has_attr("causal") && f.attr_int("causal") != 0; }

// The causal files' [B, N, d_model] hidden states (after the final norm) against the model's.
double hidden_error(const EncoderClassifier& model, const test::GoldenFile& f, const ModelInput& input) {
  ForwardContext ctx;
  ctx.causal = true;
  const Var hidden = model.hidden_states(input, ctx);
  REQUIRE(hidden.shape() == f.shape("/output/hidden"));
  return relative_error(hidden.value().to_doubles(), f.doubles("/output/hidden"));
}

// The file's parameters into the model's (the same names, no more, no fewer).
void load_parameters(const test::GoldenFile& f, ParameterStore& params) {
  const auto names = f.names("/params");
  REQUIRE(names.size() == params.infos().size());
  for (const std::string& name : names) {
    const Tensor v = params.value(params.id(name));
    REQUIRE(v.shape() == f.shape("/params/" + name));
    Tensor target = v;  // view into the flat buffer
    target.copy_from(Tensor::from_doubles(v.shape(), DType::F64, f.doubles("/params/" + name)));
  }
}

std::vector<int32_t> int32s(const test::GoldenFile& f, const std::string& dataset) {
  const auto v = f.ints(dataset);
  return {v.begin(), v.end()};
}

// The file's batch, with its tokens' positions when it gives them (the coupled variants); input() views it.
struct GoldenBatch {
  std::vector<int32_t> tokens, lengths, positions;
  Shape shape;
  explicit GoldenBatch(const test::GoldenFile& f)
      : tokens(int32s(f, "/input/tokens")), lengths(int32s(f, "/input/lengths")), shape(f.shape("/input/tokens")) {
    const std::vector<std::string> inputs = f.names("/input");
    if (std::find(inputs.begin(), inputs.end(), "positions") != inputs.end()) positions = int32s(f, "/input/positions");
  }
  ModelInput input() const { return {tokens, lengths, shape[0], shape[1], positions.empty() ? nullptr : &positions}; }
};

// Logits and loss against the file's, then every gradient of the loss (already backpropagated).
void compare_outputs(const test::GoldenFile& f, const ParameterStore& params, const Var& logits, const Var& loss,
                     DType dtype, GoldenRun& r) {
  r.logits_error = relative_error(logits.value().to_doubles(), f.doubles("/output/logits"));
  r.loss_error = relative_error(loss.value().to_doubles(), f.doubles("/output/loss"));
  const auto names = f.names("/params");
  double largest_grad = 0;
  for (const std::string& name : names) largest_grad = std::max(largest_grad, max_abs(f.doubles("/grads/" + name)));
  for (const std::string& name : names) {
    const double e = relative_error(params.grad(params.id(name)).to_doubles(), f.doubles("/grads/" + name),
                                    zero_gradient_floor(dtype) * largest_grad);
    if (e >= r.grad_error) {
      r.grad_error = e;
      r.worst_grad = name;
    }
  }
}

GoldenRun run_against(const std::string& variant, DType dtype, AttentionKernel kernel = AttentionKernel::fused) {
  test::GoldenFile f(golden_path(variant));
  ModelConfig config = config_from(f);
  config.attention_kernel = kernel;
  EncoderClassifier model(config, dtype);
  model.initialize(0);
  ParameterStore& params = model.parameters();
  load_parameters(f, params);
  const GoldenBatch batch(f);
  ForwardContext ctx;
  ctx.causal = causal_file(f);
  Var logits = model.logits(batch.input(), ctx);
  Var loss = model.loss(logits, int32s(f, "/input/labels"));
  params.zero_grad();
  backward(loss);
  GoldenRun r;
  compare_outputs(f, params, logits, loss, dtype, r);
  if (ctx.causal) r.hidden_error = hidden_error(model, f, batch.input());
  return r;
}

// The lm_* files: a LanguageModel of the file's kind (attribute lm) run with a default context
// (the causal kind must make itself causal), scored on /input/targets.
GoldenRun run_lm_against(const std::string& variant, DType dtype, AttentionKernel kernel) {
  test::GoldenFile f(golden_path(variant));
  ModelConfig config = config_from(f);
  config.attention_kernel = kernel;
  const LanguageModelKind kind =
      f.attr_string("lm") == "causal" ? LanguageModelKind::causal : LanguageModelKind::masked;
  REQUIRE(causal_file(f) == (kind == LanguageModelKind::causal));
  LanguageModel model(config, kind, dtype);
  model.initialize(0);
  ParameterStore& params = model.parameters();
  load_parameters(f, params);
  const GoldenBatch batch(f);
  ForwardContext ctx;
  Var logits = model.logits(batch.input(), ctx);
  REQUIRE(logits.shape() == f.shape("/output/logits"));
  Var loss = model.loss(logits, int32s(f, "/input/targets"));
  params.zero_grad();
  backward(loss);
  GoldenRun r;
  compare_outputs(f, params, logits, loss, dtype, r);
  return r;
}

// Logits, loss, every position's output (the causal files) and every gradient of `variant` on both kernels,
// float64 to rounding and float32 to its precision.
void check_on_both_kernels(const std::string& variant) {
  for (const AttentionKernel kernel : {AttentionKernel::fused, AttentionKernel::composed})
    for (const auto& [dtype, tolerance] : {std::pair{DType::F64, 1e-9}, std::pair{DType::F32, 1e-4}}) {
      const GoldenRun r = run_against(variant, dtype, kernel);
      INFO(variant << " " << dtype_name(dtype) << (kernel == AttentionKernel::fused ? " fused" : " composed")
                   << ": logits " << r.logits_error << ", loss " << r.loss_error << ", hidden " << r.hidden_error
                   << ", worst gradient " << r.worst_grad << " " << r.grad_error);
      CHECK(r.logits_error <= tolerance);
      CHECK(r.loss_error <= tolerance);
      CHECK(r.hidden_error <= tolerance);
      CHECK(r.grad_error <= tolerance);
    }
}

}  // namespace

TEST_CASE("models match the PyTorch golden files", "[golden]") {
  const auto variant =
      GENERATE(as<std::string>{}, "rope_interleaved", "rope_half", "rope_half_partial", "sinusoidal", "learned",
               "t5_bias", "alibi", "none", "linear_rope", "linear_rope_code", "sinusoidal_post_cls", "alibi_max",
               "kerple", "alibi_directional", "fire", "xpos", "p_rope", "rope_llama3", "rope_dynamic_ntk",
               "rope_resonance", "rope_logn", "alibi_logn", "sandwich", "rope_irope", "rope_two_bases",
               "t5_bias_kerple", "rope_longrope", "rope_longrope_short");
  // float64 must agree to rounding; float32 to its precision.
  for (const auto& [dtype, tolerance] : {std::pair{DType::F64, 1e-9}, std::pair{DType::F32, 1e-4}}) {
    const GoldenRun r = run_against(variant, dtype);
    INFO(variant << " " << dtype_name(dtype) << ": logits " << r.logits_error << ", loss " << r.loss_error
                 << ", worst gradient " << r.worst_grad << " " << r.grad_error);
    CHECK(r.logits_error <= tolerance);
    CHECK(r.loss_error <= tolerance);
    CHECK(r.grad_error <= tolerance);
  }
}

TEST_CASE("models at the data's positions match the PyTorch golden files (coupled, repeated, descending)",
          "[golden][positions]") {
  const auto variant =
      GENERATE(as<std::string>{}, "rope_coupled", "sinusoidal_coupled", "learned_coupled", "t5_bias_coupled",
               "alibi_coupled", "kerple_coupled", "fire_coupled", "sandwich_coupled", "xpos_coupled", "p_rope_coupled",
               "alibi_directional_coupled", "rope_coupled_causal", "alibi_coupled_causal", "t5_bias_coupled_causal",
               "kerple_coupled_causal", "fire_coupled_causal", "rope_llama3_coupled", "rope_dynamic_ntk_coupled",
               "rope_resonance_coupled", "rope_longrope_coupled", "rope_logn_coupled", "xpos_coupled_causal",
               "sandwich_coupled_causal");
  check_on_both_kernels(variant);
}

TEST_CASE("causal models match the PyTorch golden files (each encoding's decoder form)", "[golden][causal]") {
  const auto variant = GENERATE(as<std::string>{}, "t5_bias_causal", "fire_causal", "kerple_causal", "alibi_causal",
                                "xpos_causal", "linear_rope_causal", "linear_rope_code_causal", "sandwich_causal");
  check_on_both_kernels(variant);
}

TEST_CASE("CoPE matches the PyTorch golden files on the composed softmax (encoder and causal)", "[golden][cope]") {
  const auto variant = GENERATE(as<std::string>{}, "cope", "cope_causal");
  for (const auto& [dtype, tolerance] : {std::pair{DType::F64, 1e-9}, std::pair{DType::F32, 1e-4}}) {
    const GoldenRun r = run_against(variant, dtype, AttentionKernel::composed);
    INFO(variant << " " << dtype_name(dtype) << ": logits " << r.logits_error << ", loss " << r.loss_error
                 << ", hidden " << r.hidden_error << ", worst gradient " << r.worst_grad << " " << r.grad_error);
    CHECK(r.logits_error <= tolerance);
    CHECK(r.loss_error <= tolerance);
    CHECK(r.hidden_error <= tolerance);
    CHECK(r.grad_error <= tolerance);
  }
}

TEST_CASE("language models match the PyTorch golden files (tied output, BERT's transform, -100 targets)",
          "[golden][language_model]") {
  const auto variant = GENERATE(as<std::string>{}, "lm_causal_rope", "lm_causal_alibi", "lm_masked_rope");
  for (const AttentionKernel kernel : {AttentionKernel::fused, AttentionKernel::composed})
    for (const auto& [dtype, tolerance] : {std::pair{DType::F64, 1e-9}, std::pair{DType::F32, 1e-4}}) {
      const GoldenRun r = run_lm_against(variant, dtype, kernel);
      INFO(variant << " " << dtype_name(dtype) << (kernel == AttentionKernel::fused ? " fused" : " composed")
                   << ": logits " << r.logits_error << ", loss " << r.loss_error << ", worst gradient " << r.worst_grad
                   << " " << r.grad_error);
      CHECK(r.logits_error <= tolerance);
      CHECK(r.loss_error <= tolerance);
      CHECK(r.grad_error <= tolerance);
    }
}

TEST_CASE("T5 decoder buckets match PyTorch for every relative position in -300..300", "[golden][causal]") {
  test::GoldenFile f(golden_path("t5_bias_causal"));
  const auto rel = f.ints("/aux/t5_rel");
  const auto bucket = f.ints("/aux/t5_bucket");
  REQUIRE(rel.size() == 601);
  for (size_t i = 0; i < rel.size(); ++i) {
    INFO("relative position " << rel[i]);
    CHECK(t5_causal_bucket(rel[i], 32, 128) == bucket[i]);
  }
}

TEST_CASE("T5 buckets match PyTorch for every relative position in -300..300", "[golden]") {
  test::GoldenFile f(golden_path("t5_bias"));
  const auto rel = f.ints("/aux/t5_rel");
  const auto bucket = f.ints("/aux/t5_bucket");
  REQUIRE(rel.size() == 601);
  for (size_t i = 0; i < rel.size(); ++i) {
    INFO("relative position " << rel[i]);
    CHECK(t5_bucket(rel[i], 32, 128) == bucket[i]);
  }
}

TEST_CASE("directional ALiBi's fixed slopes match PyTorch's split of the 2H-head schedule", "[golden]") {
  test::GoldenFile f(golden_path("alibi_directional"));
  for (const int64_t heads : {2, 3, 8, 12}) {
    ModelConfig c = model_test::tiny_config("alibi_directional");
    c.heads = heads;
    c.d_model = 4 * heads;
    c.position.set("learned_slopes", true);  // the starting values are the fixed split
    EncoderClassifier model(c, DType::F64);
    model.initialize(3);
    const ParameterStore& p = model.parameters();
    const std::string suffix = "_" + std::to_string(heads);
    INFO(heads << " heads");
    CHECK(relative_error(p.value(p.id("position.alibi_directional.slopes_before")).to_doubles(),
                         f.doubles("/aux/slopes_before" + suffix)) < 1e-15);
    CHECK(relative_error(p.value(p.id("position.alibi_directional.slopes_after")).to_doubles(),
                         f.doubles("/aux/slopes_after" + suffix)) < 1e-15);
  }
}
