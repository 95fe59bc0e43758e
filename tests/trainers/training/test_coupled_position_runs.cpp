// Coupled positions (data.generated.positions: coupled) from the data to the
// model: a batch's positions reach the forward in evaluation (each sample
// scored as itself alone, and not as at 0..N-1) and in a whole training run
// (through its gradient groups), greedy decoding at coupled
// positions agrees with the teacher-forced argmaxes, and the config refuses
// randomized positions beside them.
#include <catch2/catch.hpp>

#include <fstream>

#include "datasets/batcher.h"
#include "tests/trainers/training/run_fixture.h"
#include "tests/trainers/training/sequence_fixture.h"
#include "trainers/config/config_loader.h"
#include "trainers/diagnostics/sequence_predictions.h"
#include "trainers/training/trainer.h"

using namespace rotor;
using namespace rotor::test;

namespace {

Config coupled_config(ObjectiveKind kind, const Dataset* data = nullptr) {
  Config c = tiny_config(kind);
  c.data.task = "binary-addition";
  c.data.labelled = false;
  c.data.cache = false;
  c.data.train_size = 160;
  c.data.eval_size = 24;
  c.data.generated.min_len = 3;
  c.data.generated.max_len = 8;
  c.data.generated.test_lengths = {};
  c.data.generated.positions = TokenPositions::coupled;
  c.data.sequence_layout = *objective_spec(kind).layout;
  c.data.max_len = 24;
  if (data) c.model.vocab_size = data->tokenizer->vocab_size();
  return c;
}

// A transduction config at coupled positions that passes config validation as it is.
Config loadable_coupled_config() {
  Config c = coupled_config(ObjectiveKind::transduction);
  c.run.name = "coupled";
  c.train.max_steps = 10;
  c.train.best_metric = objective_spec(ObjectiveKind::transduction).default_best_metric;
  c.model.vocab_size = 8;
  return c;
}

// The argmax at each slot of one sample, teacher-forced, at its coupled positions.
std::vector<int32_t> forced_argmax(const LanguageModel& model, const TokenizedSplit& split, int64_t doc) {
  const LanguageModelBatch alone = targeted_batch(make_batch(split, eval_windows(split, WindowConfig{}), {doc}));
  NoGradGuard no_grad;
  ForwardContext ctx;
  const std::vector<double> logits = model.logits(alone.input(), ctx).value().to_doubles();
  const size_t n = alone.tokens.size(), vocab = logits.size() / n;
  std::vector<int32_t> out;
  for (size_t t = 0; t < n; ++t)
    out.push_back(static_cast<int32_t>(std::max_element(logits.begin() + t * vocab, logits.begin() + (t + 1) * vocab) -
                                       (logits.begin() + t * vocab)));
  return out;
}

}  // namespace

TEST_CASE("coupled positions reach the model: each sample scored as itself alone, not as at 0..N-1",
          "[sequence][positions]") {
  const ObjectiveKind kind = GENERATE(ObjectiveKind::transduction, ObjectiveKind::completion);
  const ObjectiveSpec& spec = objective_spec(kind);
  INFO(spec.name());
  const Dataset data = load_dataset(coupled_config(kind).data);
  const Config config = coupled_config(kind, &data);
  const std::unique_ptr<Objective> objective = make_objective(config, data);
  objective->model().initialize(3);
  auto& model = dynamic_cast<LanguageModel&>(objective->model());
  const TokenizedSplit& split = data.split("test");
  REQUIRE(split.has_positions());
  const TargetedEvaluation e = evaluate_targeted(model, split, config.data, spec);
  for (int64_t doc = 0; doc < split.num_docs(); ++doc) {
    const LanguageModelBatch alone = targeted_batch(make_batch(split, eval_windows(split, WindowConfig{}), {doc}));
    REQUIRE(alone.positions.size() == alone.tokens.size());
    ForwardContext ctx;
    CHECK(e.samples.nats[doc] ==
          Approx(score_targets(model.logits(alone.input(), ctx).value(), alone.targets).nats).epsilon(1e-5));
  }
  TokenizedSplit index = split;
  index.positions.clear();
  const TargetedEvaluation at_index = evaluate_targeted(model, index, config.data, spec);
  CHECK(at_index.samples.nats != e.samples.nats);
}

