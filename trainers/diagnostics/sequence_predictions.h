#pragma once
// What a sequence-task run (train.objective transduction or completion)
// outputs for each sample of a split, for `rotor predict`, by the layout its
// row reads (datasets/tasks/sequence_layout.h):
//   queries        the argmax token at each query position of one forward (the
//                  encoder reads the input and the queries together)
//   prompt_answer  greedy decoding after the prompt (text_generation.h,
//                  temperature 0) until the end mark, at most one token past
//                  the expected answer's length; the end mark is not printed
// A sample is right when its prediction is the expected output: for
// prompt_answer exactly when every teacher-forced argmax of the answer and its
// end mark is right, the exact_match the evaluation counts.
#include <cstdint>
#include <vector>

#include "datasets/tasks/sequence_layout.h"
#include "datasets/tokenized_split.h"
#include "models/language_model.h"

namespace rotor {

struct SequencePrediction {
  std::vector<int32_t> input;      // the tokens before the first target (the prompt without "=")
  std::vector<int32_t> expected;   // the targets (prompt_answer: without the end mark)
  std::vector<int32_t> predicted;  // the model's output, the same way
  bool right() const { return predicted == expected; }
};

// `end_mark`: the token id of kEndSymbol (prompt_answer); `window`: the most tokens a
// forward reads (data.eval_max_len). The split must have targets.
std::vector<SequencePrediction> predict_sequences(const LanguageModel& model, const TokenizedSplit& split,
                                                  SequenceLayout layout, int32_t end_mark, int64_t window);

}  // namespace rotor
