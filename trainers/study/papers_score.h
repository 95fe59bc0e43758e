#pragma once
// The score the length-generalisation papers report for a sequence task, for
// a like-for-like row beside rotor's statistics (Deletang et al. 2023, Ruoss
// et al. 2023: experiments/example.py averages the per-length accuracy over
// the lengths beyond training, and the papers keep the best of their seeds):
// per run, its per-token accuracy over the output positions of each test_<L>
// split (unscaled), averaged over those lengths; per variant, the best and the
// mean of its seeds.
#include <cstdint>
#include <string>
#include <vector>

#include "trainers/study/study_report.h"

namespace rotor {

struct PapersScore {
  std::string variant;
  double best = 0.0, mean = 0.0;  // over the seeds scored
  int64_t seeds = 0;              // runs with every test_<L> split scored
  int64_t lengths = 0;            // test_<L> splits averaged
};

// One row per variant, in spec order; empty unless the study's objective
// scores per-token targets and its evaluation has a test_<L> split.
std::vector<PapersScore> papers_scores(const StudyReport& report);
// report.md's section of them; empty when there are none.
std::string papers_score_markdown(const StudyReport& report);

}  // namespace rotor
