#include "trainers/run/metrics_events.h"

#include <cmath>

#include "engine/error.h"

namespace rotor {
namespace {

bool same_number(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

}  // namespace

bool SplitScores::absent() const { return std::isnan(loss); }
double SplitScores::perplexity() const { return std::exp(loss); }
double SplitScores::bits_per_token() const { return loss / std::log(2.0); }

double SplitScores::get(const std::string& metric) const {
  if (metric == "loss") return loss;
  if (metric == "accuracy") return accuracy;
  if (!language_model && metric == "macro_f1") return macro_f1;
  if (language_model && metric == "perplexity") return perplexity();
  if (language_model && metric == "bits_per_token") return bits_per_token();
  throw ValueError("no metric '" + metric + "' in " + (language_model ? "a language model's" : "a classifier's") +
                   " scores");
}

bool SplitScores::operator==(const SplitScores& o) const {
  return language_model == o.language_model && same_number(loss, o.loss) && same_number(accuracy, o.accuracy) &&
         (language_model || same_number(macro_f1, o.macro_f1));  // a language model has no macro-F1
}

void add_scores(JsonFields& j, const std::string& prefix, const SplitScores& s) {
  j[prefix + "loss"] = s.loss;
  j[prefix + "accuracy"] = s.accuracy;
  if (!s.language_model) {
    j[prefix + "macro_f1"] = s.macro_f1;
    return;
  }
  j[prefix + "perplexity"] = s.perplexity();
  j[prefix + "bits_per_token"] = s.bits_per_token();
}

SplitScores scores_from(const JsonFields& j, const std::string& prefix) {
  SplitScores s;
  s.language_model = j.contains(prefix + "perplexity");
  s.loss = number_or_nan(j, (prefix + "loss").c_str());
  s.accuracy = number_or_nan(j, (prefix + "accuracy").c_str());
  s.macro_f1 = s.language_model ? std::nan("") : number_or_nan(j, (prefix + "macro_f1").c_str());
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
  add_scores(j, "", e.scores);
  j["best"] = e.best;
  j["elapsed_s"] = e.elapsed_s;
}

void to_json(JsonFields& j, const FinalEvent& e) {
  j = {{"event", "final"}, {"split", e.split}, {"step", e.step}};
  add_scores(j, "", e.scores);
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
  e.scores = scores_from(j, "");
  e.best = j.at("best").get<bool>();
  e.elapsed_s = number_or_nan(j, "elapsed_s");
}

void from_json(const JsonFields& j, FinalEvent& e) {
  e.split = j.at("split").get<std::string>();
  e.step = j.at("step").get<int64_t>();
  e.scores = scores_from(j, "");
}

void from_json(const JsonFields& j, EventHeader& e) {
  const JsonFields& step = j.at("step");
  if (!step.is_number_integer()) throw nlohmann::json::type_error::create(302, "\"step\" is not an integer", &step);
  e.event = j.at("event").get<std::string>();
  e.step = step.get<int64_t>();
}

}  // namespace rotor
