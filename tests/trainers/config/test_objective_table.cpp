// The objective table: a row for every train.objective name, each declaring
// the head it builds, its data, its metrics with their directions and a
// declared default best-checkpoint metric.
#include <catch2/catch.hpp>
#include <tuple>

#include "models/encoder_classifier.h"
#include "models/language_model.h"
#include "trainers/config/objective_table.h"

using namespace rotor;

TEST_CASE("every train.objective name has a row whose default best metric it declares, each name once") {
  REQUIRE(objectives().size() == option_names<ObjectiveKind>().size());
  for (const std::string& name : option_names<ObjectiveKind>()) {
    INFO(name);
    const ObjectiveSpec& spec = objective_spec(*parse_option<ObjectiveKind>(name));
    CHECK(spec.name() == name);
    CHECK(spec.find_metric(spec.default_best_metric) != nullptr);
    CHECK(&evidence_declaration(spec) == spec.find_metric(spec.evidence_metric));
    for (const std::string& metric : spec.study_metrics) CHECK(spec.find_metric(metric) != nullptr);
    for (const MetricDeclaration& m : spec.metrics)
      if (!m.derived_from.empty()) CHECK((spec.find_metric(m.derived_from) != nullptr && m.derive != nullptr));
    for (const MetricDeclaration& m : spec.metrics) {
      INFO(m.name);
      int count = 0;
      for (const MetricDeclaration& o : spec.metrics) count += o.name == m.name;
      CHECK(count == 1);
      CHECK(m.lower_is_better == (m.name == "loss" || m.name == "perplexity" || m.name == "bits_per_token"));
    }
  }
}

TEST_CASE("each objective row builds its own head and declares its data and unit of evidence") {
  ModelConfig m;
  m.vocab_size = 16;
  m.num_classes = 3;
  const std::unique_ptr<Model> classifier = objective_spec(ObjectiveKind::classify).make_model(m);
  CHECK(dynamic_cast<EncoderClassifier*>(classifier.get()) != nullptr);
  CHECK(objective_spec(ObjectiveKind::classify).data == ObjectiveData::labelled_documents);
  CHECK(objective_spec(ObjectiveKind::classify).evidence == EvidenceUnit::document);
  CHECK(objective_spec(ObjectiveKind::classify).default_best_metric == "accuracy");
  for (const auto& [kind, head] : {std::pair{ObjectiveKind::clm, LanguageModelKind::causal},
                                   std::pair{ObjectiveKind::mlm, LanguageModelKind::masked}}) {
    const ObjectiveSpec& spec = objective_spec(kind);
    INFO(spec.name());
    const std::unique_ptr<Model> model = spec.make_model(m);
    const auto* lm = dynamic_cast<LanguageModel*>(model.get());
    REQUIRE(lm != nullptr);
    CHECK(lm->kind() == head);
    CHECK(spec.data == ObjectiveData::token_stream);
    CHECK(spec.evidence == EvidenceUnit::window);
    CHECK(spec.default_best_metric == "loss");
    CHECK(spec.metric_names() == "loss, perplexity, bits_per_token, accuracy");
  }
}

TEST_CASE("the sequence objectives' rows: their heads, per-token targets, their layouts and per-sample evidence") {
  ModelConfig m;
  m.vocab_size = 16;
  for (const auto& [kind, head, layout, sample_metric] :
       {std::tuple{ObjectiveKind::transduction, LanguageModelKind::masked, SequenceLayout::queries,
                   "sequence_accuracy"},
        std::tuple{ObjectiveKind::completion, LanguageModelKind::causal, SequenceLayout::prompt_answer,
                   "exact_match"}}) {
    const ObjectiveSpec& spec = objective_spec(kind);
    INFO(spec.name());
    const std::unique_ptr<Model> model = spec.make_model(m);
    const auto* lm = dynamic_cast<LanguageModel*>(model.get());
    REQUIRE(lm != nullptr);
    CHECK(lm->kind() == head);  // transduction reads both sides of a query; completion only what precedes
    CHECK(spec.data == ObjectiveData::per_token_targets);
    CHECK(spec.layout == layout);
    CHECK(spec.evidence == EvidenceUnit::sample);
    // The best checkpoint by target tokens right: the whole-sample score stays 0 until a task is learnt whole.
    CHECK(spec.default_best_metric == "token_accuracy");
    CHECK(spec.default_best_metric == spec.evidence_metric);
    CHECK(spec.metric_names() == std::string("loss, token_accuracy, ") + sample_metric);
  }
  for (const ObjectiveKind other : {ObjectiveKind::classify, ObjectiveKind::clm, ObjectiveKind::mlm})
    CHECK_FALSE(objective_spec(other).layout.has_value());
}

TEST_CASE("a row is causal exactly when the model it builds is a causal language model") {
  ModelConfig m;
  m.vocab_size = 16;
  m.num_classes = 3;
  for (const ObjectiveSpec& spec : objectives()) {
    INFO(spec.name());
    const std::unique_ptr<Model> model = spec.make_model(m);
    const auto* lm = dynamic_cast<LanguageModel*>(model.get());
    CHECK(spec.causal == (lm != nullptr && lm->kind() == LanguageModelKind::causal));
  }
  CHECK(causal_objective_names() == "clm or completion");
}
