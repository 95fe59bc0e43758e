#include "trainers/config/objective_table.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/encoder_classifier.h"
#include "models/language_model.h"

namespace rotor {
namespace {

double perplexity(double loss) { return std::exp(loss); }
double bits(double nats) { return nats / std::log(2.0); }

// A language model's metrics: its loss in nats per token and the two numbers
// read from it (bits per byte with the byte tokenizer), and the accuracy of the
// predicted tokens (clm: the next token; mlm: the masked ones).
std::vector<MetricDeclaration> language_model_metrics() {
  return {{"loss", true, "", 4, "", nullptr, "nats/token"},
          {"perplexity", true, "", 3, "loss", perplexity},
          {"bits_per_token", true, "bits/token", 4, "loss", bits},
          {"accuracy", false, "token accuracy"}};
}

std::vector<std::string> language_model_study_metrics() { return {"accuracy", "loss", "perplexity"}; }
// Its report tables: perplexity, the number people read, beside the loss it is read from.
std::vector<std::string> language_model_table_metrics() { return {"perplexity", "loss"}; }

std::function<std::unique_ptr<Model>(const ModelConfig&)> language_model(LanguageModelKind kind) {
  return [kind](const ModelConfig& m) { return std::make_unique<LanguageModel>(m, kind, DType::F32); };
}

// A sequence task's objectives score their targeted positions (trainers/training/targeted_tokens.h) and
// count a sample right when every one of them is: Deletang et al.'s sequence accuracy, Kazemnejad et
// al.'s exact match of greedy decoding.
std::vector<MetricDeclaration> targeted_metrics(const std::string& sample_metric, const std::string& label) {
  return {{"loss", true}, {"token_accuracy", false, "token accuracy"}, {sample_metric, false, label}};
}

std::vector<ObjectiveSpec> objective_rows() {
  return {
      {ObjectiveKind::classify,
       [](const ModelConfig& m) { return std::make_unique<EncoderClassifier>(m, DType::F32); },
       ObjectiveData::labelled_documents,
       {{"accuracy", false}, {"macro_f1", false, "macro-F1"}, {"loss", true}},
       "accuracy",
       EvidenceUnit::document,
       {"accuracy", "macro_f1"},
       "accuracy",
       false},
      {ObjectiveKind::clm, language_model(LanguageModelKind::causal), ObjectiveData::token_stream,
       language_model_metrics(), "loss", EvidenceUnit::window, language_model_study_metrics(), "loss", true, true,
       std::nullopt, language_model_table_metrics()},
      {ObjectiveKind::mlm, language_model(LanguageModelKind::masked), ObjectiveData::token_stream,
       language_model_metrics(), "loss", EvidenceUnit::window, language_model_study_metrics(), "loss", true, false,
       std::nullopt, language_model_table_metrics()},
      // Study evidence: per sample (its correct target tokens, its target tokens), the papers' per-token
      // accuracy; the whole-sample score is a study metric beside it.
      {ObjectiveKind::transduction,
       language_model(LanguageModelKind::masked),
       ObjectiveData::per_token_targets,
       targeted_metrics("sequence_accuracy", "sequence accuracy"),
       "token_accuracy",  // best checkpoint: sequence accuracy stays 0 on long outputs and would keep the first
       EvidenceUnit::sample,
       {"token_accuracy", "sequence_accuracy"},
       "token_accuracy",
       false,
       false,
       SequenceLayout::queries,
       {},
       PapersScoreRule{"token_accuracy", true,
                       "As Delétang et al. (2023) and Ruoss et al. (2023) report a task: each run's per-token accuracy "
                       "over the output positions of every test_<L> split, averaged over those lengths, then the best "
                       "of the seeds (they also take the best of three learning rates; one here)."}},
      {ObjectiveKind::completion,
       language_model(LanguageModelKind::causal),
       ObjectiveData::per_token_targets,
       targeted_metrics("exact_match", "exact match"),
       "token_accuracy",  // as transduction: exact match stays 0 on answers not learnt whole
       EvidenceUnit::sample,
       {"token_accuracy", "exact_match"},
       "token_accuracy",
       false,
       true,
       SequenceLayout::prompt_answer,
       {},
       PapersScoreRule{"exact_match", false,
                       "As Kazemnejad et al. (2023) score a task: each run's exact match of greedy decoding over the "
                       "answers of every test_<L> split, averaged over those lengths, then the mean of the seeds "
                       "(they train three)."}},
  };
}

}  // namespace

bool MetricDeclaration::improves(double candidate, double best) const {
  if (std::isnan(candidate)) return false;  // an absent metric (no target scored) improves nothing
  if (std::isnan(best)) return true;        // the first evaluation
  return lower_is_better ? candidate < best : candidate > best;
}

std::string MetricDeclaration::format(double value) const { return fmt::format("{:.{}f}", value, decimals); }

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
  static const std::vector<ObjectiveSpec> table = objective_rows();
  return table;
}

