#include "datasets/tasks/sequence_layout.h"

namespace rotor {

RenderedSample render(const SequenceSample& sample, SequenceLayout layout) {
  RenderedSample out;
  out.tokens = sample.input;
  out.targets.assign(sample.input.size(), "");
  if (layout == SequenceLayout::queries) {
    for (const std::string& symbol : sample.output) {
      out.tokens.push_back(kQuerySymbol);
      out.targets.push_back(symbol);
    }
    return out;
  }
  out.tokens.push_back(kAnswerSymbol);
  for (const std::string& symbol : sample.output) {
    out.targets.push_back(symbol);
    out.tokens.push_back(symbol);
  }
  out.targets.push_back(kEndSymbol);
  return out;
}

}  // namespace rotor
