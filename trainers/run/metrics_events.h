#pragma once
// The events of RUN/metrics.jsonl, one compact JSON object per line, fields in
// the order written here:
//   train  {"event":"train","step","epoch","lr","loss","accuracy","grad_norm",
//           "tokens","tokens_per_s","elapsed_s"}   every run.log_every steps
//   eval   {"event":"eval","split","step","epoch","metrics":{NAME: value, ...},
//           "best","elapsed_s"}                    each validation
//   final  {"event":"final","split","step","metrics":{...}}
//                                                  the best checkpoint on each held-out split
// "metrics" holds the split's scores under the names its objective declares
// (objective_table.h), in their order. Files written before it have the
// metrics as fields of the event ("loss", "accuracy", "macro_f1", "perplexity",
// "bits_per_token"); they read into the same names.
// A number that is NaN or infinite is written as null and read back as NaN.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "trainers/run/json_text.h"

namespace rotor {

// The scores of one split, as logged and summarized: metric name -> value, in
// the order the run's objective declares its metrics (then any more it
// measured). A language model's loss is in nats per predicted token. A split
// that scored no target (a masked LM's with no token selected) has no metric:
// every value is NaN, written as null, never 0 (loss 0 would read as a perfect
// model and become the best checkpoint).
class SplitScores {
 public:
  SplitScores() = default;
  SplitScores(std::initializer_list<std::pair<std::string, double>> values);

  // Replaces the value of `metric`, or appends it.
  void set(const std::string& metric, double value);
  bool has(const std::string& metric) const;
  // The value of `metric` (train.best_metric: one its objective declares,
  // objective_table.h); throws ValueError for a name the scores do not carry.
  double get(const std::string& metric) const;
  const std::vector<std::pair<std::string, double>>& values() const { return values_; }
  bool absent() const;  // no target was scored
  // The same metrics with the same values (NaN equals NaN), in any order.
  bool operator==(const SplitScores& o) const;

 private:
  std::vector<std::pair<std::string, double>> values_;
};

struct TrainEvent {
  int64_t step = 0, epoch = 0;
  double lr = 0.0, loss = 0.0, accuracy = 0.0, grad_norm = 0.0;
  int64_t tokens = 0;
  double tokens_per_s = 0.0, elapsed_s = 0.0;
};

struct EvalEvent {
  std::string split;
  int64_t step = 0, epoch = 0;
  SplitScores scores;
  bool best = false;
  double elapsed_s = 0.0;
};

struct FinalEvent {
  std::string split;
  int64_t step = 0;  // the best checkpoint's
  SplitScores scores;
};

// What every event has: what it is ("train", "eval", "final") and its step.
struct EventHeader {
  std::string event;
  int64_t step = 0;
};

void to_json(JsonFields& j, const TrainEvent& e);
void to_json(JsonFields& j, const EvalEvent& e);
void to_json(JsonFields& j, const FinalEvent& e);
void from_json(const JsonFields& j, TrainEvent& e);
void from_json(const JsonFields& j, EvalEvent& e);
void from_json(const JsonFields& j, FinalEvent& e);
// Throws nlohmann::json::exception unless "event" is a string and "step" an integer.
void from_json(const JsonFields& j, EventHeader& e);

// The scores as a JSON object, metric name -> value (null: NaN), and back.
JsonFields scores_json(const SplitScores& s);
SplitScores scores_from_json(const JsonFields& metrics);
// The scores a record holds under `key`, or, in a record written before
// "metrics" existed, its fields "<prefix>loss", "<prefix>accuracy",
// "<prefix>macro_f1", "<prefix>perplexity", "<prefix>bits_per_token".
SplitScores record_scores(const JsonFields& j, const std::string& key, const std::string& prefix);

}  // namespace rotor
