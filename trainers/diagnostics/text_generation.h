#pragma once
// `rotor generate`: a causal language model continues a prompt one token at a
// time, as nanoGPT's sample.py does: the logits of the last slot divided by the
// temperature, all but the top k set to -inf, one token drawn from their
// softmax; temperature 0 takes the argmax (greedy). The context is the last
// `window` tokens (the window slides, as sample.py crops to its block size),
// recomputed with a full forward each step: no cache, so each token is
// exactly what a forward of its context gives.
//
// The draw for the token at position p (its index in prompt + continuation) is
// a pure function of (seed, p) from the counter-based generator: the same seed
// gives the same text at any thread count.
#include <cstdint>
#include <vector>

#include "engine/random.h"
#include "models/language_model.h"

namespace rotor {

struct GenerationOptions {
  int64_t max_new = 100;     // tokens to add
  double temperature = 1.0;  // 0: greedy
  int64_t top_k = 0;         // 0: every token may be drawn
  uint64_t seed = 0;
  int64_t window = 0;  // context tokens per forward (> 0)
  int32_t stop = -1;   // generation ends once this token is added (a completion run's end mark); -1: none
  // The prompt's positions, one a token, for data at coupled positions (datasets/tasks/coupled_positions.h);
  // generated token k (1, 2, ...) then sits at position k, as answer symbol k does. Empty: tokens at their slots.
  std::vector<int32_t> prompt_positions{};
};

// The logits of every slot of one forward of `tokens` (a batch of one), at `positions` (empty: at their slots).
std::vector<double> sequence_logits(const LanguageModel& model, const std::vector<int32_t>& tokens,
                                    const std::vector<int32_t>& positions);

// The next token for `logits` (one slot's scores): the argmax at temperature 0, else a draw
// with the uniform number `u` in [0, 1) from softmax(logits / temperature) over the top k.
int32_t choose_token(const std::vector<double>& logits, double temperature, int64_t top_k, double u);

// The continuation of `prompt` (its tokens only, not the prompt's): max_new tokens, or fewer
// ending with options.stop. `model` must be causal.
std::vector<int32_t> generate(const LanguageModel& model, const std::vector<int32_t>& prompt,
                              const GenerationOptions& options);

}  // namespace rotor
