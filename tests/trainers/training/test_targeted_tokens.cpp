// What train.objective transduction and completion share (targeted_tokens.h):
// the batch the model reads, the scores of a split per sample and in total,
// the data each row reads, and that a tiny model learns a sequence task.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "datasets/batcher.h"
#include "tests/trainers/training/sequence_fixture.h"

using namespace rotor;
using namespace rotor::test;

TEST_CASE("a targeted batch keeps the tokens and turns kNoTarget into the loss's ignore index", "[sequence]") {
  const TokenizedSplit split = reverse_split("train", SequenceLayout::queries, 2);
  const Batch batch = make_batch(split, eval_windows(split, WindowConfig{}), {0, 3});  // "a", then "b a"
  const LanguageModelBatch lm = targeted_batch(batch);
  CHECK(lm.tokens == batch.tokens);
  CHECK(lm.lengths == batch.lengths);
  CHECK(lm.targets == std::vector<int32_t>{kUnscoredTarget, 4, kUnscoredTarget, kUnscoredTarget, kUnscoredTarget,
                                           kUnscoredTarget, 4, 5});
  CHECK(lm.scored == 3);
}

TEST_CASE("a split's scores count tokens, and a sample only when all its targets are right", "[sequence]") {
  SampleScores s;
  s.nats = {1.0, 2.0, 3.0};
  s.targets = {2, 1, 3};
  s.correct = {2, 0, 2};
  const SplitScores transduction = targeted_scores(s, objective_spec(ObjectiveKind::transduction));
  CHECK(transduction.get("loss") == Approx(6.0 / 6.0));
  CHECK(transduction.get("token_accuracy") == Approx(4.0 / 6.0));
  CHECK(transduction.get("sequence_accuracy") == Approx(1.0 / 3.0));
  const SplitScores completion = targeted_scores(s, objective_spec(ObjectiveKind::completion));
  CHECK(completion.get("exact_match") == Approx(1.0 / 3.0));
  CHECK_THROWS(completion.get("sequence_accuracy"));
  const SplitScores nothing = targeted_scores(SampleScores{{0.0}, {0}, {0}}, objective_spec(ObjectiveKind::completion));
  CHECK(std::isnan(nothing.get("loss")));
  CHECK(std::isnan(nothing.get("exact_match")));  // absent, never 0 or 1
}

TEST_CASE("evaluating a split scores each sample as that sample alone", "[sequence]") {
  for (const ObjectiveKind kind : {ObjectiveKind::transduction, ObjectiveKind::completion}) {
    const ObjectiveSpec& spec = objective_spec(kind);
    INFO(spec.name());
    const Config config = tiny_config(kind);
    const Dataset data = dataset_of({reverse_split("train", *spec.layout, 3)});
    const std::unique_ptr<Objective> objective = make_objective(config, data);
    objective->model().initialize(3);
    auto& model = dynamic_cast<LanguageModel&>(objective->model());
    const TokenizedSplit& split = data.splits[0];
    const TargetedEvaluation e = evaluate_targeted(model, split, config.data, spec);  // batches of 8, longest first
    REQUIRE(e.samples.nats.size() == static_cast<size_t>(split.num_docs()));
    for (int64_t doc = 0; doc < split.num_docs(); ++doc) {
      const LanguageModelBatch alone = targeted_batch(make_batch(split, eval_windows(split, WindowConfig{}), {doc}));
      ForwardContext ctx;
      const TargetScores s = score_targets(model.logits(alone.input(), ctx).value(), alone.targets);
      CHECK(e.samples.targets[doc] == s.count);
      CHECK(e.samples.correct[doc] == s.correct);
      CHECK(e.samples.nats[doc] == Approx(s.nats).epsilon(1e-5));
    }
    CHECK(e.scores == targeted_scores(e.samples, spec));
  }
}

