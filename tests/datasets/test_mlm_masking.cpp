// BERT's masking (datasets/mlm_masking.h): its rates over 2 x 10^5 tokens,
// specials never selected nor drawn as replacements, and draws that are a pure
// function of (key, position).
#include <catch2/catch.hpp>

#include "datasets/data_error.h"
#include "datasets/mlm_masking.h"
#include "datasets/tokenizer.h"

using namespace rotor;

namespace {

constexpr int32_t kVocab = 1000;
constexpr int64_t kTokens = 200000;

int32_t regular_token(int64_t position) { return Tokenizer::kNumSpecial + static_cast<int32_t>(position % 991); }

}  // namespace

TEST_CASE("masking selects 15% of tokens and of those turns 80% into MASK, 10% into a random token and keeps 10%",
          "[mlm]") {
  const MaskingRule rule{0.15, kVocab};
  const RandomKey key = training_mask_key(7, 3);
  int64_t selected = 0, masked = 0, replaced = 0, kept = 0;
  for (int64_t p = 0; p < kTokens; ++p) {
    const int32_t token = regular_token(p);
    const MaskDecision d = mask_decision(key, static_cast<uint64_t>(p), token, rule);
    if (!d.selected) {
      REQUIRE(d.input == token);
      continue;
    }
    ++selected;
    if (d.input == Tokenizer::kMaskId)
      ++masked;
    else if (d.input == token)
      ++kept;  // includes the 1 in 996 random draws of the token itself
    else
      ++replaced;
  }
  // Binomial standard deviations: 0.0008 for the selection, <= 0.0023 for the branches; ~5 of them each.
  CHECK(static_cast<double>(selected) / kTokens == Approx(0.15).margin(0.004));
  const auto share = [&](int64_t n) { return static_cast<double>(n) / static_cast<double>(selected); };
  CHECK(share(masked) == Approx(0.8).margin(0.012));
  CHECK(share(replaced) == Approx(0.1).margin(0.009));
  CHECK(share(kept) == Approx(0.1).margin(0.009));
}

TEST_CASE("masking never selects PAD, CLS (MASK) or SEP but selects UNK, which stands for a word", "[mlm]") {
  const MaskingRule rule{0.9, kVocab};
  const RandomKey key = training_mask_key(1, 0);
  int64_t unk_selected = 0;
  for (uint64_t p = 0; p < 10000; ++p) {
    for (const int32_t special : {Tokenizer::kPadId, Tokenizer::kClsId, Tokenizer::kSepId}) {
      const MaskDecision d = mask_decision(key, p, special, rule);
      REQUIRE_FALSE(d.selected);
      REQUIRE(d.input == special);
    }
    unk_selected += mask_decision(key, p, Tokenizer::kUnkId, rule).selected;
  }
  CHECK(unk_selected > 8000);
  CHECK(Tokenizer::kMaskId == Tokenizer::kClsId);
}

TEST_CASE("random replacements are regular tokens spread over the vocabulary", "[mlm]") {
  const MaskingRule rule{0.5, 12};  // 8 regular tokens
  const RandomKey key = training_mask_key(3, 1);
  std::vector<int64_t> seen(12, 0);
  for (int64_t p = 0; p < kTokens; ++p) {
    const int32_t token = Tokenizer::kNumSpecial + static_cast<int32_t>(p % 8);
    const MaskDecision d = mask_decision(key, static_cast<uint64_t>(p), token, rule);
    if (!d.selected || d.input == Tokenizer::kMaskId) continue;
    REQUIRE(d.input >= Tokenizer::kNumSpecial);
    REQUIRE(d.input < 12);
    ++seen[static_cast<size_t>(d.input)];
  }
  for (int32_t t = Tokenizer::kNumSpecial; t < 12; ++t) CHECK(seen[static_cast<size_t>(t)] > 0);
}

TEST_CASE("masks are a pure function of the key and the position: same key same mask, another epoch another", "[mlm]") {
  const MaskingRule rule{0.15, kVocab};
  int64_t differ_epoch = 0, differ_eval = 0;
  for (int64_t p = 0; p < 20000; ++p) {
    const auto at = static_cast<uint64_t>(p);
    const int32_t token = regular_token(p);
    const MaskDecision a = mask_decision(training_mask_key(5, 2), at, token, rule);
    const MaskDecision b = mask_decision(training_mask_key(5, 2), at, token, rule);
    REQUIRE(a.selected == b.selected);
    REQUIRE(a.input == b.input);
    const MaskDecision next_epoch = mask_decision(training_mask_key(5, 3), at, token, rule);
    differ_epoch += a.selected != next_epoch.selected;
    differ_eval += a.selected != mask_decision(evaluation_mask_key(5), at, token, rule).selected;
  }
  // Independent draws disagree on 2 * 0.15 * 0.85 = 25.5% of the tokens.
  CHECK(differ_epoch > 4000);
  CHECK(differ_eval > 4000);
}

TEST_CASE("masking refuses a probability outside (0, 1) and a vocabulary without regular tokens", "[mlm]") {
  const RandomKey key = evaluation_mask_key(0);
  CHECK_THROWS_AS(mask_decision(key, 0, 5, {0.0, kVocab}), DataError);
  CHECK_THROWS_AS(mask_decision(key, 0, 5, {1.0, kVocab}), DataError);
  CHECK_THROWS_AS(mask_decision(key, 0, 5, {0.15, Tokenizer::kNumSpecial}), DataError);
}
