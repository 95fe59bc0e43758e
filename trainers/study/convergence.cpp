#include "trainers/study/convergence.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "trainers/study/aggregation.h"
#include "trainers/study/student_t.h"
#include "trainers/study/study_statistics.h"

namespace rotor {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool reached(double value, double threshold, bool falling) { return falling ? value <= threshold : value >= threshold; }

// mean -+ t_{1 - alpha/2, n-1} s / sqrt(n); NaN bounds with fewer than 2 values.
void t_interval(const SeedStats& s, double alpha, double& low, double& high) {
  const double half = student_t_half_width(s.std, s.n, alpha);
  low = s.mean - half;
  high = s.mean + half;
}

ConvergencePair compare(const VariantConvergence& a, const VariantConvergence& b, double alpha) {
  ConvergencePair pair;
  pair.a = a.name;
  pair.b = b.name;
  const std::map<uint64_t, double> of_a(a.steps.begin(), a.steps.end()), of_b(b.steps.begin(), b.steps.end());
  std::vector<double> differences;
  for (const auto& [seed, step] : a.steps)
    if (const auto it = of_b.find(seed); it != of_b.end()) differences.push_back(step - it->second);
  for (const uint64_t seed : a.finished_seeds) {  // seeds both finished, only one of them reaching the threshold
    const bool shared = std::count(b.finished_seeds.begin(), b.finished_seeds.end(), seed) != 0;
    if (shared && of_a.count(seed) != of_b.count(seed)) ++(of_a.count(seed) != 0 ? pair.only_a : pair.only_b);
  }
  const SeedStats s = seed_stats(differences);
  pair.n_seeds = s.n;
  pair.difference = s.n > 0 ? s.mean : kNaN;
  t_interval(s, alpha, pair.ci_low, pair.ci_high);
  if (s.n >= 2)
    pair.p = s.std > 0.0 ? student_t_two_sided_p(s.mean / (s.std / std::sqrt(static_cast<double>(s.n))), s.n - 1)
                         : (s.mean == 0.0 ? 1.0 : 0.0);
  return pair;
}

}  // namespace

double crossing_step(const std::vector<std::pair<int64_t, double>>& curve, double threshold, bool falling) {
  const std::pair<int64_t, double>* previous = nullptr;  // the last point with a value
  for (const auto& point : curve) {
    const auto [step, value] = point;
    if (std::isnan(value)) continue;  // an absent metric (nothing scored) reaches nothing
    if (!reached(value, threshold, falling)) {
      previous = &point;
      continue;
    }
    if (previous == nullptr) return static_cast<double>(step);
    const auto [before_step, before] = *previous;
    const double fraction = (before - threshold) / (before - value);  // before is on the other side
    return static_cast<double>(before_step) + fraction * static_cast<double>(step - before_step);
  }
  return kNaN;
}

ThresholdConvergence threshold_convergence(const std::vector<std::string>& variants, const std::vector<RunResult>& runs,
                                           double threshold, bool falling, double alpha) {
  ThresholdConvergence out;
  out.threshold = threshold;
  for (const std::string& name : variants) {
    VariantConvergence v;
    v.name = name;
    std::vector<double> steps;
    for (const RunResult& r : runs) {
      if (r.run.variant != name || !r.finished || r.val_curve.empty()) continue;
      v.finished_seeds.push_back(r.run.seed);
      const double step = crossing_step(r.val_curve, threshold, falling);
      if (std::isnan(step)) continue;
      v.steps.emplace_back(r.run.seed, step);
      steps.push_back(step);
    }
    const SeedStats s = seed_stats(steps);
    v.mean = s.mean;
    v.std = s.std;
    t_interval(s, alpha, v.ci_low, v.ci_high);
    out.variants.push_back(std::move(v));
  }
  std::vector<double> p;
  for (size_t i = 0; i < out.variants.size(); ++i)
    for (size_t j = i + 1; j < out.variants.size(); ++j) {
      out.pairs.push_back(compare(out.variants[i], out.variants[j], alpha));
      p.push_back(out.pairs.back().p);
    }
  const std::vector<double> adjusted = holm_adjust(p);
  for (size_t k = 0; k < out.pairs.size(); ++k) {
    out.pairs[k].p_holm = adjusted[k];
    out.pairs[k].different = out.pairs[k].n_seeds >= 2 && adjusted[k] < alpha;
  }
  return out;
}

// NaN (no seed reached it, fewer than 2 seeds) is written as null, as nlohmann's dump writes every NaN.
nlohmann::json to_json(const ThresholdConvergence& c) {
  nlohmann::json j{
      {"threshold", c.threshold}, {"variants", nlohmann::json::array()}, {"pairs", nlohmann::json::array()}};
  for (const VariantConvergence& v : c.variants) {
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& [seed, step] : v.steps) steps.push_back({{"seed", seed}, {"step", step}});
    j["variants"].push_back({{"name", v.name},
                             {"runs", v.runs()},
                             {"reached", v.steps.size()},
                             {"steps", steps},
                             {"mean", v.mean},
                             {"std", v.std},
                             {"ci_low", v.ci_low},
                             {"ci_high", v.ci_high}});
  }
  for (const ConvergencePair& p : c.pairs)
    j["pairs"].push_back({{"a", p.a},
                          {"b", p.b},
                          {"n_seeds", p.n_seeds},
                          {"only_a", p.only_a},
                          {"only_b", p.only_b},
                          {"difference", p.difference},
                          {"ci_low", p.ci_low},
                          {"ci_high", p.ci_high},
                          {"p", p.p},
                          {"p_holm", p.p_holm},
                          {"different", p.different}});
  return j;
}

}  // namespace rotor
