#pragma once
// `rotor analyze passkey`: the passkey retrieval test (Mohtashami & Jaggi
// 2023, "Landmark Attention"; as LongLoRA and YaRN evaluate it). Filler
// sentences repeated, "The pass key is NNNNN. Remember it. NNNNN is the pass
// key." inserted at a depth (a fraction of the filler), and at the end "What
// is the pass key? The pass key is "; the model must continue with the digits.
//
// A prompt is built in tokens, each piece encoded on its own and joined, so
// its length is exact whatever the tokenizer (for a byte tokenizer the tokens
// are the text's bytes; the key's tokens are those that follow the question's
// when the two are encoded together). The key goes at the filler sentence boundary nearest
// the depth; the filler is cut at its start, so it ends on a whole sentence.
//
// Scoring: greedy decoding reproduces the answer exactly iff every
// teacher-forced argmax over the answer's tokens is right (each greedy step
// is the argmax of the forward of its context, and a causal model's slot sees
// only its context), so one forward of prompt + answer scores a trial.
#include <cstdint>
#include <vector>

#include "datasets/tokenizer.h"
#include "models/language_model.h"

namespace rotor {

struct PasskeyPrompt {
  std::vector<int32_t> tokens;  // the prompt, ending with "The pass key is "
  std::vector<int32_t> answer;  // the key's digits as tokens: the continuation expected
  int64_t key_start = 0;        // index of the key sentence's first token
  int64_t filler_tokens = 0;    // the filler around the key sentence

  // Where the key sentence sits: the filler tokens before it over all filler tokens (0 for no filler).
  double depth() const;
};

class PasskeyPromptBuilder {
 public:
  explicit PasskeyPromptBuilder(const Tokenizer& tokenizer);
  // The tokens of the key's digits (the answer); ConfigError when the tokenizer gives [UNK] for them.
  std::vector<int32_t> answer(uint64_t key) const;
  // The shortest prompt for `key`: the key sentence and the question, no filler.
  int64_t min_tokens(uint64_t key) const;
  // A prompt of exactly `length` tokens (>= min_tokens(key)) with the key sentence at `depth` in [0, 1]
  // of the filler, within one filler sentence.
  PasskeyPrompt build(int64_t length, double depth, uint64_t key) const;
  // The longest filler sentence in tokens: how far the key may sit from the requested depth.
  int64_t longest_sentence() const;

 private:
  const Tokenizer& tokenizer_;
  struct Ending {
    std::vector<int32_t> question, answer;
  };
  // The prompt's last tokens and the answer for `key`; throws ConfigError when the key's tokens are [UNK].
  Ending ending(uint64_t key) const;

  std::vector<std::vector<int32_t>> sentences_;  // the filler, in order
};

// Trial `trial`'s key: a 5-digit number (10000..99999) from the counter-based generator, a pure function of
// (seed, trial), so every length and depth sees the same keys.
uint64_t passkey_key(uint64_t seed, int64_t trial);

struct PasskeyScore {
  std::vector<int32_t> predicted;  // the teacher-forced argmax at each answer token
  int64_t correct = 0;             // answer tokens predicted right
  bool exact = false;              // all of them: what greedy generation would give
};

// One forward of prompt.tokens + prompt.answer (less its last token); `model` must be causal.
PasskeyScore score_passkey(const LanguageModel& model, const PasskeyPrompt& prompt);

// One cell of the depth x length grid: `trials` keys at a window of `length` tokens.
struct PasskeyCell {
  int64_t length = 0;
  double depth = 0;               // as requested
  double mean_depth = 0;          // where the key sentences sat
  int64_t trials = 0, exact = 0;  // accuracy = exact / trials
  double token_accuracy = 0;      // answer tokens right over all answer tokens
};

// The shortest window a trial of `key` fits: its shortest prompt and its answer less the last token.
int64_t passkey_min_window(const PasskeyPromptBuilder& builder, uint64_t key);
// Throws ConfigError naming --lengths when a window of `length` tokens is too short for one of the trials.
void check_passkey_window(const PasskeyPromptBuilder& builder, int64_t length, int64_t trials, uint64_t seed);

// Each prompt has length - (answer tokens - 1) tokens, so the forward that scores it reads exactly `length`
// tokens (and greedy generation with a window of `length` never slides). check_passkey_window first.
PasskeyCell passkey_cell(const LanguageModel& model, const PasskeyPromptBuilder& builder, int64_t length, double depth,
                         int64_t trials, uint64_t seed);

}  // namespace rotor
