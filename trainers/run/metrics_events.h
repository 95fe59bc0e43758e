#pragma once
// The events of RUN/metrics.jsonl, one compact JSON object per line, fields in
// the order written here:
//   train  {"event":"train","step","epoch","lr","loss","accuracy","grad_norm",
//           "tokens","tokens_per_s","elapsed_s"}   every run.log_every steps
//   eval   {"event":"eval","split","step","epoch","loss","accuracy","macro_f1",
//           "best","elapsed_s"}                    each validation (a language model:
//           "perplexity","bits_per_token" in place of "macro_f1", here and in final)
//   final  {"event":"final","split","step","loss","accuracy","macro_f1"}
//                                                  the best checkpoint on each held-out split
// A number that is NaN or infinite is written as null and read back as NaN.
#include <cstdint>
#include <string>

#include "trainers/run/json_text.h"

namespace rotor {

// Loss, accuracy and macro-F1 of one split, as logged and summarized. A
// language model's loss is in nats per predicted token and its accuracy that
// of the next token; it has no macro-F1, and logs its perplexity and bits per
// token (per byte with the byte tokenizer) instead, both from the loss. A
// split that scored no target (a masked LM's with no token selected) has no
// metric: loss and accuracy are NaN, written as null, never 0 (loss 0 would read
// as a perfect model and become the best checkpoint).
struct SplitScores {
  double loss = 0.0, accuracy = 0.0, macro_f1 = 0.0;
  bool language_model = false;
  bool absent() const;  // no target was scored
  double perplexity() const;
  double bits_per_token() const;
  // The metric named `metric` (train.best_metric: one its objective declares, objective_table.h);
  // throws ValueError for a name the split's scores do not carry.
  double get(const std::string& metric) const;
  bool operator==(const SplitScores& o) const;
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

// Appends "<prefix>loss", "<prefix>accuracy", "<prefix>macro_f1" to `j`; reads them back.
void add_scores(JsonFields& j, const std::string& prefix, const SplitScores& s);
SplitScores scores_from(const JsonFields& j, const std::string& prefix);

}  // namespace rotor
