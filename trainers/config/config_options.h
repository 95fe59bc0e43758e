#pragma once
// The run and train options with a fixed set of values, as enums, each with
// its name table (the machinery: engine/option_names.h). train.schedule's enum
// is the engine's LrScheduleKind (engine/optim/lr_schedule.h).
#include <array>
#include <utility>

#include "engine/option_names.h"

namespace rotor {

// What a run trains: a classifier of documents, a causal language model (next-token loss on every position)
// or a masked language model (BERT's loss on the masked tokens).
enum class ObjectiveKind { classify, clm, mlm };
enum class OptimizerKind { adamw, adam, sgd };
// automatic ("auto"): a bar when stderr is a terminal, plain lines otherwise.
enum class ProgressMode { automatic, bar, lines, none };

template <>
struct OptionNames<ObjectiveKind> {
  static constexpr std::array<std::pair<ObjectiveKind, const char*>, 3> table{
      {{ObjectiveKind::classify, "classify"}, {ObjectiveKind::clm, "clm"}, {ObjectiveKind::mlm, "mlm"}}};
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
