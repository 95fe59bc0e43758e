#pragma once
// A split's scores as its objective's row declares them (objective_table.h):
// every declared metric in declaration order, the derived ones (a language
// model's perplexity and bits per token) computed from the measured ones, and
// their one line for people. An objective measures only what it counts; the
// row says what the records carry.
#include <string>

#include "trainers/config/objective_table.h"
#include "trainers/run/metrics_events.h"

namespace rotor {

// The declared metrics of `spec` in order, then any others `measured` carries.
// Throws ValueError when `measured` lacks a metric the row declares as measured.
SplitScores declared_scores(const ObjectiveSpec& spec, const SplitScores& measured);

// "accuracy 0.8125  macro-F1 0.8011  loss 0.4512": each metric `spec` declares,
// in its order, by its label and number format; when nothing was scored, says so
// and names the metrics absent.
std::string describe_scores(const ObjectiveSpec& spec, const SplitScores& scores);

}  // namespace rotor
