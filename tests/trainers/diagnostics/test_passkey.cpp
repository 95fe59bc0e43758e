// rotor analyze passkey: prompts of exactly the requested length with the key
// at the requested depth, the right answers on hand-made cases, and a
// teacher-forced exact match that is greedy generation's.
#include <catch2/catch.hpp>
#include <cmath>
#include <set>

#include "tests/trainers/diagnostics/causal_test_model.h"
#include "trainers/diagnostics/passkey.h"
#include "trainers/diagnostics/text_generation.h"

using namespace rotor;

namespace {

std::unique_ptr<Tokenizer> byte_tokenizer() {
  TokenizerConfig config;
  config.kind = TokenizerKind::byte;
  return train_tokenizer(config, {});
}

const std::string kKeySentence = "The pass key is 12345. Remember it. 12345 is the pass key. ";
const std::string kQuestion = "What is the pass key? The pass key is ";

}  // namespace

TEST_CASE("passkey: prompts have the requested length, the key at the requested depth", "[diagnostics][passkey]") {
  const auto tokenizer = byte_tokenizer();
  const PasskeyPromptBuilder builder(*tokenizer);
  const int64_t shortest = builder.min_tokens(12345);
  CHECK(shortest == int64_t(kKeySentence.size() + kQuestion.size()));
  for (const int64_t length : {shortest, shortest + 1, shortest + 37, int64_t(256), int64_t(1000)})
    for (const double depth : {0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0}) {
      INFO("length " << length << " depth " << depth);
      const PasskeyPrompt p = builder.build(length, depth, 12345);
      CHECK(int64_t(p.tokens.size()) == length);
      CHECK(p.filler_tokens == length - shortest);
      CHECK(std::abs(double(p.key_start) - depth * double(p.filler_tokens)) <= double(builder.longest_sentence()));
      const std::string text = tokenizer->decode(p.tokens);
      CHECK(text.substr(size_t(p.key_start), kKeySentence.size()) == kKeySentence);
      CHECK(text.substr(text.size() - kQuestion.size()) == kQuestion);
    }
}

TEST_CASE("passkey: hand-made prompts and their answers", "[diagnostics][passkey]") {
  const auto tokenizer = byte_tokenizer();
  const PasskeyPromptBuilder builder(*tokenizer);
  const int64_t shortest = builder.min_tokens(12345);
  // Two whole sentences of filler: the key before, between or after them.
  const std::string a = "Here we go. ", b = "There and back again. ";
  const int64_t length = shortest + int64_t(a.size() + b.size());
  CHECK(tokenizer->decode(builder.build(length, 0.0, 12345).tokens) == kKeySentence + a + b + kQuestion);
  CHECK(tokenizer->decode(builder.build(length, 0.4, 12345).tokens) == a + kKeySentence + b + kQuestion);
  CHECK(tokenizer->decode(builder.build(length, 1.0, 12345).tokens) == a + b + kKeySentence + kQuestion);
  // Three tokens more: the filler is cut at its start, so it still ends on a whole sentence.
  CHECK(tokenizer->decode(builder.build(length + 3, 1.0, 12345).tokens) == "w. " + a + b + kKeySentence + kQuestion);
  CHECK(tokenizer->decode(builder.build(shortest, 0.5, 12345).tokens) == kKeySentence + kQuestion);
  const PasskeyPrompt p = builder.build(length, 0.4, 12345);
  CHECK(tokenizer->decode(p.answer) == "12345");
  CHECK(p.depth() == Approx(double(a.size()) / double(a.size() + b.size())));
}

TEST_CASE("passkey: keys are five digits, fixed by the seed, and vary over trials", "[diagnostics][passkey]") {
  std::set<uint64_t> keys;
  for (int64_t t = 0; t < 50; ++t) {
    const uint64_t key = passkey_key(7, t);
    CHECK(key >= 10000);
    CHECK(key <= 99999);
    CHECK(key == passkey_key(7, t));
    keys.insert(key);
  }
  CHECK(keys.size() > 45);
  CHECK(passkey_key(8, 0) != passkey_key(7, 0));
}

