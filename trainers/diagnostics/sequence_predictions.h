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
#include "datasets/tokenizer.h"
#include "models/language_model.h"
#include "trainers/diagnostics/text_generation.h"

namespace rotor {

struct SequencePrediction {
  std::vector<int32_t> input;      // the tokens before the first target (the prompt without "=")
  std::vector<int32_t> expected;   // the targets (prompt_answer: without the end mark)
  std::vector<int32_t> predicted;  // the model's output, the same way
  bool right() const { return predicted == expected; }
};

// The token of the end mark "."; DataError when the run's tokenizer has no single token for it.
int32_t end_mark_token(const Tokenizer& tokenizer);

// A completion run's prompt from its task's input written as rotor predict prints it (symbols separated by
// spaces), "=" appended unless it ends with one; ConfigError naming --prompt and a symbol the run's tokenizer
// does not know.
std::vector<int32_t> completion_prompt(const Tokenizer& tokenizer, const std::string& text);

// The answer to `prompt` (a completion prompt, ending with "="): generated with `options` (at its
// prompt_positions, for data at coupled positions) until the end mark, which is not returned, or for
// options.max_new tokens.
std::vector<int32_t> answer_prompt(const LanguageModel& model, const std::vector<int32_t>& prompt, int32_t end_mark,
                                   GenerationOptions options);

// `end_mark`: the token id of kEndSymbol (prompt_answer); `window`: the most tokens a
// forward reads (data.eval_max_len). The split must have targets.
std::vector<SequencePrediction> predict_sequences(const LanguageModel& model, const TokenizedSplit& split,
                                                  SequenceLayout layout, int32_t end_mark, int64_t window);

}  // namespace rotor
