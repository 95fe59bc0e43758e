#include "trainers/diagnostics/passkey.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "engine/argmax.h"
#include "engine/random.h"
#include "engine/var.h"
#include "trainers/config/config.h"

namespace rotor {
namespace {

const char* const kFiller[] = {"The grass is green. ", "The sky is blue. ", "The sun is yellow. ", "Here we go. ",
                               "There and back again. "};
const char* const kQuestion = "What is the pass key? The pass key is ";

std::vector<int32_t> key_sentence(const Tokenizer& tokenizer, uint64_t key) {
  return tokenizer.encode(fmt::format("The pass key is {0}. Remember it. {0} is the pass key. ", key));
}

void append(std::vector<int32_t>& to, std::vector<int32_t>::const_iterator first,
            std::vector<int32_t>::const_iterator last) {
  to.insert(to.end(), first, last);
}

}  // namespace

double PasskeyPrompt::depth() const {
  return filler_tokens == 0 ? 0.0 : static_cast<double>(key_start) / static_cast<double>(filler_tokens);
}

PasskeyPromptBuilder::PasskeyPromptBuilder(const Tokenizer& tokenizer) : tokenizer_(tokenizer) {
  for (const char* sentence : kFiller) sentences_.push_back(tokenizer.encode(sentence));
  for (const auto& s : sentences_)
    if (s.empty()) throw std::logic_error("passkey: a filler sentence gives no tokens");
}

PasskeyPromptBuilder::Ending PasskeyPromptBuilder::ending(uint64_t key) const {
  // The question and the key encoded together, split where the question alone stops agreeing: the answer is
  // what the tokenizer makes of the key after the question (a sentencepiece "_12345", not a lone "12345").
  const std::vector<int32_t> asked = tokenizer_.encode(kQuestion + std::to_string(key));
  const std::vector<int32_t> question = tokenizer_.encode(kQuestion);
  const size_t shared = static_cast<size_t>(
      std::mismatch(question.begin(), question.end(), asked.begin(), asked.end()).first - question.begin());
  Ending e{{asked.begin(), asked.begin() + static_cast<std::ptrdiff_t>(shared)},
           {asked.begin() + static_cast<std::ptrdiff_t>(shared), asked.end()}};
  if (e.answer.empty() || std::count(e.answer.begin(), e.answer.end(), Tokenizer::kUnkId) > 0)
    throw ConfigError(
        fmt::format("the checkpoint's {} tokenizer has no tokens for the key {} (it gives [UNK]): "
                    "the passkey test needs a tokenizer that spells numbers (byte, sentencepiece, or vocab with "
                    "data.split_punctuation and the digits in its training text)",
                    tokenizer_.name(), key));
  return e;
}

std::vector<int32_t> PasskeyPromptBuilder::answer(uint64_t key) const { return ending(key).answer; }

int64_t PasskeyPromptBuilder::min_tokens(uint64_t key) const {
  return static_cast<int64_t>(key_sentence(tokenizer_, key).size() + ending(key).question.size());
}

int64_t PasskeyPromptBuilder::longest_sentence() const {
  size_t longest = 0;
  for (const auto& s : sentences_) longest = std::max(longest, s.size());
  return static_cast<int64_t>(longest);
}

PasskeyPrompt PasskeyPromptBuilder::build(int64_t length, double depth, uint64_t key) const {
  const std::vector<int32_t> keyed = key_sentence(tokenizer_, key);
  const int64_t filler = length - min_tokens(key);
  if (filler < 0 || depth < 0 || depth > 1) throw std::logic_error("passkey: a prompt shorter than its key");
  // The filler's sentences from its end backwards, so that it ends on a whole sentence; the start is cut.
  std::vector<std::vector<int32_t>> reversed;
  int64_t total = 0;
  for (size_t s = 0; total < filler; ++s) {
    reversed.push_back(sentences_[sentences_.size() - 1 - s % sentences_.size()]);
    total += static_cast<int64_t>(reversed.back().size());
  }
  std::vector<int32_t> stream;
  // Where the key may go: the filler's start, and each sentence's end in the cut filler (the cut is shorter
  // than the first sentence, so none is before the start).
  std::vector<int64_t> boundaries{0};
  for (auto s = reversed.rbegin(); s != reversed.rend(); ++s) {
    append(stream, s->begin(), s->end());
    boundaries.push_back(static_cast<int64_t>(stream.size()) - (total - filler));
  }
  stream.erase(stream.begin(), stream.begin() + (total - filler));
  const double target = depth * static_cast<double>(filler);
  const int64_t at = *std::min_element(boundaries.begin(), boundaries.end(), [&](int64_t a, int64_t b) {
    return std::abs(static_cast<double>(a) - target) < std::abs(static_cast<double>(b) - target);
  });
  const Ending end = ending(key);
  PasskeyPrompt prompt{{}, end.answer, at, filler};
  append(prompt.tokens, stream.begin(), stream.begin() + at);
  append(prompt.tokens, keyed.begin(), keyed.end());
  append(prompt.tokens, stream.begin() + at, stream.end());
  append(prompt.tokens, end.question.begin(), end.question.end());
  return prompt;
}

uint64_t passkey_key(uint64_t seed, int64_t trial) {
  return 10000 + RandomKey{seed, stream_id("passkey"), 0}.below(static_cast<uint64_t>(trial), 90000);
}

PasskeyScore score_passkey(const LanguageModel& model, const PasskeyPrompt& prompt) {
  if (model.kind() != LanguageModelKind::causal) throw std::logic_error("passkey: the model is not causal");
  NoGradGuard no_grad;
  std::vector<int32_t> tokens = prompt.tokens;
  append(tokens, prompt.answer.begin(), prompt.answer.end() - 1);
  const int64_t n = static_cast<int64_t>(tokens.size());
  const std::vector<int32_t> lengths{static_cast<int32_t>(n)};
  ForwardContext ctx;
  const std::vector<double> logits = model.logits(ModelInput{tokens, lengths, 1, n}, ctx).value().to_doubles();
  const size_t vocab = logits.size() / static_cast<size_t>(n);
  PasskeyScore score;
  for (size_t k = 0; k < prompt.answer.size(); ++k) {
    const size_t slot = prompt.tokens.size() - 1 + k;  // the slot that predicts answer token k
    score.predicted.push_back(static_cast<int32_t>(argmax(logits.data() + slot * vocab, vocab)));
    score.correct += score.predicted.back() == prompt.answer[k] ? 1 : 0;
  }
  score.exact = score.correct == static_cast<int64_t>(prompt.answer.size());
  return score;
}

int64_t passkey_min_window(const PasskeyPromptBuilder& builder, uint64_t key) {
  return builder.min_tokens(key) + static_cast<int64_t>(builder.answer(key).size()) - 1;
}

void check_passkey_window(const PasskeyPromptBuilder& builder, int64_t length, int64_t trials, uint64_t seed) {
  int64_t needed = 0;
  for (int64_t t = 0; t < trials; ++t) needed = std::max(needed, passkey_min_window(builder, passkey_key(seed, t)));
  if (length < needed)
    throw ConfigError(
        fmt::format("--lengths {}: a passkey trial needs a window of at least {} tokens with this "
                    "tokenizer (the key sentence, the question and the answer's digits)",
                    length, needed));
}

PasskeyCell passkey_cell(const LanguageModel& model, const PasskeyPromptBuilder& builder, int64_t length, double depth,
                         int64_t trials, uint64_t seed) {
  check_passkey_window(builder, length, trials, seed);
  PasskeyCell cell{length, depth, 0, trials, 0, 0};
  int64_t answer_tokens = 0, correct = 0;
  for (int64_t t = 0; t < trials; ++t) {
    const uint64_t key = passkey_key(seed, t);
    const std::vector<int32_t> answer = builder.answer(key);
    const PasskeyPrompt prompt = builder.build(length - static_cast<int64_t>(answer.size()) + 1, depth, key);
    const PasskeyScore score = score_passkey(model, prompt);
    cell.exact += score.exact ? 1 : 0;
    cell.mean_depth += prompt.depth() / static_cast<double>(trials);
    correct += score.correct;
    answer_tokens += static_cast<int64_t>(answer.size());
  }
  cell.token_accuracy = answer_tokens > 0 ? static_cast<double>(correct) / static_cast<double>(answer_tokens) : 0;
  return cell;
}

}  // namespace rotor
