// A batch of LM windows as the model sees it: inputs are a window's tokens but
// the last, each slot's target is the next token, and the context-only targets
// and the padding are -100; the scored targets' log-likelihood is summed in double.
#include <catch2/catch.hpp>
#include <cmath>

#include "trainers/training/language_model_batch.h"

using namespace rotor;

TEST_CASE("a batch of LM windows becomes inputs and next-token targets, and context-only targets are skipped") {
  Batch w;
  w.batch_size = 2;
  w.seq_len = 5;
  w.tokens = {10, 11, 12, 13, 14,  //
              20, 21, 22, 0,  0};
  w.lengths = {5, 3};
  w.labels = {2, 0};  // row 0: its first two targets are context only (a sliding window)
  const LanguageModelBatch b = language_model_batch(w);
  CHECK(b.batch == 2);
  CHECK(b.seq_len == 4);
  CHECK(b.tokens == std::vector<int32_t>{10, 11, 12, 13, 20, 21, 0, 0});
  CHECK(b.lengths == std::vector<int32_t>{4, 2});
  const int32_t x = kUnscoredTarget;
  CHECK(b.targets == std::vector<int32_t>{x, x, 13, 14, 21, 22, x, x});
  CHECK(b.scored == 4);
}

TEST_CASE("target scores are the summed negative log-likelihood and the argmax hits of scored rows") {
  // Two rows of three logits; row 0's target is 2, row 1 is not scored.
  Tensor logits = Tensor::from_doubles({1, 2, 3}, DType::F64, {0.0, 1.0, 2.0, 5.0, 0.0, 0.0});
  const TargetScores s = score_targets(logits, {2, kUnscoredTarget});
  const double z = std::exp(0.0) + std::exp(1.0) + std::exp(2.0);
  CHECK(s.nats == Approx(std::log(z) - 2.0).epsilon(1e-14));
  CHECK(s.count == 1);
  CHECK(s.correct == 1);
  const TargetScores f = score_targets(logits.to(DType::F32), {0, 0});
  CHECK(f.count == 2);
  CHECK(f.correct == 1);                                       // row 1's largest logit is class 0
  CHECK(correct_targets(logits.to(DType::F32), {0, 0}) == 1);  // a training step's count, without the likelihood
  CHECK(correct_targets(logits, {2, kUnscoredTarget}) == 1);
}

TEST_CASE("target scores per batch row sum to the batch's") {
  // Two windows of two positions; window 1's first target is context only.
  Tensor logits = Tensor::from_doubles({2, 2, 3}, DType::F64, {0, 1, 2, 5, 0, 0, 1, 1, 1, 0, 3, 0});
  const TargetScores s = score_targets(logits, {2, 0, kUnscoredTarget, 1});
  REQUIRE(s.row_nats.size() == 2);
  CHECK(s.row_count == std::vector<int64_t>{2, 1});
  CHECK(s.row_nats[1] == Approx(std::log(std::exp(0.0) + std::exp(3.0) + std::exp(0.0)) - 3.0).epsilon(1e-14));
  CHECK(s.row_nats[0] + s.row_nats[1] == Approx(s.nats).epsilon(1e-14));
}
