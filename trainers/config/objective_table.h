#pragma once
// What each train.objective is, declared once, as models/position_encoding_table.cpp
// declares the encodings: the model (head) it trains, which training and
// restore both build from here; the data it reads; the metrics its held-out
// scores carry, each with its direction; the one that picks its best checkpoint
// unless train.best_metric names another; and the unit a study's statistics
// count as one observation. Code past the config reads these rows instead of
// asking which objective a run has.
//
// Adding an objective: a name in ObjectiveKind (config_options.h), one row
// here, and its Objective file in trainers/training/ (objective.h).
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "datasets/tasks/sequence_layout.h"
#include "models/model.h"
#include "trainers/config/config.h"

namespace rotor {

// What an objective trains on.
enum class ObjectiveData {
  labelled_documents,  // documents with a label each (data.labelled)
  token_stream,        // the split's documents joined into one stream of tokens
  per_token_targets,   // a sequence task's samples, each with the token every position must predict
};

// What a study counts as one observation of a held-out split: each unit is a
// (numerator, denominator) pair, and the statistic of a set of units is
// sum(numerators) / sum(denominators), the row's evidence_metric
// (study/unit_evidence.h reads them from a run's sweep cell).
enum class EvidenceUnit {
  document,  // a document: (1 if its predicted class is its label else 0, 1); accuracy
  window,    // a window of the token stream: (its summed nats, the tokens it scores); nats per token
  sample,    // a sample of a sequence task: (its correct target tokens, its target tokens), token
             // accuracy, or (1 if every target token is right else 0, 1), exact match
};

// How the papers behind an objective's benchmarks score one task, for a row
// set like for like beside rotor's statistics (study/papers_score.h): each
// run's `metric` averaged over its test_<L> splits, then the best of the seeds
// (best_of_seeds) or their mean.
struct PapersScoreRule {
  std::string metric;
  bool best_of_seeds = true;
  std::string protocol;  // report.md's sentence on it, naming the papers
};

struct MetricDeclaration {
  std::string name;  // as in the records and train.best_metric
  bool lower_is_better = false;
  std::string label{};  // for people ("macro-F1"); empty: the name
  int decimals = 4;     // printed after the point
  // A metric read from another of the same scores (perplexity from the loss):
  // derive(value of derived_from). Empty: the objective measures it.
  std::string derived_from{};
  double (*derive)(double) = nullptr;
  std::string unit{};  // of its values, for a column header ("nats/token"); empty: none said

  std::string shown_name() const { return label.empty() ? name : label; }
  std::string format(double value) const;  // `decimals` after the point

  // True if `candidate` beats `best` in this metric's direction; any candidate
  // beats a NaN best (none yet), and a NaN candidate (absent) beats nothing.
  bool improves(double candidate, double best) const;
};

struct ObjectiveSpec {
  ObjectiveKind kind;
  // The model with its head, parameters declared and not yet initialised.
  std::function<std::unique_ptr<Model>(const ModelConfig&)> make_model;
  ObjectiveData data;
  std::vector<MetricDeclaration> metrics;
  std::string default_best_metric;  // train.best_metric when the config sets none
  EvidenceUnit evidence;
  // The metrics a study's report gives per run and split, averaged over its seeds.
  std::vector<std::string> study_metrics;
  // The declared metric a study's units estimate (sum of numerators over sum
  // of denominators); its direction orders the study's statistics.
  std::string evidence_metric;
  // A study compares each RoPE scaling evaluated at a length as a variant of
  // its own ("rope+ntk"); else its statistics take the unscaled cells only.
  bool scalings_compared = false;
  // The model attends from each position to itself and earlier ones only (a
  // causal decoder, which generates text); else every position reads every other.
  bool causal = false;
  // per_token_targets: how a sample becomes tokens and targets (data.sequence_layout).
  std::optional<SequenceLayout> layout = std::nullopt;
  // The metrics a study report's results and per-seed tables give per split,
  // in column order; empty: the study metrics.
  std::vector<std::string> table_metrics{};
  std::optional<PapersScoreRule> papers_score = std::nullopt;

  std::string name() const { return option_name(kind); }
  // The metric named `metric`; nullptr when the objective declares none by that name.
  const MetricDeclaration* find_metric(const std::string& metric) const;
  // The declared metric names, as "loss, perplexity, bits_per_token, accuracy".
  std::string metric_names() const;
};

// The declaration of the row's evidence_metric.
const MetricDeclaration& evidence_declaration(const ObjectiveSpec& spec);

// Rows in ObjectiveKind's order.
const std::vector<ObjectiveSpec>& objectives();
const ObjectiveSpec& objective_spec(ObjectiveKind kind);
// Every metric some objective declares, once each, in table order.
std::vector<std::string> declared_metric_names();
// train.best_metric's declaration in train.objective's row; throws ConfigError
// naming train.best_metric and the metrics the objective declares.
const MetricDeclaration& best_metric_declaration(const TrainConfig& train);
// Whether the run's data suits its row: per-token targets (a sequence task's)
// for a per_token_targets objective and for it alone. "" when it does, else
// the ConfigError message naming data.task and train.objective.
std::string data_mismatch(const Config& config, bool data_has_targets);
// The objectives whose row is causal, for messages: "clm or completion".
std::string causal_objective_names();
// What train.best_metric may be, for its help text: each objective's metrics and default.
std::string best_metric_help();

}  // namespace rotor
