#pragma once
// Sequence tasks: a generated input string and the string a model must
// output for it, as in the length-generalisation benchmarks of Deletang et al.
// 2023 ("Neural Networks and the Chomsky Hierarchy", also Ruoss et al. 2023)
// and Kazemnejad et al. 2023 (decoder tasks). Each task is a row of
// sequence_tasks(), its generator in the file of its family; how a sample
// becomes model tokens and per-token targets is sequence_layout.h.
//
// A sample's length n is the length of its input in symbols, the length the
// papers train (1..40) and test (41..500) on. Symbols are whitespace-free
// strings, one vocab token each.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/random.h"

namespace rotor {

struct SequenceSample {
  std::vector<std::string> input;
  std::vector<std::string> output;  // never empty
  // Trailing output symbols that only pad the output to a length that does not
  // give the answer away (binary addition and multiplication pad to n + 1 and n
  // after their end mark): they get query positions but no target, so they are
  // neither trained nor scored, which is the authors' accuracy mask.
  int64_t padding = 0;
};

// Where a task comes from: its level of the Chomsky hierarchy (Deletang et al.
// 2023, Table 1) or the decoder set of Kazemnejad et al. 2023.
enum class TaskLevel { regular, context_free, context_sensitive, decoder };

struct SequenceTask {
  const char* name;    // data.task, kebab-case: "reverse-string"
  const char* source;  // paper, and the authors' file the definition follows
  TaskLevel level;
  int64_t min_length;  // the shortest input the task defines
  // The sample of input length n (n >= min_length) from `key`'s draws 0, 1, ...
  SequenceSample (*draw)(const RandomKey& key, int64_t n);
  // The operator between two little-endian operands whose digits, and the answer's,
  // data.generated.positions: coupled lines up by significance; nullptr: none.
  const char* coupled_operator = nullptr;
};

// The output symbols after the first `end_mark` (0 when there is none): the
// padding of a task whose answer ends with a mark.
inline int64_t padding_after(const std::vector<std::string>& output, std::string_view end_mark) {
  for (size_t i = 0; i < output.size(); ++i)
    if (output[i] == end_mark) return static_cast<int64_t>(output.size() - i - 1);
  return 0;
}

// Every sequence task, in table order.
const std::vector<SequenceTask>& sequence_tasks();
// nullptr when `name` is not a sequence task.
const SequenceTask* find_sequence_task(std::string_view name);
// The names of the tasks `keep` holds for, in table order, as "binary-addition, addition".
std::string task_names(bool (*keep)(const SequenceTask&));
// Whether data.generated.positions: coupled applies to `task` (it has a coupled operator).
bool takes_coupled_positions(const SequenceTask& task);
std::string level_name(TaskLevel level);

}  // namespace rotor
