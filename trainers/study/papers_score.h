#pragma once
// The score the length-generalisation papers report for a sequence task, for
// a like-for-like row beside rotor's statistics, as the objective's row
// declares it (PapersScoreRule: Deletang et al. 2023 and Ruoss et al. 2023
// average the per-token accuracy over the lengths beyond training and keep
// the best of their seeds, experiments/example.py; Kazemnejad et al. 2023
// average exact match over three seeds): per run, the rule's metric on each
// test_<L> split (unscaled), averaged over those lengths; per variant, the
// best and the mean of its seeds, and the one the papers report.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "trainers/study/study_report.h"

namespace rotor {

struct PapersScore {
  std::string variant;
  double best = 0.0, mean = 0.0;  // over the seeds scored
  double reported = 0.0;          // best or mean, as the papers report it
  int64_t seeds = 0;              // runs with every test_<L> split scored
  int64_t lengths = 0;            // test_<L> splits averaged
  // The same metric on the test split (the training lengths), best or mean of the seeds as `reported`;
  // NaN when no run scored it. It says whether the task was learnt at all.
  double in_distribution = std::nan("");
};

// One row per variant, in spec order; empty unless the study's objective
// declares a PapersScoreRule and its evaluation has a test_<L> split.
std::vector<PapersScore> papers_scores(const StudyReport& report);
// report.md's section of them; empty when there are none.
std::string papers_score_markdown(const StudyReport& report);

}  // namespace rotor
