#include "trainers/diagnostics/sequence_predictions.h"

#include <algorithm>
#include <sstream>

#include "datasets/data_error.h"
#include "engine/argmax.h"
#include "trainers/config/config.h"

namespace rotor {
namespace {

// The first `count` positions of a document of the split; empty when the split has none.
std::vector<int32_t> doc_positions(const TokenizedSplit& split, int64_t doc, int64_t count) {
  if (!split.has_positions()) return {};
  return std::vector<int32_t>(split.doc_positions(doc), split.doc_positions(doc) + count);
}

// The argmax at every targeted position of the sample, read by one forward.
std::vector<int32_t> query_outputs(const LanguageModel& model, const TokenizedSplit& split, int64_t doc) {
  const int64_t n = split.doc_length(doc);
  const std::vector<int32_t> tokens(split.doc_tokens(doc), split.doc_tokens(doc) + n);
  const std::vector<double> logits = sequence_logits(model, tokens, doc_positions(split, doc, n));
  const size_t vocab = logits.size() / static_cast<size_t>(n);
  std::vector<int32_t> out;
  for (int64_t t = 0; t < n; ++t)
    if (split.doc_targets(doc)[t] != kNoTarget)
      out.push_back(static_cast<int32_t>(argmax(logits.data() + static_cast<size_t>(t) * vocab, vocab)));
  return out;
}

// Greedy decoding after the prompt (its tokens through the first targeted one, "=", at `positions`: empty or
// one a token), up to the end mark.
std::vector<int32_t> decoded_answer(const LanguageModel& model, const std::vector<int32_t>& prompt,
                                    std::vector<int32_t> positions, int64_t answer, int32_t end_mark, int64_t window) {
  GenerationOptions greedy;
  greedy.temperature = 0.0;
  greedy.max_new = answer + 1;  // the answer and its end mark
  greedy.window = window;
  greedy.prompt_positions = std::move(positions);
  return answer_prompt(model, prompt, end_mark, greedy);
}

// The token of one task symbol, or -1 when the tokenizer has no single known token for it.
int32_t symbol_token(const Tokenizer& tokenizer, const std::string& symbol) {
  const std::vector<int32_t> ids = tokenizer.encode(symbol);
  return ids.size() == 1 && ids[0] != tokenizer.unk_id() ? ids[0] : -1;
}

// The token of a layout's mark ("answer mark", "="); DataError when the run's tokenizer has none.
int32_t mark_token(const Tokenizer& tokenizer, const std::string& name, const char* symbol) {
  const int32_t id = symbol_token(tokenizer, symbol);
  if (id < 0) throw DataError("the run's tokenizer has no single token for the " + name + " '" + symbol + "'");
  return id;
}

}  // namespace

int32_t end_mark_token(const Tokenizer& tokenizer) { return mark_token(tokenizer, "end mark", kEndSymbol); }

std::vector<int32_t> completion_prompt(const Tokenizer& tokenizer, const std::string& text) {
  std::istringstream words(text);
  std::vector<int32_t> prompt;
  for (std::string symbol; words >> symbol;) {
    prompt.push_back(symbol_token(tokenizer, symbol));
    if (prompt.back() < 0)
      throw ConfigError("--prompt: '" + symbol +
                        "' is not a symbol of the run's task; a completion run's prompt is its task's input, "
                        "symbols separated by spaces, as rotor predict prints it");
  }
  if (prompt.empty()) throw ConfigError("--prompt: the prompt has no symbols; give the task's input to answer");
  const int32_t answer_mark = mark_token(tokenizer, "answer mark", kAnswerSymbol);
  if (prompt.back() != answer_mark) prompt.push_back(answer_mark);
  return prompt;
}

std::vector<int32_t> answer_prompt(const LanguageModel& model, const std::vector<int32_t>& prompt, int32_t end_mark,
                                   GenerationOptions options) {
  options.stop = end_mark;
  std::vector<int32_t> out = generate(model, prompt, options);
  out.erase(std::find(out.begin(), out.end(), end_mark), out.end());
  return out;
}

std::vector<SequencePrediction> predict_sequences(const LanguageModel& model, const TokenizedSplit& split,
                                                  SequenceLayout layout, int32_t end_mark, int64_t window) {
  NoGradGuard no_grad;
  std::vector<SequencePrediction> out;
  for (int64_t doc = 0; doc < split.num_docs(); ++doc) {
    const int32_t* tokens = split.doc_tokens(doc);
    const int32_t* targets = split.doc_targets(doc);
    const int64_t n = split.doc_length(doc);
    const int64_t first = std::find_if(targets, targets + n, [](int32_t t) { return t != kNoTarget; }) - targets;
    SequencePrediction p;
    p.input.assign(tokens, tokens + first);
    std::copy_if(targets, targets + n, std::back_inserter(p.expected), [](int32_t t) { return t != kNoTarget; });
    if (layout == SequenceLayout::queries) {
      p.predicted = query_outputs(model, split, doc);
    } else {
      p.expected.pop_back();  // the end mark
      const std::vector<int32_t> prompt(tokens, tokens + std::min(first + 1, n));
      const auto answer = static_cast<int64_t>(p.expected.size());
      p.predicted =
          decoded_answer(model, prompt, doc_positions(split, doc, std::min(first + 1, n)), answer, end_mark, window);
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace rotor