namespace {

std::unique_ptr<LanguageModel> passkey_model(const std::string& encoding) { return test::causal_model(encoding, 3); }

std::vector<int32_t> greedy(const LanguageModel& model, const PasskeyPrompt& p) {
  const int64_t window = int64_t(p.tokens.size() + p.answer.size());  // never slides
  return generate(model, p.tokens, {int64_t(p.answer.size()), 0.0, 0, 0, window});
}

}  // namespace

TEST_CASE("passkey: the teacher-forced exact match is greedy generation's", "[diagnostics][passkey]") {
  const auto tokenizer = byte_tokenizer();
  const PasskeyPromptBuilder builder(*tokenizer);
  for (const std::string encoding : {"rope", "alibi"}) {
    INFO(encoding);
    const auto owned = passkey_model(encoding);
    const LanguageModel& model = *owned;
    for (int64_t t = 0; t < 3; ++t) {
      PasskeyPrompt p = builder.build(140, 0.5 * double(t), passkey_key(1, t));
      const std::vector<int32_t> generated = greedy(model, p);
      PasskeyScore score = score_passkey(model, p);
      CHECK(score.exact == (generated == p.answer));
      CHECK(score.predicted.front() == generated.front());
      // The model's own greedy continuation as the answer: an exact match, token by token.
      p.answer = generated;
      score = score_passkey(model, p);
      CHECK(score.exact);
      CHECK(score.predicted == generated);
      CHECK(score.correct == int64_t(generated.size()));
      // One wrong token (the last, so the earlier ones stay greedy's): no match, and one token short.
      p.answer.back() = (p.answer.back() + 1) % 260;
      score = score_passkey(model, p);
      CHECK_FALSE(score.exact);
      CHECK(score.correct == int64_t(generated.size()) - 1);
    }
  }
}

TEST_CASE("passkey: a cell reads windows of exactly the requested length", "[diagnostics][passkey]") {
  const auto tokenizer = byte_tokenizer();
  const PasskeyPromptBuilder builder(*tokenizer);
  const auto owned = passkey_model("rope");
  const int64_t shortest = passkey_min_window(builder, passkey_key(2, 0));
  const PasskeyCell cell = passkey_cell(*owned, builder, shortest + 30, 0.5, 4, 2);
  CHECK(cell.trials == 4);
  CHECK(cell.exact <= 4);
  CHECK(cell.mean_depth == Approx(0.5).margin(double(builder.longest_sentence()) / 30));
  CHECK_THROWS_WITH(passkey_cell(*owned, builder, shortest - 1, 0.5, 4, 2),
                    Catch::Contains("--lengths " + std::to_string(shortest - 1) +
                                    ": a passkey trial needs a window "
                                    "of at least " +
                                    std::to_string(shortest) + " tokens"));
}

TEST_CASE("passkey: a word tokenizer's prompts have the requested length, and keys it cannot spell are refused",
          "[diagnostics][passkey]") {
  TokenizerConfig config;
  config.kind = TokenizerKind::vocab;
  const std::string knows = "The grass is green. The pass key is 12345. What is the pass key?";
  // Without split_punctuation "12345." is a word of its own and "12345" is [UNK]: a model answering [UNK]
  // would match every key.
  CHECK_THROWS_WITH(PasskeyPromptBuilder(*train_tokenizer(config, {knows})).answer(12345),
                    Catch::Contains("the checkpoint's vocab tokenizer has no tokens for the key 12345 (it gives "
                                    "[UNK])"));
  config.split_punctuation = true;
  const auto tokenizer = train_tokenizer(config, {knows});
  const PasskeyPromptBuilder builder(*tokenizer);
  CHECK(builder.answer(12345) == tokenizer->encode("12345"));
  const std::vector<int32_t> question = tokenizer->encode("What is the pass key? The pass key is");
  for (const int64_t length : {builder.min_tokens(12345), int64_t(40), int64_t(100)})
    for (const double depth : {0.0, 0.5, 1.0}) {
      const PasskeyPrompt p = builder.build(length, depth, 12345);
      CHECK(int64_t(p.tokens.size()) == length);
      CHECK(std::equal(question.begin(), question.end(), p.tokens.end() - std::ptrdiff_t(question.size())));
    }
  // Any other key is [UNK] even with split_punctuation.
  CHECK_THROWS_WITH(builder.answer(54321), Catch::Contains("the checkpoint's vocab tokenizer has no tokens for the "
                                                           "key 54321 (it gives [UNK])"));
}
