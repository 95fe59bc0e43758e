#include "datasets/tasks/sequence_layout.h"

namespace rotor {

RenderedSample render(const SequenceSample& sample, SequenceLayout layout) {
  RenderedSample out;
  out.tokens = sample.input;
  out.targets.assign(sample.input.size(), "");
  const size_t answer = sample.output.size() - static_cast<size_t>(sample.padding);
  if (layout == SequenceLayout::queries) {
    for (size_t i = 0; i < sample.output.size(); ++i) {
      out.tokens.push_back(kQuerySymbol);
      out.targets.push_back(i < answer ? sample.output[i] : "");
    }
    return out;
  }
  out.tokens.push_back(kAnswerSymbol);
  for (size_t i = 0; i < answer; ++i) {
    out.targets.push_back(sample.output[i]);
    out.tokens.push_back(sample.output[i]);
  }
  out.targets.push_back(kEndSymbol);
  return out;
}

}  // namespace rotor
