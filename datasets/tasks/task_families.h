#pragma once
// The sequence tasks by family, each a file of its own; sequence_task_table.cpp
// joins them into sequence_tasks().
#include <vector>

#include "datasets/tasks/sequence_task.h"

namespace rotor {

// Deletang et al. 2023, regular level: even-pairs, modular-arithmetic,
// parity-check, cycle-navigation (regular_tasks.cpp).
std::vector<SequenceTask> regular_tasks();
// Deletang et al. 2023, deterministic context-free level: stack-manipulation,
// reverse-string, modular-arithmetic-brackets, solve-equation
// (context_free_tasks.cpp).
std::vector<SequenceTask> context_free_tasks();
// Deletang et al. 2023, context-sensitive level (context_sensitive_tasks.cpp).
std::vector<SequenceTask> context_sensitive_tasks();
// Kazemnejad et al. 2023's decoder tasks (decoder_tasks.cpp).
std::vector<SequenceTask> decoder_tasks();

}  // namespace rotor