const ObjectiveSpec& objective_spec(ObjectiveKind kind) {
  for (const ObjectiveSpec& s : objectives())
    if (s.kind == kind) return s;
  throw ConfigError(std::string("train.objective: no row for '") + option_name(kind) + "'");
}

const MetricDeclaration& evidence_declaration(const ObjectiveSpec& spec) {
  if (const MetricDeclaration* m = spec.find_metric(spec.evidence_metric)) return *m;
  throw ConfigError("train.objective " + spec.name() + ": its evidence metric '" + spec.evidence_metric +
                    "' is not one it declares");
}

std::vector<std::string> declared_metric_names() {
  std::vector<std::string> names;
  for (const ObjectiveSpec& s : objectives())
    for (const MetricDeclaration& m : s.metrics)
      if (std::find(names.begin(), names.end(), m.name) == names.end()) names.push_back(m.name);
  return names;
}

const MetricDeclaration& best_metric_declaration(const TrainConfig& train) {
  const ObjectiveSpec& spec = objective_spec(train.objective);
  if (const MetricDeclaration* m = spec.find_metric(train.best_metric)) return *m;
  throw ConfigError("train.best_metric: '" + train.best_metric + "' is not a metric of train.objective " + spec.name() +
                    " (expected one of: " + spec.metric_names() + ")");
}

std::string data_mismatch(const Config& config, bool data_has_targets) {
  const ObjectiveSpec& spec = objective_spec(config.train.objective);
  const bool wants_targets = spec.data == ObjectiveData::per_token_targets;
  if (wants_targets == data_has_targets) return "";
  const std::string task = config.data.task.empty() ? "(files)" : "'" + config.data.task + "'";
  return wants_targets ? fmt::format(
                             "data.task: {} has no per-token targets, which train.objective {} trains on; "
                             "expected a sequence task (reverse-string, parity-check, ...)",
                             task, spec.name())
                       : fmt::format(
                             "data.task: {} is a sequence task, whose per-token targets train.objective {} "
                             "does not read; expected train.objective transduction or completion",
                             task, spec.name());
}

std::string causal_objective_names() {
  std::vector<std::string> names;
  for (const ObjectiveSpec& s : objectives())
    if (s.causal) names.push_back(s.name());
  return fmt::format("{}", fmt::join(names, " or "));
}

std::string best_metric_help() {
  std::string help = "Validation metric that picks the best checkpoint, one its objective declares:";
  for (const ObjectiveSpec& s : objectives())
    help += " " + s.name() + " " + s.metric_names() + " (default " + s.default_best_metric + ");";
  std::string lower;
  for (const std::string& name : declared_metric_names())
    for (const ObjectiveSpec& s : objectives())
      if (const MetricDeclaration* m = s.find_metric(name); m != nullptr && m->lower_is_better) {
        lower += (lower.empty() ? "" : ", ") + name;
        break;
      }
  help.back() = '.';
  return help + " Lower is better for " + lower + "; higher for the others";
}

}  // namespace rotor
