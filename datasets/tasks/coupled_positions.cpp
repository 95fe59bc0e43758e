#include "datasets/tasks/coupled_positions.h"

#include <string>

#include "datasets/data_error.h"

namespace rotor {

std::vector<int32_t> coupled_positions(const SequenceSample& sample, const char* op, SequenceLayout layout) {
  std::vector<int32_t> positions;
  int32_t significance = 0;
  bool operator_seen = false;
  for (const std::string& symbol : sample.input) {
    if (symbol != op) {
      positions.push_back(++significance);
      continue;
    }
    if (operator_seen) throw DataError(std::string("coupled positions: an input with two '") + op + "' operators");
    operator_seen = true;
    positions.push_back(0);
    significance = 0;
  }
  const auto answer = static_cast<int32_t>(sample.output.size() - static_cast<size_t>(sample.padding));
  if (layout == SequenceLayout::queries) {
    for (size_t i = 0; i < sample.output.size(); ++i) positions.push_back(static_cast<int32_t>(i) + 1);
    return positions;
  }
  positions.push_back(0);  // the answer mark
  for (int32_t i = 0; i < answer; ++i) positions.push_back(i + 1);
  return positions;
}

}  // namespace rotor
