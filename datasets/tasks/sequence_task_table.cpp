// The table of sequence tasks: every family's rows, in level order.
#include "datasets/tasks/sequence_task.h"
#include "datasets/tasks/task_families.h"

namespace rotor {

const std::vector<SequenceTask>& sequence_tasks() {
  static const std::vector<SequenceTask> tasks = [] {
    std::vector<SequenceTask> all;
    for (const std::vector<SequenceTask>& family :
         {regular_tasks(), context_free_tasks(), context_sensitive_tasks(), decoder_tasks()})
      all.insert(all.end(), family.begin(), family.end());
    return all;
  }();
  return tasks;
}

const SequenceTask* find_sequence_task(std::string_view name) {
  for (const SequenceTask& t : sequence_tasks())
    if (name == t.name) return &t;
  return nullptr;
}

std::string task_names(bool (*keep)(const SequenceTask&)) {
  std::string out;
  for (const SequenceTask& t : sequence_tasks())
    if (keep(t)) out += (out.empty() ? "" : ", ") + std::string(t.name);
  return out;
}

bool takes_coupled_positions(const SequenceTask& task) { return task.coupled_operator != nullptr; }

std::string level_name(TaskLevel level) {
  switch (level) {
    case TaskLevel::regular:
      return "regular";
    case TaskLevel::context_free:
      return "context-free";
    case TaskLevel::context_sensitive:
      return "context-sensitive";
    case TaskLevel::decoder:
      return "decoder";
  }
  return "";
}

}  // namespace rotor