TEST_CASE("each row reads its own data: targets for a sequence objective, none for the others", "[sequence]") {
  const Dataset sequences = dataset_of({reverse_split("train", SequenceLayout::queries, 2)});
  TokenizedSplit plain;
  plain.name = "train";
  plain.add({4, 5, 6}, 0);
  const Dataset documents = dataset_of({plain});
  Config classify = tiny_config(ObjectiveKind::classify);
  classify.data.task = "reverse-string";
  try {
    make_objective(classify, sequences);
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK_THAT(e.what(), Catch::Contains("data.task: 'reverse-string' is a sequence task") &&
                             Catch::Contains("train.objective classify"));
  }
  for (const ObjectiveKind kind : {ObjectiveKind::transduction, ObjectiveKind::completion}) {
    Config config = tiny_config(kind);
    config.data.task = "listops-easy";
    try {
      make_objective(config, documents);
      FAIL("expected a ConfigError");
    } catch (const ConfigError& e) {
      CHECK_THAT(e.what(), Catch::Contains("data.task: 'listops-easy' has no per-token targets") &&
                               Catch::Contains(std::string("train.objective ") + option_name(kind)));
    }
  }
  // A file without targets given to a sequence run's evaluation (rotor eval --data) is refused, not scored as nothing.
  const Config config = tiny_config(ObjectiveKind::transduction);
  const std::unique_ptr<Objective> objective = make_objective(config, sequences);
  auto& model = dynamic_cast<LanguageModel&>(objective->model());
  CHECK_THROWS_AS(evaluate_targeted(model, plain, config.data, objective_spec(ObjectiveKind::transduction)), DataError);
}

TEST_CASE("a tiny model learns reverse-string in distribution under either objective", "[sequence]") {
  for (const ObjectiveKind kind : {ObjectiveKind::transduction, ObjectiveKind::completion}) {
    const ObjectiveSpec& spec = objective_spec(kind);
    INFO(spec.name());
    const Config config = tiny_config(kind);
    const Dataset data = dataset_of({reverse_split("train", *spec.layout, 4)});  // 30 samples
    const std::unique_ptr<Objective> objective = make_objective(config, data);
    objective->model().initialize(1);
    const double before = objective->evaluate("train").get("token_accuracy");
    train_steps(*objective, config, 800);
    const SplitScores after = objective->evaluate("train");
    CHECK(before < 0.7);
    CHECK(after.get("token_accuracy") > 0.95);
    CHECK(after.get(spec.default_best_metric) > 0.8);
  }
}

TEST_CASE("randomized_evaluation draws each evaluation batch's positions afresh", "[sequence][positions]") {
  Config config = tiny_config(ObjectiveKind::transduction);
  config.model.position.set("randomized", true);
  config.model.position.set("randomized_evaluation", true);
  config.model.position.set("max_positions", 64);
  // One sample 16 times: two batches of 8 that differ only in their positions' draw.
  const TokenizedSplit all = reverse_split("train", SequenceLayout::queries, 3);
  TokenizedSplit same;
  same.name = "test";
  const int64_t doc = all.num_docs() - 1;
  const std::vector<int32_t> tokens(all.doc_tokens(doc), all.doc_tokens(doc) + all.doc_length(doc));
  const std::vector<int32_t> targets(all.doc_targets(doc), all.doc_targets(doc) + all.doc_length(doc));
  for (int i = 0; i < 16; ++i) same.add_with_targets(tokens, targets);
  const Dataset data = dataset_of({all, same});
  const std::unique_ptr<Objective> objective = make_objective(config, data);
  objective->model().initialize(3);
  auto& model = dynamic_cast<LanguageModel&>(objective->model());
  const TargetedEvaluation e =
      evaluate_targeted(model, data.splits[1], config.data, objective_spec(config.train.objective));
  // One draw per batch: the same within a batch, another in the next. A batch's rows agree to
  // rounding, not to the bit: the matrix library may round the rows of one product differently
  // (1e-9 relative on one CPU), while the two draws differ by 3e-5.
  std::vector<double> draws;
  for (double x : e.samples.nats)
    if (std::none_of(draws.begin(), draws.end(), [x](double d) { return std::abs(d - x) <= 1e-7 * std::abs(d); }))
      draws.push_back(x);
  CHECK(draws.size() == 2);
  const TargetedEvaluation again =
      evaluate_targeted(model, data.splits[1], config.data, objective_spec(config.train.objective));
  CHECK(again.samples.nats == e.samples.nats);  // reproducible
}
