#include "trainers/run/metrics_events.h"

#include <algorithm>
#include <cmath>

#include "engine/error.h"

namespace rotor {
namespace {

bool same_number(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// The metrics records held as fields of their own before "metrics".
const char* const legacy_metrics[] = {"loss", "accuracy", "macro_f1", "perplexity", "bits_per_token"};

}  // namespace

SplitScores::SplitScores(std::initializer_list<std::pair<std::string, double>> values) {
  for (const auto& [metric, value] : values) set(metric, value);
}

void SplitScores::set(const std::string& metric, double value) {
  for (auto& [name, v] : values_)
    if (name == metric) {
      v = value;
      return;
    }
  values_.emplace_back(metric, value);
}

bool SplitScores::has(const std::string& metric) const {
  return std::any_of(values_.begin(), values_.end(), [&](const auto& v) { return v.first == metric; });
}

double SplitScores::get(const std::string& metric) const {
  for (const auto& [name, value] : values_)
    if (name == metric) return value;
  std::string carried;
  for (const auto& v : values_) carried += (carried.empty() ? "" : ", ") + v.first;
  throw ValueError("no metric '" + metric + "' in these scores (they carry: " + carried + ")");
}

bool SplitScores::absent() const {
  return std::all_of(values_.begin(), values_.end(), [](const auto& v) { return std::isnan(v.second); });
}

bool SplitScores::operator==(const SplitScores& o) const {
  if (values_.size() != o.values_.size()) return false;
  for (const auto& [name, value] : values_)
    if (!o.has(name) || !same_number(value, o.get(name))) return false;
  return true;
}

JsonFields scores_json(const SplitScores& s) {
  JsonFields j = JsonFields::object();
  for (const auto& [name, value] : s.values()) j[name] = value;
  return j;
}

SplitScores scores_from_json(const JsonFields& metrics) {
  SplitScores s;
  for (const auto& item : metrics.items()) s.set(item.key(), number_or_nan(metrics, item.key().c_str()));
  return s;
}

SplitScores record_scores(const JsonFields& j, const std::string& key, const std::string& prefix) {
  if (j.contains(key)) return scores_from_json(j.at(key));
  SplitScores s;
  for (const char* metric : legacy_metrics)
    if (j.contains(prefix + metric)) s.set(metric, number_or_nan(j, (prefix + metric).c_str()));
  return s;
}

void to_json(JsonFields& j, const TrainEvent& e) {
  j = {{"event", "train"},
       {"step", e.step},
       {"epoch", e.epoch},
       {"lr", e.lr},
       {"loss", e.loss},
       {"accuracy", e.accuracy},
       {"grad_norm", e.grad_norm},
       {"tokens", e.tokens},
       {"tokens_per_s", e.tokens_per_s},
       {"elapsed_s", e.elapsed_s}};
}

void to_json(JsonFields& j, const EvalEvent& e) {
  j = {{"event", "eval"}, {"split", e.split}, {"step", e.step}, {"epoch", e.epoch}};
  j["metrics"] = scores_json(e.scores);
  j["best"] = e.best;
  j["elapsed_s"] = e.elapsed_s;
}

void to_json(JsonFields& j, const FinalEvent& e) {
  j = {{"event", "final"}, {"split", e.split}, {"step", e.step}};
  j["metrics"] = scores_json(e.scores);
}

void from_json(const JsonFields& j, TrainEvent& e) {
  e.step = j.at("step").get<int64_t>();
  e.epoch = j.at("epoch").get<int64_t>();
  e.lr = number_or_nan(j, "lr");
  e.loss = number_or_nan(j, "loss");
  e.accuracy = number_or_nan(j, "accuracy");
  e.grad_norm = number_or_nan(j, "grad_norm");
  e.tokens = j.at("tokens").get<int64_t>();
  e.tokens_per_s = number_or_nan(j, "tokens_per_s");
  e.elapsed_s = number_or_nan(j, "elapsed_s");
}

void from_json(const JsonFields& j, EvalEvent& e) {
  e.split = j.at("split").get<std::string>();
  e.step = j.at("step").get<int64_t>();
  e.epoch = j.at("epoch").get<int64_t>();
  e.scores = record_scores(j, "metrics", "");
  e.best = j.at("best").get<bool>();
  e.elapsed_s = number_or_nan(j, "elapsed_s");
}

void from_json(const JsonFields& j, FinalEvent& e) {
  e.split = j.at("split").get<std::string>();
  e.step = j.at("step").get<int64_t>();
  e.scores = record_scores(j, "metrics", "");
}

void from_json(const JsonFields& j, EventHeader& e) {
  const JsonFields& step = j.at("step");
  if (!step.is_number_integer()) throw nlohmann::json::type_error::create(302, "\"step\" is not an integer", &step);
  e.event = j.at("event").get<std::string>();
  e.step = step.get<int64_t>();
}

}  // namespace rotor
