#pragma once
// A suite's papers' scores across its tasks (study_suite.h), the numbers the
// length-generalisation papers aggregate: each task's papers' score per
// variant (papers_score.h), their mean over the tasks, the mean reciprocal
// rank of each variant over the tasks (Kazemnejad et al. 2023, Figure 1:
// within a task the variants are ranked by the score, 1 the best; tied scores
// share the better rank), and, where the suite pairs a variant with its
// randomized-positions twin, what randomizing adds (randomized_gain.h). A task no variant learnt in distribution (the
// papers' metric on the test split below kLearntInDistribution for every
// variant) still ranks its variants, by noise: the mean reciprocal rank is
// also given over the learnt tasks alone.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trainers/study/papers_score.h"
#include "trainers/study/randomized_gain.h"
#include "trainers/study/study_spec.h"

namespace rotor {

struct TaskPapersScores {
  std::string task;
  std::vector<PapersScore> scores;  // per variant scored, in spec order
};

// The in-distribution score from which a task counts as learnt: the decoder study's copy, reverse and sort
// reached 90-100% exact match; its tasks left unlearnt, 0-60%.
constexpr double kLearntInDistribution = 0.9;

// Whether the task was not learnt: some variant has an in-distribution score and none reaches
// kLearntInDistribution (a task without in-distribution scores is not called unlearnt).
bool unlearnt_in_distribution(const TaskPapersScores& task);

struct SuitePapersSummary {
  std::vector<std::string> variants;           // in spec order
  std::vector<double> mean_score;              // over the tasks that scored it; NaN: none did
  std::vector<double> mean_reciprocal_rank;    // over the tasks that scored it; NaN: none did
  std::vector<std::string> learnt;             // the tasks not unlearnt_in_distribution, in task order
  std::vector<double> learnt_reciprocal_rank;  // over those of them that scored it; NaN: none did
  RandomizedGains randomized;                  // each randomized twin minus its plain variant, per task
};

SuitePapersSummary summarise_papers_scores(const std::vector<TaskPapersScores>& tasks,
                                           const std::vector<StudyVariant>& variants);

// report.md's section; empty when no task has a papers' score. randomized_plot (markdown) follows the randomized
// positions' table where there is one.
std::string suite_papers_markdown(const std::vector<TaskPapersScores>& tasks, const std::vector<StudyVariant>& variants,
                                  const std::string& protocol, const std::string& randomized_plot);
nlohmann::json suite_papers_json(const std::vector<TaskPapersScores>& tasks, const std::vector<StudyVariant>& variants);

}  // namespace rotor
