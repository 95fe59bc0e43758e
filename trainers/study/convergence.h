#pragma once
// Steps to a threshold (`evaluation.thresholds` of a study spec): how soon
// each variant's validation curve reaches a value. RoFormer's Figure 3 claims
// its MLM loss falls faster than BERT's; "faster" is read here as fewer steps
// to a given validation loss.
//
// Per run: the first step at which the validation curve reaches the threshold
// (a language model's loss at or below it, a classifier's accuracy at or
// above it), linearly interpolated between the two evaluations around the
// crossing; a run whose curve never reaches it is "not reached" (censored: it
// is counted, not averaged). Per variant: the mean over the seeds that reached
// it, with a Student t interval (one number per seed; a bootstrap of 3 seeds
// has only 10 distinct resamples). Per pair: the paired difference over the
// seeds both reached (seed s of both shares data order and initialisation),
// a paired t test and Holm's correction across the pairs of a threshold.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "trainers/study/run_results.h"

namespace rotor {

struct VariantConvergence {
  std::string name;
  std::vector<uint64_t> finished_seeds;            // of the finished runs with a validation curve
  std::vector<std::pair<uint64_t, double>> steps;  // (seed, step) of the runs that reached it
  double mean = 0.0, std = 0.0;                    // over steps; NaN when none reached it
  double ci_low = 0.0, ci_high = 0.0;              // t interval; NaN with fewer than 2

  int64_t runs() const { return static_cast<int64_t>(finished_seeds.size()); }
};

struct ConvergencePair {
  std::string a, b;
  int64_t n_seeds = 0;             // seeds both reached the threshold in
  int64_t only_a = 0, only_b = 0;  // seeds (finished by both) in which only a, or only b, reached it
  double difference = 0.0;         // steps(a) - steps(b), mean over those seeds
  double ci_low = 0.0, ci_high = 0.0;
  double p = 1.0, p_holm = 1.0;
  bool different = false;  // p_holm < alpha
};

struct ThresholdConvergence {
  double threshold = 0.0;
  std::vector<VariantConvergence> variants;  // in the order given
  std::vector<ConvergencePair> pairs;        // (variants[i], variants[j]), i < j
};

// The interpolated first step at which `curve` reaches `threshold` (falling:
// value <= threshold, else value >= threshold); NaN when it never does. A NaN
// point (an absent metric: the split scored nothing) is skipped, never reached.
double crossing_step(const std::vector<std::pair<int64_t, double>>& curve, double threshold, bool falling);

// `variants`: the names in report order; `runs`: every run of the study.
ThresholdConvergence threshold_convergence(const std::vector<std::string>& variants, const std::vector<RunResult>& runs,
                                           double threshold, bool falling, double alpha);

nlohmann::json to_json(const ThresholdConvergence& c);

}  // namespace rotor
