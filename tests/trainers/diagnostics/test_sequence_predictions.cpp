// rotor predict's outputs of a sequence-task run (sequence_predictions.h): a
// transduction run's argmax at the queries, a completion run's greedy decoding
// after the prompt. On a partly trained model (some samples right, some wrong)
// a sample is predicted right exactly when the evaluation counts it right:
// greedy decoding reproduces the answer iff every teacher-forced argmax is right.
#include <catch2/catch.hpp>

#include "tests/trainers/training/sequence_fixture.h"
#include "trainers/diagnostics/sequence_predictions.h"

using namespace rotor;
using namespace rotor::test;

TEST_CASE("a predicted sample is right exactly when the evaluation counts it right", "[sequence]") {
  for (const ObjectiveKind kind : {ObjectiveKind::transduction, ObjectiveKind::completion}) {
    const ObjectiveSpec& spec = objective_spec(kind);
    INFO(spec.name());
    const Config config = tiny_config(kind);
    const Dataset data = dataset_of({reverse_split("train", *spec.layout, 4)});
    const std::unique_ptr<Objective> objective = make_objective(config, data);
    objective->model().initialize(1);
    train_steps(*objective, config, 150);  // part of the way: both kinds of sample
    auto& model = dynamic_cast<LanguageModel&>(objective->model());
    const TokenizedSplit& split = data.splits[0];
    const SampleScores scores = evaluate_targeted(model, split, config.data, spec).samples;
    const std::vector<SequencePrediction> predicted =
        predict_sequences(model, split, *spec.layout, id_of(kEndSymbol), config.data.max_len);
    REQUIRE(predicted.size() == static_cast<size_t>(split.num_docs()));
    int64_t right = 0;
    for (size_t i = 0; i < predicted.size(); ++i) {
      INFO("sample " << i);
      const SequencePrediction& p = predicted[i];
      CHECK(p.input.size() == p.expected.size());  // reverse-string: the output is as long as the input
      CHECK(std::equal(p.input.rbegin(), p.input.rend(), p.expected.begin()));
      CHECK(p.right() == scores.right(i));
      right += p.right();
    }
    CHECK(right > 0);
    CHECK(right < split.num_docs());
  }
}
