#pragma once
// What a study's runs say once statistics are applied (report.md's verdict):
//
//   cells    per held-out split and evaluation length (scaling none): each
//            variant's accuracy with a two-level bootstrap interval, every
//            pair's paired difference (with planned comparisons, each
//            variant's against one reference), Holm-corrected, and rank tiers
//            (study_statistics.h), from the runs' per-document predictions;
//   order    the order control: each variant against its twin that differs
//            only by data.shuffle_tokens (accuracy with order - shuffled);
//            when no such gap is resolved the task cannot rank encodings;
//   usage    does a variant use positions at all: how many test predictions
//            differ from the no-position variant of the same seed, whether it
//            is indistinguishable from it, runs whose attention never left
//            uniform (attention_usage.h), and whether its encoding and pooling
//            can tell a sequence from its reverse at all.
//
// Each cell's units are those of the studied objective's row (EvidenceUnit,
// unit_evidence.h), its direction that of the row's evidence_metric: a
// language model's cells are nats per token over the same windows, lower
// better, with each RoPE scaling evaluated at a length as a variant of its own
// ("rope+ntk") as its row asks (scalings_compared); the order control and the
// position-usage comparison, which need predicted classes, are left out
// unless the units are documents.
#include <cstdint>
#include <string>
#include <vector>

#include "trainers/study/run_results.h"
#include "trainers/study/study_statistics.h"

namespace rotor {

struct OrderDependence {
  std::string variant, shuffled;  // shuffled = variant + data.shuffle_tokens
  std::string split;
  int64_t length = 0;
  PairStatistics gap;  // variant minus shuffled
};

struct PositionUsage {
  std::string variant;
  // Test predictions that differ from the no-position variant's of the same
  // seed, in the first statistics cell, averaged over the shared seeds;
  // -1 when there is no such variant or no shared seed.
  double differs_from_none = -1.0;
  std::vector<int64_t> differing_per_seed;  // the same count for each shared seed, in run order
  int64_t documents = 0;
  bool indistinguishable_from_none = false;  // in every cell of the study
  int64_t measured_runs = 0, near_uniform_runs = 0;
  std::vector<double> layer_entropy;  // mean over measured runs, per layer
  // Why this variant's classifier cannot tell a sequence from its reverse
  // (models/order_blindness.h); empty when it can, and for the reference.
  std::string order_blind;
};

struct StudyEvidence {
  StatisticsOptions options;
  EvidenceUnit unit = EvidenceUnit::document;  // the studied objective's (objective_table.h)
  std::string reference;  // the no-position variant ("" when the study has none or predicts no classes)
  std::string against;    // planned comparisons against this variant (spec comparisons.against); "": all pairs
  std::vector<CellStatistics> cells;
  std::vector<std::string> verdicts;  // one line per held-out split, "test: rope > none at 64 tokens (p < 0.01)"
  std::vector<OrderDependence> order;
  std::string order_verdict;  // empty without an order control
  std::vector<PositionUsage> usage;
  std::vector<std::string> usage_verdicts;  // usage in words, each finding once (study_verdict.h)

  // Whether each unit is a document with a predicted class: the order control
  // and the position-usage comparison need them.
  bool classes_predicted() const { return unit == EvidenceUnit::document; }
  // Whether each unit is a window of nats per token, read by people as perplexity.
  bool nats_per_token() const { return unit == EvidenceUnit::window; }
};

// `variants`: the spec's variants (their configs decide the no-position
// reference and the order-control twins); `runs` in spec order; `against`:
// the spec's comparisons.against ("": every pair of a cell is compared).
StudyEvidence gather_evidence(const std::vector<StudyVariant>& variants, const std::vector<RunResult>& runs,
                              const StatisticsOptions& options, const std::string& against);

}  // namespace rotor
