// train.objective transduction and completion against an independent PyTorch
// script written from the papers' set-ups (tools/golden/make_sequence_golden.py):
// the samples rendered by rotor's layout, batched, and run through the
// objective that training uses must give the script's tokens, targets, loss and
// every parameter gradient. The row builds a float32 model (the lm_* golden
// files check the heads in float64), so the tolerance is float32's 1e-4: a
// target at a wrong position or a wrong average moves the loss by far more.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>

#include "datasets/batcher.h"
#include "datasets/tasks/sequence_layout.h"
#include "golden_file.h"
#include "trainers/training/objective.h"

using namespace rotor;

namespace {

// The script's model: make_golden.py's tiny encoder, with its encoding.
Config config_from(const test::GoldenFile& f) {
  Config c;
  c.train.objective = *parse_option<ObjectiveKind>(f.attr_string("objective"));
  ModelConfig& m = c.model;
  m.vocab_size = f.attr_int("vocab_size");
  m.d_model = f.attr_int("d_model");
  m.heads = f.attr_int("heads");
  m.layers = f.attr_int("layers");
  m.d_ff = f.attr_int("d_ff");
  m.norm_eps = f.attr_double("ln_eps");
  m.dropout = m.attention_dropout = 0.0;
  m.position.type = f.attr_string("position_type");
  test::set_position_keys(f, m.position);
  return c;
}

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// reverse-string's samples of the script, rendered by the objective row's layout, as token ids of the file's symbols.
TokenizedSplit rendered_split(const test::GoldenFile& f, SequenceLayout layout) {
  const std::vector<std::string> symbols = words(f.attr_string("symbols"));
  const auto id = [&](const std::string& s) {
    const auto at = std::find(symbols.begin(), symbols.end(), s);
    REQUIRE(at != symbols.end());
    return static_cast<int32_t>(f.attr_int("first_symbol_id") + (at - symbols.begin()));
  };
  TokenizedSplit split;
  split.name = "train";
  for (const auto& [input, output] : {std::pair{"0 1 1", "1 1 0"}, std::pair{"1 0 0 1 0", "0 1 0 0 1"}}) {
    const RenderedSample r = render({words(input), words(output)}, layout);
    std::vector<int32_t> tokens, targets;
    for (const std::string& s : r.tokens) tokens.push_back(id(s));
    for (const std::string& s : r.targets) targets.push_back(s.empty() ? kNoTarget : id(s));
    split.add_with_targets(tokens, targets);
  }
  return split;
}

double relative_error(const std::vector<double>& a, const std::vector<double>& b, double floor) {
  double diff = 0, scale = floor;
  for (size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return diff / scale;
}

void load_parameters(const test::GoldenFile& f, ParameterStore& params) {
  const auto names = f.names("/params");
  REQUIRE(names.size() == params.infos().size());
  for (const std::string& name : names) {
    Tensor target = params.value(params.id(name));
    REQUIRE(target.shape() == f.shape("/params/" + name));
    target.copy_from(Tensor::from_doubles(target.shape(), DType::F64, f.doubles("/params/" + name)));
  }
}

std::vector<int32_t> int32s(const test::GoldenFile& f, const std::string& dataset) {
  const auto v = f.ints(dataset);
  return {v.begin(), v.end()};
}

}  // namespace

TEST_CASE("transduction and completion match the PyTorch golden files (layout, batch, loss, gradients)",
          "[golden][sequence]") {
  const auto variant = GENERATE(as<std::string>{}, "seq_transduction_rope", "seq_completion_alibi");
  INFO(variant);
  test::GoldenFile f(std::string(ROTOR_TEST_DATA_DIR) + "/golden/" + variant + ".h5");
  Config config = config_from(f);
  const ObjectiveSpec& spec = objective_spec(config.train.objective);
  REQUIRE(spec.layout.has_value());
  Dataset data;
  data.splits.push_back(rendered_split(f, *spec.layout));
  const std::unique_ptr<Objective> objective = make_objective(config, data);
  // The row's head: the script's parameters, no more, no fewer.
  objective->model().initialize(0);
  ParameterStore& params = objective->model().parameters();
  load_parameters(f, params);
  const Batch batch = make_batch(data.splits[0], eval_windows(data.splits[0], WindowConfig{}), {0, 1});
  CHECK(batch.tokens == int32s(f, "/input/tokens"));  // the layout is the papers' set-up
  CHECK(batch.targets == int32s(f, "/input/targets"));
  CHECK(batch.lengths == int32s(f, "/input/lengths"));
  ForwardContext ctx;
  const BatchLoss loss = objective->forward(batch, ctx);
  CHECK(loss.terms == std::count_if(batch.targets.begin(), batch.targets.end(), [](int32_t t) { return t >= 0; }));
  CHECK(objective->loss_terms(batch) == loss.terms);
  params.zero_grad();
  backward(loss.loss);
  CHECK(relative_error(loss.loss.value().to_doubles(), f.doubles("/output/loss"), 1e-300) < 1e-4);
  // Each gradient relative to its largest entry, or to a thousandth of the largest gradient when smaller
  // (float32 rounding around an exact gradient near 0, as test_golden.cpp).
  double largest = 0;
  for (const std::string& name : f.names("/params"))
    for (const double g : f.doubles("/grads/" + name)) largest = std::max(largest, std::abs(g));
  for (const std::string& name : f.names("/params")) {
    INFO(name);
    const std::vector<double> expected = f.doubles("/grads/" + name);
    CHECK(relative_error(params.grad(params.id(name)).to_doubles(), expected, 1e-3 * largest) < 1e-4);
  }
}
