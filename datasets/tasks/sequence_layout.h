#pragma once
// How a sequence task's sample (sequence_task.h) becomes the tokens a model
// reads and the token each position must predict. Two layouts, one per
// objective that reads sequence tasks:
//
//   queries        (transduction, an encoder; Deletang et al. 2023's
//                  make_model_with_empty_targets): the input, then one query
//                  symbol "?" per output symbol. Query position i predicts
//                  output[i]; input positions and the sample's padding
//                  (sequence_task.h) predict nothing.
//                    input "a b c", output "c b a"
//                    tokens  a b c ? ? ?
//                    targets - - - c b a
//   prompt_answer  (completion, a causal decoder; Kazemnejad et al. 2023):
//                  the input, "=", then the output (teacher forcing). The
//                  "=" predicts output[0], output[i] predicts output[i + 1],
//                  the last output symbol predicts the end mark "."; a
//                  sample's padding is left out (the answer ends before it).
//                    tokens  a b c = c b a
//                    targets - - - c b a .
//                  Greedy decoding reproduces the answer exactly iff every
//                  one of these argmaxes is right, so exact match needs no
//                  generation loop.
#include <string>
#include <vector>

#include "datasets/tasks/sequence_task.h"

namespace rotor {

enum class SequenceLayout { queries, prompt_answer };

inline constexpr const char* kQuerySymbol = "?";
inline constexpr const char* kAnswerSymbol = "=";
inline constexpr const char* kEndSymbol = ".";

struct RenderedSample {
  std::vector<std::string> tokens;
  std::vector<std::string> targets;  // one per token; "" where nothing is predicted
};

RenderedSample render(const SequenceSample& sample, SequenceLayout layout);

}  // namespace rotor
