#pragma once
// What randomized positions add across a suite's tasks, the headline number of
// Ruoss et al. 2023 (abstract: "+12.0% on average" over 15 tasks): each
// randomized variant's papers' score minus its plain twin's (the first variant
// of the same encoding without model.position.randomized), per task. The
// interval takes each task's mean gain over its encodings as one observation:
// a task's encodings share its data and its difficulty, so the pairs within a
// task are not independent draws, and the tasks are what a reader generalises
// over.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trainers/study/study_spec.h"

namespace rotor {

struct RandomizedPair {
  std::string plain, randomized;
};

// In spec order of the randomized variants; one without a plain twin is left out.
std::vector<RandomizedPair> randomized_pairs(const std::vector<StudyVariant>& variants);

struct RandomizedGains {
  std::vector<RandomizedPair> pairs;
  std::vector<std::string> tasks;         // the tasks with some pair scored, in suite order
  std::vector<bool> learnt;               // per task: some variant learnt it in distribution
  std::vector<std::vector<double>> gain;  // [task][pair]; NaN where either variant is unscored
  std::vector<double> task_mean;          // per task, over the pairs it scored
  // The mean over the tasks of each task's mean gain (the mean over every pair when every task scores every
  // pair), and its 95% t interval over the tasks (NaN with fewer than two tasks).
  double mean = 0.0, low = 0.0, high = 0.0;
  double learnt_mean = 0.0;              // the same mean over the learnt tasks; NaN when none is
  std::vector<double> pair_mean;         // per pair, over the tasks that scored it
  std::vector<double> pair_learnt_mean;  // per pair, over the learnt tasks that scored it
  int gained = 0, lost = 0, equal = 0;   // (task, pair) cells by sign
};

// task_scores[t][v]: the papers' score of variants[v] on tasks[t], NaN when unscored.
RandomizedGains randomized_gains(const std::vector<std::string>& tasks, const std::vector<bool>& learnt,
                                 const std::vector<std::vector<double>>& task_scores,
                                 const std::vector<StudyVariant>& variants);

// report.md's table and sentence; empty when no (task, pair) was scored.
std::string randomized_gains_markdown(const RandomizedGains& gains);
nlohmann::json randomized_gains_json(const RandomizedGains& gains);

}  // namespace rotor
