#pragma once
// Two families of sequence tasks (sequence_task.h), each defined exactly as
// its authors' code does; docs/guide/tasks-sequence.md states every definition
// with its source:
//   the context-sensitive tasks of Deletang et al. 2023 (also Ruoss et al.
//   2023), context_sensitive_tasks.cpp;
//   the decoder tasks of Kazemnejad et al. 2023, decoder_tasks.cpp.
// The families are declared in task_families.h; a task's output is a pure
// function of its input, its answer below.
#include <vector>

#include "datasets/tasks/number_symbols.h"
#include "datasets/tasks/sequence_task.h"
#include "datasets/tasks/task_families.h"

namespace rotor {

// Each task's output for an input (DataError when the input is not one the
// task draws), by the task's name in snake_case.
namespace sequence_answers {

Symbols duplicate_string(const Symbols& input);
Symbols missing_duplicate(const Symbols& input);
Symbols odds_first(const Symbols& input);
Symbols binary_addition(const Symbols& input);
Symbols binary_multiplication(const Symbols& input);
Symbols compute_sqrt(const Symbols& input);
Symbols bucket_sort(const Symbols& input);

Symbols copy(const Symbols& input);
Symbols reverse(const Symbols& input);
Symbols sort(const Symbols& input);
Symbols addition(const Symbols& input);
Symbols summation(const Symbols& input);
Symbols parity(const Symbols& input);

}  // namespace sequence_answers
}  // namespace rotor
