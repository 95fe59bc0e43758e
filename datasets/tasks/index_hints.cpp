#include "datasets/tasks/index_hints.h"

#include <algorithm>

#include "datasets/data_error.h"

namespace rotor {
namespace {

// Each symbol of `number` after hint first, first + 1, ...
void append_hinted(std::vector<std::string>& out, std::vector<std::string>::const_iterator begin,
                   std::vector<std::string>::const_iterator end, int64_t first) {
  for (auto it = begin; it != end; ++it) {
    out.push_back(index_hint(first++));
    out.push_back(*it);
  }
}

}  // namespace

std::string index_hint(int64_t i) { return "h" + std::to_string(i); }

bool takes_index_hints(const SequenceTask& task) {
  return task.level == TaskLevel::decoder && takes_coupled_positions(task);
}

int64_t index_hints_needed(const SequenceSample& sample, const char* op) {
  const auto& in = sample.input;
  const auto split = std::find(in.begin(), in.end(), op);
  const int64_t first = split - in.begin();
  const int64_t second = split == in.end() ? 0 : in.end() - split - 1;
  return std::max({first, second, static_cast<int64_t>(sample.output.size())});
}

SequenceSample with_index_hints(const SequenceSample& sample, const char* op, int64_t first) {
  if (sample.padding != 0) throw DataError("index hints: a sample whose answer ends in padding");
  SequenceSample out;
  const auto& in = sample.input;
  const auto split = std::find(in.begin(), in.end(), op);
  append_hinted(out.input, in.begin(), split, first);
  if (split != in.end()) {
    out.input.push_back(*split);
    append_hinted(out.input, split + 1, in.end(), first);
  }
  append_hinted(out.output, sample.output.begin(), sample.output.end(), first);
  return out;
}

}  // namespace rotor
