#include "trainers/study/aggregation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace rotor {

SeedStats seed_stats(const std::vector<double>& values) {
  SeedStats s;
  s.n = static_cast<int64_t>(values.size());
  if (values.empty()) {
    s.mean = s.std = s.min = s.max = std::numeric_limits<double>::quiet_NaN();
    return s;
  }
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(s.n);
  double squares = 0.0;
  for (double v : values) squares += (v - s.mean) * (v - s.mean);
  s.std = s.n > 1 ? std::sqrt(squares / static_cast<double>(s.n - 1)) : 0.0;
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  return s;
}

SeedStats SweepStats::metric(const std::string& name) const {
  const auto it = metrics.find(name);
  return it == metrics.end() ? seed_stats({}) : it->second;
}

namespace {

std::vector<CurvePoint> curve_stats(const std::vector<RunResult>& runs) {
  std::map<int64_t, std::vector<double>> by_step;
  for (const RunResult& r : runs)
    for (const auto& [step, accuracy] : r.val_curve) by_step[step].push_back(accuracy);
  std::vector<CurvePoint> curve;
  for (const auto& [step, values] : by_step) curve.push_back({step, seed_stats(values)});
  return curve;
}

SweepStats sweep_stats(const SweepCell& point, const std::vector<RunResult>& runs) {
  SweepStats s;
  s.point = point;
  std::map<std::string, std::vector<double>> values;
  for (const RunResult& r : runs)
    for (const SweepCell& c : r.sweep) {
      if (!c.same_point(point)) continue;
      if (!c.available) {
        s.available = false;
        s.point.reason = c.reason;
      }
      for (const auto& [name, value] : c.scores.values()) values[name].push_back(value);
    }
  if (s.available)
    for (const auto& [name, list] : values) s.metrics[name] = seed_stats(list);
  return s;
}

}  // namespace

VariantSummary summarize_variant(const std::string& name, const std::vector<RunResult>& runs,
                                 const std::vector<SweepCell>& plan) {
  VariantSummary v;
  v.name = name;
  v.runs = static_cast<int64_t>(runs.size());
  std::vector<RunResult> finished;
  for (const RunResult& r : runs)
    if (r.finished) finished.push_back(r);
  v.finished = static_cast<int64_t>(finished.size());
  std::map<std::string, std::vector<double>> values;
  for (const RunResult& r : finished) {
    v.parameters = r.parameters;
    for (const auto& [key, value] : r.metrics) values[key].push_back(value);
    values["tokens_per_s"].push_back(r.tokens_per_s);
    values["elapsed_s"].push_back(r.elapsed_s);
  }
  for (const auto& [key, list] : values) v.metrics[key] = seed_stats(list);
  v.val_curve = curve_stats(finished);
  for (const SweepCell& point : plan) v.sweep.push_back(sweep_stats(point, finished));
  return v;
}

}  // namespace rotor
