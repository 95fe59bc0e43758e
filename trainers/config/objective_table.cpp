#include "trainers/config/objective_table.h"

#include <algorithm>

#include "models/encoder_classifier.h"
#include "models/language_model.h"

namespace rotor {
namespace {

// A language model's metrics: its loss in nats per token and the two numbers
// read from it, and the accuracy of the predicted tokens.
std::vector<MetricDeclaration> language_model_metrics() {
  return {{"loss", true}, {"perplexity", true}, {"bits_per_token", true}, {"accuracy", false}};
}

std::function<std::unique_ptr<Model>(const ModelConfig&)> language_model(LanguageModelKind kind) {
  return [kind](const ModelConfig& m) { return std::make_unique<LanguageModel>(m, kind, DType::F32); };
}

std::vector<ObjectiveSpec> rows() {
  return {
      {ObjectiveKind::classify,
       [](const ModelConfig& m) { return std::make_unique<EncoderClassifier>(m, DType::F32); },
       ObjectiveData::labelled_documents,
       {{"accuracy", false}, {"macro_f1", false}, {"loss", true}},
       "accuracy",
       EvidenceUnit::document},
      {ObjectiveKind::clm, language_model(LanguageModelKind::causal), ObjectiveData::token_stream,
       language_model_metrics(), "loss", EvidenceUnit::window},
      {ObjectiveKind::mlm, language_model(LanguageModelKind::masked), ObjectiveData::token_stream,
       language_model_metrics(), "loss", EvidenceUnit::window},
  };
}

}  // namespace

const MetricDeclaration* ObjectiveSpec::find_metric(const std::string& metric) const {
  for (const MetricDeclaration& m : metrics)
    if (m.name == metric) return &m;
  return nullptr;
}

std::string ObjectiveSpec::metric_names() const {
  std::string list;
  for (const MetricDeclaration& m : metrics) list += (list.empty() ? "" : ", ") + m.name;
  return list;
}

const std::vector<ObjectiveSpec>& objectives() {
  static const std::vector<ObjectiveSpec> table = rows();
  return table;
}

const ObjectiveSpec& objective_spec(ObjectiveKind kind) {
  for (const ObjectiveSpec& s : objectives())
    if (s.kind == kind) return s;
  throw ConfigError(std::string("train.objective: no row for '") + option_name(kind) + "'");
}

std::vector<std::string> declared_metric_names() {
  std::vector<std::string> names;
  for (const ObjectiveSpec& s : objectives())
    for (const MetricDeclaration& m : s.metrics)
      if (std::find(names.begin(), names.end(), m.name) == names.end()) names.push_back(m.name);
  return names;
}

}  // namespace rotor