TEST_CASE("greedy decoding at coupled positions agrees with the teacher-forced argmaxes", "[sequence][positions]") {
  const Dataset data = load_dataset(coupled_config(ObjectiveKind::completion).data);
  const Config config = coupled_config(ObjectiveKind::completion, &data);
  const std::unique_ptr<Objective> objective = make_objective(config, data);
  objective->model().initialize(1);
  train_steps(*objective, config, 200);  // part of the way: answers right for a few symbols, then wrong
  auto& model = dynamic_cast<LanguageModel&>(objective->model());
  const TokenizedSplit& split = data.split("test");
  const int32_t end_mark = data.tokenizer->encode(kEndSymbol)[0];
  const std::vector<SequencePrediction> predicted =
      predict_sequences(model, split, SequenceLayout::prompt_answer, end_mark, config.data.max_len);
  int64_t deepest = 0;  // the longest right prefix decoded: how far the agreement below was tested
  for (int64_t doc = 0; doc < split.num_docs(); ++doc) {
    INFO("sample " << doc);
    const SequencePrediction& p = predicted[static_cast<size_t>(doc)];
    const std::vector<int32_t> forced = forced_argmax(model, split, doc);
    const auto prompt = static_cast<int64_t>(p.input.size());  // the answer mark follows it
    // While the decoded prefix is the answer, each decoded symbol is the teacher-forced argmax there.
    for (size_t k = 0; k < p.predicted.size() && k <= p.expected.size(); ++k) {
      CHECK(p.predicted[k] == forced[static_cast<size_t>(prompt) + k]);
      if (k == p.expected.size() || p.predicted[k] != p.expected[k]) break;
      deepest = std::max<int64_t>(deepest, static_cast<int64_t>(k) + 1);
    }
  }
  CHECK(deepest >= 2);
}

TEST_CASE("randomized positions beside coupled ones are refused at config load, naming the key",
          "[sequence][positions][config]") {
  Config c = loadable_coupled_config();
  CHECK_NOTHROW(validate(c));
  c.model.position.set("randomized", true);
  c.model.position.set("max_positions", 64);
  CHECK_THROWS_WITH(validate(c), Catch::Contains("model.position.randomized") &&
                                     Catch::Contains("data.generated.positions: coupled"));
}

TEST_CASE("a coupled run's position offset must fit a learned table, checked at config load",
          "[sequence][positions][config]") {
  Config c = loadable_coupled_config();
  c.model.position.type = "learned";
  c.model.position.set("max_len", 64);
  c.data.generated.position_offset = 40;  // max_len 24 + 40 = 64 rows: fits
  CHECK_NOTHROW(validate(c));
  c.data.generated.position_offset = 41;
  CHECK_THROWS_WITH(validate(c), Catch::Contains("model.position.max_len: the learned position table has 64 rows, but "
                                                 "data.max_len + data.generated.position_offset = 65 needs 65"));
}

TEST_CASE("a training run at coupled positions trains on them, at any number of gradient groups",
          "[sequence][positions][slow]") {
  const auto dir = fresh_dir("coupled-run");
  const std::string config = (dir / "addition.yaml").string();
  std::ofstream(config) << "run: {name: add, seed: 3, progress: none, log_every: 2}\n"
                        << "model: {d_model: 16, layers: 1, heads: 2, d_ff: 32, dropout: 0.0, attention_dropout: 0.0,"
                        << " position: {type: rope}}\n"
                        << "data: {task: binary-addition, train_size: 64, eval_size: 16, max_len: 20, batch_size: 8,"
                        << " data_dir: " << (dir / "data").string() << ", generated: {min_len: 3, max_len: 9,"
                        << " test_lengths: []}}\n"
                        << "train: {objective: transduction, best_metric: token_accuracy, lr: 3.0e-3, max_steps: 6,"
                        << " eval_every: 6, warmup_steps: 1}\n";
  auto losses = [&](const std::string& positions, int groups) {
    const std::string out = (dir / (positions + std::to_string(groups))).string();
    REQUIRE(train({config,
                   {"data.generated.positions=" + positions, "train.gradient_groups=" + std::to_string(groups)},
                   "",
                   out}) == 0);
    std::vector<std::string> steps;  // the training events alone: evaluation reads no gradient group
    for (const std::string& line : deterministic_metrics(out))
      if (line.find("\"event\":\"train\"") != std::string::npos) steps.push_back(line);
    REQUIRE(steps.size() == 3);
    return steps;
  };
  for (const int groups : {1, 2}) {  // every gradient group's rows keep their positions
    INFO(groups << " gradient groups");
    CHECK(losses("coupled", groups) != losses("index", groups));
  }
}
