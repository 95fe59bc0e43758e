#pragma once
// Generated classification tasks on which position encodings are known to
// differ: each label depends on where tokens are, not only on which occur.
// A sample is n whitespace-separated symbols (one vocab token each). Filler
// and value symbols are the first V lowercase letters a, b, c, ...
// (V = data.generated.alphabet); draws are uniform unless stated.
//
//   order              n symbols: filler, except one A and one B at two
//                      distinct positions. yes iff A comes before B.
//   first-last         n symbols over {a, b}. yes iff the first equals the
//                      last ("even pairs", Deletang et al. 2023). n >= 2.
//   offset             filler with one marker M at position p, p + k < n
//                      (k = data.generated.offset). Label: the symbol at
//                      p + k (V classes). n >= k + 2.
//   recall             p pairs "key value" (keys distinct, from k0..k{K-1},
//                      K = data.generated.keys; values from the V letters),
//                      then "?" and one of the sample's keys. Label: that
//                      key's value (V classes). n = 2p + 2: even, >= 4.
//   missing-duplicate  s (m symbols over {a, b}), "|", then s with one
//                      position replaced by "_". Label: the masked symbol.
//                      n = 2m + 1: odd, >= 3.
//   bigram             n filler symbols. yes iff the pair "a b" occurs:
//                      negatives have no "b" right after an "a" (such a b
//                      is redrawn from the other symbols); positives are
//                      drawn the same way, then get exactly one "a b" at a
//                      random place. n >= 2.
//
// A task draws a sample of a given length and label, so the caller decides
// both (generated_tasks.h balances the labels and picks the lengths).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "datasets/tasks/generated_task_config.h"
#include "engine/random.h"

namespace rotor {

// The offset task's marker symbol (M above): its label is the symbol k after it.
inline constexpr std::string_view kOffsetMarker = "M";

// The lengths a task can draw: n >= min, n - min a multiple of step.
struct LengthRule {
  int64_t min = 1;
  int64_t step = 1;
};

struct SeparationTask {
  const char* name;
  // Class names; label i of draw() is classes(...)[i].
  std::vector<std::string> (*classes)(const GeneratedTaskConfig& config);
  LengthRule (*lengths)(const GeneratedTaskConfig& config);
  // Throws DataError naming the key when an option cannot give samples of up
  // to `longest` tokens (recall: too few keys).
  void (*check)(const GeneratedTaskConfig& config, int64_t longest);
  // The n symbols of a sample of class `label`, from `key`'s draws 0, 1, ...
  std::vector<std::string> (*draw)(const GeneratedTaskConfig& config, const RandomKey& key, int64_t n, int32_t label);
};

const std::vector<SeparationTask>& separation_tasks();

// nullptr when `name` is not a separation task.
const SeparationTask* find_separation_task(std::string_view name);

// Filler / value symbol i (0-based): "a", "b", ...
std::string letter(int64_t i);

}  // namespace rotor
