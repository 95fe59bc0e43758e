#pragma once
// The run and train options with a fixed set of values, as enums, each with
// its name table (the machinery: engine/option_names.h). train.schedule's enum
// is the engine's LrScheduleKind (engine/optim/lr_schedule.h).
#include <array>
#include <utility>

#include "engine/option_names.h"

namespace rotor {

// What a run trains: a classifier of documents, a causal language model (next-token loss on every position),
// a masked language model (BERT's loss on the masked tokens), or on a sequence task an encoder's outputs at
// its query positions (transduction) or a decoder's answer after a prompt (completion).
enum class ObjectiveKind { classify, clm, mlm, transduction, completion };
enum class OptimizerKind { adamw, adam, sgd };
// automatic ("auto"): a bar when stderr is a terminal, plain lines otherwise.
enum class ProgressMode { automatic, bar, lines, none };

template <>
struct OptionNames<ObjectiveKind> {
  static constexpr std::array<std::pair<ObjectiveKind, const char*>, 5> table{
      {{ObjectiveKind::classify, "classify"},
       {ObjectiveKind::clm, "clm"},
       {ObjectiveKind::mlm, "mlm"},
       {ObjectiveKind::transduction, "transduction"},
       {ObjectiveKind::completion, "completion"}}};
};
template <>
struct OptionNames<OptimizerKind> {
  static constexpr std::array<std::pair<OptimizerKind, const char*>, 3> table{
      {{OptimizerKind::adamw, "adamw"}, {OptimizerKind::adam, "adam"}, {OptimizerKind::sgd, "sgd"}}};
};
template <>
struct OptionNames<ProgressMode> {
  static constexpr std::array<std::pair<ProgressMode, const char*>, 4> table{{{ProgressMode::automatic, "auto"},
                                                                              {ProgressMode::bar, "bar"},
                                                                              {ProgressMode::lines, "lines"},
                                                                              {ProgressMode::none, "none"}}};
};

}  // namespace rotor
