#pragma once
// Statistics of one study cell (split, evaluation length, scaling) that a
// reviewer can check: per-variant intervals, paired differences with
// p-values, a Holm correction and rank groups.
//
// Resampling. Seeds and test documents are both sources of variance, so every
// bootstrap replicate resamples both levels (Bouthillier et al. 2021,
// "Accounting for variance in machine learning benchmarks"): it draws S seeds
// with replacement from the seeds at hand and N documents with replacement,
// the same document draw for every drawn seed and every variant; the
// statistic is the mean score over the drawn (seed, document) pairs.
// A pair (a, b) uses one seed draw among the seeds both have, applied to both:
// seed s of a and of b share data and initialisation, and every run is scored
// on the same documents, so the difference is computed inside each pair.
//
// Intervals and p-values (Efron & Tibshirani 1993, "An Introduction to the
// Bootstrap", ch. 13 and 15-16). The interval is the percentile interval with
// the inverse-empirical-CDF quantile: with q = alpha / 2 and replicates
// sorted ascending, low = sorted[ceil(q B) - 1], high = sorted[B - ceil(q B)].
// The two-sided p-value is
//     p = min(1, max(2 min(#(d* <= 0), #(d* >= 0)) / B, 1 / (B + 1)))
// where a replicate exactly 0 counts on both sides (so identical runs get
// p = 1), and the floor 1 / (B + 1) keeps a finite bootstrap from claiming
// p = 0. With these two choices p < alpha exactly when 0 is outside the
// (1 - alpha) interval (the floor is below alpha: see minimum_replicates).
// The intervals are per comparison; the "different" flag uses Holm's
// step-down correction (Holm 1979) across the pairs of the cell.
//
// Determinism: all draws come from RandomKey{options.seed, stream, replicate}
// (Philox), and sums run in a fixed order, so the results are the same bits on
// every machine and thread count.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trainers/run/length_sweep_record.h"

namespace rotor {

struct StatisticsOptions {
  int64_t replicates = 2000;  // B, at least minimum_replicates()
  // When > 0, a cell with more variants than `replicates` can resolve gets
  // minimum_replicates(variants, holm_resolution) instead: its smallest
  // Holm-adjusted p can then fall below this, however many pairs it tests.
  double holm_resolution = 0.0;
  double alpha = 0.05;  // level of the intervals and of the Holm-corrected tests
  uint64_t seed = 0;    // of the bootstrap draws
  // A variant of the cell that every other one is compared with ("none"):
  // VariantStatistics::indistinguishable_from_reference. Empty: no reference.
  std::string reference;
  // Planned comparisons: the pairs tested, in either order, Holm-corrected
  // as one family; empty: every pair of the cell.
  std::vector<std::pair<std::string, std::string>> planned;

  bool tests(const std::string& a, const std::string& b) const {
    return planned.empty() || std::find(planned.begin(), planned.end(), std::make_pair(a, b)) != planned.end() ||
           std::find(planned.begin(), planned.end(), std::make_pair(b, a)) != planned.end();
  }
};

// The per-document scores of every finished run of one cell. Every run is
// scored on the same documents in the same order.
struct VariantOutcomes {
  std::string name;
  std::map<int64_t, std::vector<double>> scores_by_seed;  // seed -> score in [0, 1] per document
};
// A language model's cell (weights given): each document is a window, its
// score the nats summed over the tokens it scores and its weight that token
// count (the same for every run); the statistic is then nats per token,
// sum(score) / sum(weight) over the drawn (seed, window) pairs, and lower is
// better. Without weights every document weighs 1 and scores are in [0, 1].
struct CellOutcomes {
  std::string split;
  int64_t length = 0;
  std::string scaling = unscaled();
  std::vector<VariantOutcomes> variants;  // in spec order; a variant with no finished run has no seeds
  std::vector<double> weights{};          // per document; empty: each weighs 1
  // The scores are losses (a language model's nats), so the lowest mean ranks first; else proportions in [0, 1].
  bool lower_is_better = false;
};

struct VariantStatistics {
  std::string name;
  int64_t n_seeds = 0, n_documents = 0;  // n_seeds 0: no finished run, nothing below is set
  double mean = 0.0;                     // over seeds and documents (weighted: nats per token)
  double seed_std = 0.0;                 // of the per-seed statistic (n - 1; 0 for one seed)
  double ci_low = 0.0, ci_high = 0.0;    // (1 - alpha) bootstrap interval of the mean
  int64_t tier = 0;                      // rank group, 1 = best (highest, or lowest loss); 0 without runs
  // Not different from options.reference (Holm-corrected); true for the
  // reference itself, false for everyone when the reference has no run.
  bool indistinguishable_from_reference = false;
};

// a minus b over the seeds both have. Pairs without a shared seed, or not
// planned, are left out (and count as not different in the tiers).
struct PairStatistics {
  std::string a, b;
  int64_t n_seeds = 0;
  double difference = 0.0;  // accuracy(a) - accuracy(b), paired
  double ci_low = 0.0, ci_high = 0.0;
  double p = 1.0, p_holm = 1.0;
  bool different = false;  // p_holm < alpha
};

struct CellStatistics {
  std::string split;
  int64_t length = 0;
  std::string scaling;
  bool lower_is_better = false;             // the cell's scores are losses (CellOutcomes::lower_is_better)
  std::vector<VariantStatistics> variants;  // in input order
  std::vector<PairStatistics> pairs;        // (variants[i], variants[j]) for i < j, in that order (tested ones)
  int64_t replicates = 0;                   // B this cell drew (StatisticsOptions::holm_resolution)
};

// Throws DataError when the runs of the cell do not score the same number of
// documents, a score is outside [0, 1] (weighted: negative or not finite), the
// weights are not one per document or a name repeats; ConfigError for bad
// options or a reference that is not a variant of the cell.
CellStatistics cell_statistics(const CellOutcomes& cell, const StatisticsOptions& options);

// The fewest replicates with which the cell can show anything: 2 / alpha (one
// replicate per tail), and enough that the smallest Holm-adjusted p over the
// V (V - 1) / 2 pairs, pairs / (B + 1), is below alpha (1320 for 12 variants
// at 0.05). cell_statistics refuses fewer; a spec can check it up front.
int64_t minimum_replicates(int64_t variants, double alpha);

// Holm's step-down adjusted p-values, in the order given (monotone in p).
std::vector<double> holm_adjust(const std::vector<double>& p);

// The pair of a and b in either order; nullptr when it was left out.
const PairStatistics* find_pair(const CellStatistics& cell, const std::string& a, const std::string& b);

// Whether x ranks before y in the cell's tiers: the better mean (higher, or lower where lower is better), ties by name.
bool ranks_before(const CellStatistics& cell, const VariantStatistics& x, const VariantStatistics& y);

nlohmann::json to_json(const VariantStatistics& v);
nlohmann::json to_json(const PairStatistics& p);
nlohmann::json to_json(const CellStatistics& cell);
// {"method": {...}, "cells": [...]}: report.json's "statistics".
nlohmann::json statistics_json(const std::vector<CellStatistics>& cells, const StatisticsOptions& options);

}  // namespace rotor
