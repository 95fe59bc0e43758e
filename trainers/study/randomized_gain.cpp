#include "trainers/study/randomized_gain.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "trainers/study/aggregation.h"
#include "trainers/study/student_t.h"

namespace rotor {
namespace {

constexpr double kAlpha = 0.05;

std::vector<double> finite(const std::vector<double>& values) {
  std::vector<double> kept;
  for (double v : values)
    if (!std::isnan(v)) kept.push_back(v);
  return kept;
}

int variant_index(const std::vector<StudyVariant>& variants, const std::string& name) {
  for (size_t i = 0; i < variants.size(); ++i)
    if (variants[i].name == name) return static_cast<int>(i);
  return -1;
}

// Pair p's mean over the tasks (the learnt ones alone with learnt_only).
double column_mean(const RandomizedGains& g, size_t p, bool learnt_only) {
  std::vector<double> column;
  for (size_t t = 0; t < g.tasks.size(); ++t)
    if (!learnt_only || g.learnt[t]) column.push_back(g.gain[t][p]);
  return seed_stats(finite(column)).mean;
}

void summarise(RandomizedGains& g) {
  std::vector<double> learnt_means;
  for (size_t t = 0; t < g.tasks.size(); ++t) {
    const double m = seed_stats(finite(g.gain[t])).mean;
    g.task_mean.push_back(m);
    if (g.learnt[t]) learnt_means.push_back(m);
    for (double v : finite(g.gain[t])) ++(v > 0 ? g.gained : v < 0 ? g.lost : g.equal);
  }
  const SeedStats s = seed_stats(g.task_mean);
  g.mean = s.mean;
  const double half = student_t_half_width(s.std, s.n, kAlpha);  // NaN with fewer than two tasks
  g.low = s.mean - half;
  g.high = s.mean + half;
  g.learnt_mean = seed_stats(learnt_means).mean;
  for (size_t p = 0; p < g.pairs.size(); ++p) {
    g.pair_mean.push_back(column_mean(g, p, false));
    g.pair_learnt_mean.push_back(column_mean(g, p, true));
  }
}

// In points with a sign, except a value that rounds to zero: "0.0", not "-0.0" beside a count of losses.
std::string signed_points(double v) {
  if (std::isnan(v)) return "–";
  const std::string text = fmt::format("{:+.1f}", 100.0 * v);
  return text == "+0.0" || text == "-0.0" ? "0.0" : text;
}

std::string table_row(const std::string& label, const std::vector<double>& cells, double mean) {
  std::string row = "| " + label + " |";
  for (double v : cells) row += " " + signed_points(v) + " |";
  return row + " " + signed_points(mean) + " |\n";
}

}  // namespace

std::vector<RandomizedPair> randomized_pairs(const std::vector<StudyVariant>& variants) {
  std::vector<RandomizedPair> pairs;
  for (const StudyVariant& r : variants) {
    const PositionConfig& rp = r.config.model.position;
    if (!rp.flag("randomized")) continue;
    for (const StudyVariant& p : variants)
      if (p.config.model.position.type == rp.type && !p.config.model.position.flag("randomized")) {
        pairs.push_back({p.name, r.name});
        break;
      }
  }
  return pairs;
}

RandomizedGains randomized_gains(const std::vector<std::string>& tasks, const std::vector<bool>& learnt,
                                 const std::vector<std::vector<double>>& task_scores,
                                 const std::vector<StudyVariant>& variants) {
  RandomizedGains g;
  g.pairs = randomized_pairs(variants);
  for (size_t t = 0; t < tasks.size(); ++t) {
    std::vector<double> row;
    for (const RandomizedPair& pair : g.pairs) {
      const int plain = variant_index(variants, pair.plain), randomized = variant_index(variants, pair.randomized);
      row.push_back(task_scores[t][randomized] - task_scores[t][plain]);  // NaN when either is unscored
    }
    if (finite(row).empty()) continue;
    g.tasks.push_back(tasks[t]);
    g.learnt.push_back(learnt[t]);
    g.gain.push_back(row);
  }
  summarise(g);
  return g;
}

std::string randomized_gains_markdown(const RandomizedGains& g) {
  if (g.tasks.empty()) return "";
  std::string o =
      "\n### Randomized positions against the same encoding without them\n\nThe papers' score of each randomized "
      "variant minus its plain twin's, in points; the last column is the task's mean over its encodings.\n\n| Task |";
  for (const RandomizedPair& pair : g.pairs) o += " " + pair.plain + " |";
  o += " mean |\n|---|";
  for (size_t p = 0; p <= g.pairs.size(); ++p) o += "--:|";
  o += "\n";
  for (size_t t = 0; t < g.tasks.size(); ++t) o += table_row(g.tasks[t], g.gain[t], g.task_mean[t]);
  o += table_row("*mean over tasks*", g.pair_mean, g.mean);
  const bool some_unlearnt = std::find(g.learnt.begin(), g.learnt.end(), false) != g.learnt.end();
  if (some_unlearnt) o += table_row("*mean over learnt tasks*", g.pair_learnt_mean, g.learnt_mean);
  const std::string interval = std::isnan(g.low) ? "no interval from one task"
                                                 : fmt::format(
                                                       "95% interval {:+.1f} to {:+.1f}, a t interval over the "
                                                       "tasks, each task's mean one observation",
                                                       100.0 * g.low, 100.0 * g.high);
  o += fmt::format(
      "\nRandomized positions add {} points on average over the {} tasks ({}); of the {} (task, encoding) "
      "pairs, {} gain, {} lose and {} are equal.",
      signed_points(g.mean), g.tasks.size(), interval, g.gained + g.lost + g.equal, g.gained, g.lost, g.equal);
  const size_t learnt = static_cast<size_t>(std::count(g.learnt.begin(), g.learnt.end(), true));
  if (some_unlearnt)
    o += fmt::format(" Over the {} task{} some variant learnt in distribution: {} points.", learnt,
                     learnt == 1 ? "" : "s", signed_points(g.learnt_mean));
  return o + " Ruoss et al. 2023 report +12.0 on average over 15 tasks (abstract).\n";
}

nlohmann::json randomized_gains_json(const RandomizedGains& g) {
  auto number = [](double v) { return std::isnan(v) ? nlohmann::json() : nlohmann::json(v); };
  nlohmann::json by_task = nlohmann::json::object(), task_mean = nlohmann::json::object();
  for (size_t t = 0; t < g.tasks.size(); ++t) {
    for (size_t p = 0; p < g.pairs.size(); ++p) by_task[g.tasks[t]][g.pairs[p].randomized] = number(g.gain[t][p]);
    task_mean[g.tasks[t]] = number(g.task_mean[t]);
  }
  nlohmann::json pairs = nlohmann::json::array();
  for (size_t p = 0; p < g.pairs.size(); ++p)
    pairs.push_back({{"plain", g.pairs[p].plain},
                     {"randomized", g.pairs[p].randomized},
                     {"mean", number(g.pair_mean[p])},
                     {"learnt_mean", number(g.pair_learnt_mean[p])}});
  return {{"mean", number(g.mean)}, {"low", number(g.low)},
          {"high", number(g.high)}, {"learnt_mean", number(g.learnt_mean)},
          {"gained", g.gained},     {"lost", g.lost},
          {"equal", g.equal},       {"pairs", pairs},
          {"by_task", by_task},     {"task_mean", task_mean}};
}

}  // namespace rotor
