#include "trainers/study/suite_papers.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

namespace rotor {
namespace {

const PapersScore* find_score(const TaskPapersScores& task, const std::string& variant) {
  for (const PapersScore& s : task.scores)
    if (s.variant == variant) return &s;
  return nullptr;
}

// 1 + the number of variants the task scores strictly higher: tied scores share the better rank.
int rank_in(const TaskPapersScores& task, const PapersScore& score) {
  int higher = 0;
  for (const PapersScore& s : task.scores) higher += s.reported > score.reported ? 1 : 0;
  return 1 + higher;
}

double mean_or_nan(const std::vector<double>& values) {
  if (values.empty()) return std::nan("");
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

std::string percent_or_dash(double v) { return std::isnan(v) ? "–" : fmt::format("{:.1f}", 100.0 * v); }

// Which tasks no variant learnt in distribution: their ranks beyond training are ranks of noise.
std::string learnt_sentence(const std::vector<TaskPapersScores>& tasks, const SuitePapersSummary& s) {
  std::string unlearnt;
  for (const TaskPapersScores& t : tasks)
    if (std::find(s.learnt.begin(), s.learnt.end(), t.task) == s.learnt.end())
      unlearnt += (unlearnt.empty() ? "" : ", ") + t.task;
  if (unlearnt.empty()) return "";
  return fmt::format(
      "\nNot learnt in distribution (no variant reaches {:.0f}% by this metric on the test split, at the training "
      "lengths): {}. Their scores beyond training say nothing about length generalisation, so the last row ranks "
      "the variants over the {} learnt task{} alone.\n",
      100.0 * kLearntInDistribution, unlearnt, s.learnt.size(), s.learnt.size() == 1 ? "" : "s");
}

}  // namespace

bool unlearnt_in_distribution(const TaskPapersScores& task) {
  const auto known = [](const PapersScore& p) { return !std::isnan(p.in_distribution); };
  const auto reached = [](const PapersScore& p) { return p.in_distribution >= kLearntInDistribution; };
  return std::any_of(task.scores.begin(), task.scores.end(), known) &&
         std::none_of(task.scores.begin(), task.scores.end(), reached);
}

SuitePapersSummary summarise_papers_scores(const std::vector<TaskPapersScores>& tasks,
                                           const std::vector<StudyVariant>& variants) {
  SuitePapersSummary s;
  std::vector<bool> learnt;  // per task, decided once
  for (const TaskPapersScores& t : tasks) {
    learnt.push_back(!unlearnt_in_distribution(t));
    if (learnt.back()) s.learnt.push_back(t.task);
  }
  for (const StudyVariant& v : variants) {
    std::vector<double> scores, reciprocal_ranks, learnt_ranks;
    for (size_t i = 0; i < tasks.size(); ++i)
      if (const PapersScore* p = find_score(tasks[i], v.name)) {
        const double reciprocal = 1.0 / rank_in(tasks[i], *p);
        scores.push_back(p->reported);
        reciprocal_ranks.push_back(reciprocal);
        if (learnt[i]) learnt_ranks.push_back(reciprocal);
      }
    s.variants.push_back(v.name);
    s.mean_score.push_back(mean_or_nan(scores));
    s.mean_reciprocal_rank.push_back(mean_or_nan(reciprocal_ranks));
    s.learnt_reciprocal_rank.push_back(mean_or_nan(learnt_ranks));
  }
  std::vector<std::string> names;
  std::vector<std::vector<double>> scores(tasks.size());  // [task][variant], NaN where unscored
  for (size_t i = 0; i < tasks.size(); ++i) {
    names.push_back(tasks[i].task);
    for (const StudyVariant& v : variants) {
      const PapersScore* p = find_score(tasks[i], v.name);
      scores[i].push_back(p == nullptr ? std::nan("") : p->reported);
    }
  }
  s.randomized = randomized_gains(names, learnt, scores, variants);
  return s;
}

std::string suite_papers_markdown(const std::vector<TaskPapersScores>& tasks, const std::vector<StudyVariant>& variants,
                                  const std::string& protocol, const std::string& randomized_plot) {
  if (std::all_of(tasks.begin(), tasks.end(), [](const TaskPapersScores& t) { return t.scores.empty(); })) return "";
  const SuitePapersSummary s = summarise_papers_scores(tasks, variants);
  std::string o = "\n## The papers' score across tasks\n\n" + protocol +
                  " In percent; **bold**: the task's best. Below the tasks: the mean over them, and the mean "
                  "reciprocal rank (Kazemnejad et al. 2023, Figure 1: in each task the variants ranked by this "
                  "score, 1 the best, tied scores sharing the better rank). Best-of-seeds and mean-of-seeds scores "
                  "carry no interval; the tasks' verdicts say which differences the data resolve.\n\n| Task |";
  for (const std::string& v : s.variants) o += " " + v + " |";
  o += "\n|---|";
  for (size_t i = 0; i < s.variants.size(); ++i) o += "--:|";
  o += "\n";
  for (const TaskPapersScores& t : tasks) {
    o += "| " + t.task + " |";
    for (const std::string& v : s.variants) {
      const PapersScore* p = find_score(t, v);
      const std::string cell = p == nullptr ? "–" : percent_or_dash(p->reported);
      o += " " + (p != nullptr && rank_in(t, *p) == 1 ? "**" + cell + "**" : cell) + " |";
    }
    o += "\n";
  }
  o += "| *mean over tasks* |";
  for (double m : s.mean_score) o += " " + percent_or_dash(m) + " |";
  o += "\n";
  auto rank_row = [&](const std::string& label, const std::vector<double>& ranks) {
    o += "| *" + label + "* |";
    for (double m : ranks) o += std::isnan(m) ? " – |" : fmt::format(" {:.2f} |", m);
    o += "\n";
  };
  rank_row("mean reciprocal rank", s.mean_reciprocal_rank);
  if (s.learnt.size() < tasks.size()) rank_row("mean reciprocal rank, learnt tasks", s.learnt_reciprocal_rank);
  o += learnt_sentence(tasks, s);
  const std::string randomized = randomized_gains_markdown(s.randomized);
  if (!randomized.empty()) o += randomized + randomized_plot;
  return o;
}

nlohmann::json suite_papers_json(const std::vector<TaskPapersScores>& tasks,
                                 const std::vector<StudyVariant>& variants) {
  const SuitePapersSummary s = summarise_papers_scores(tasks, variants);
  auto number = [](double v) { return std::isnan(v) ? nlohmann::json() : nlohmann::json(v); };
  nlohmann::json j{{"tasks", nlohmann::json::object()}, {"variants", nlohmann::json::object()}};
  for (const TaskPapersScores& t : tasks)
    for (const PapersScore& p : t.scores)
      j["tasks"][t.task][p.variant] = {{"reported", p.reported},
                                       {"best", p.best},
                                       {"mean", p.mean},
                                       {"seeds", p.seeds},
                                       {"in_distribution", number(p.in_distribution)}};
  for (size_t i = 0; i < s.variants.size(); ++i)
    j["variants"][s.variants[i]] = {{"mean_score", number(s.mean_score[i])},
                                    {"mean_reciprocal_rank", number(s.mean_reciprocal_rank[i])},
                                    {"learnt_reciprocal_rank", number(s.learnt_reciprocal_rank[i])}};
  j["learnt_tasks"] = s.learnt;
  j["randomized_gain"] = randomized_gains_json(s.randomized);
  return j;
}

}  // namespace rotor
