// Batches of a sequence task's split (per-token targets): each sample whole in
// one window, its targets under its tokens, kNoTarget on padding.
#include <map>

#include "datasets/batcher.h"
#include "datasets/sampler.h"
#include "helpers.h"

using namespace rotor;

namespace {

// 30 samples of 2..11 tokens; sample d's tokens are 100 + d and its targets
// are kNoTarget on the first half and 200 + d + position on the second, so a
// row shows where each value came from.
TokenizedSplit sequence_split(const std::string& name) {
  TokenizedSplit s;
  s.name = name;
  for (int32_t d = 0; d < 30; ++d) {
    const int32_t length = 2 + d % 10;
    std::vector<int32_t> targets(static_cast<size_t>(length), kNoTarget);
    for (int32_t t = length / 2; t < length; ++t) targets[t] = 200 + d + t;
    s.add_with_targets(std::vector<int32_t>(static_cast<size_t>(length), 100 + d), targets);
  }
  return s;
}

// Every row of `batch` against its sample in `split`: whole, targets in place, padding unscored.
void check_rows(const TokenizedSplit& split, const Batch& batch) {
  REQUIRE(batch.targets.size() == batch.tokens.size());
  for (int64_t row = 0; row < batch.batch_size; ++row) {
    const int64_t doc = batch.doc_ids[row];
    REQUIRE(batch.lengths[row] == split.doc_length(doc));
    for (int64_t t = 0; t < batch.seq_len; ++t) {
      const int32_t target = batch.targets[row * batch.seq_len + t];
      if (t < split.doc_length(doc)) {
        CHECK(batch.tokens[row * batch.seq_len + t] == split.doc_tokens(doc)[t]);
        CHECK(target == split.doc_targets(doc)[t]);
      } else {
        CHECK(target == kNoTarget);
      }
    }
  }
}

WindowConfig window_of(int64_t max_len) {
  WindowConfig w;
  w.max_len = max_len;
  return w;
}

BatchConfig batches_of(int64_t size) {
  BatchConfig b;
  b.batch_size = size;
  b.bucket_pool = 0;
  return b;
}

}  // namespace

TEST_CASE("make_batch carries each window's targets and kNoTarget on padding", "[datasets][sequence]") {
  const TokenizedSplit split = sequence_split("train");
  const std::vector<Window> windows = eval_windows(split, window_of(11));
  const Batch b = make_batch(split, windows, {3, 0, 9});  // lengths 5, 2, 11
  CHECK(b.seq_len == 11);
  check_rows(split, b);
  CHECK(b.targets[1 * 11 + 1] == 200 + 0 + 1);  // sample 0's last position
  CHECK(b.targets[1 * 11 + 2] == kNoTarget);    // its padding
}

TEST_CASE("a split without targets gives batches without targets", "[datasets][sequence]") {
  TokenizedSplit s;
  s.add({5, 6, 7}, 1);
  const Batch b = make_batch(s, eval_windows(s, window_of(8)), {0});
  CHECK(b.targets.empty());
}

TEST_CASE("training and evaluation serve every sample whole, once an epoch", "[datasets][sequence]") {
  for (const SamplerMode mode : {SamplerMode::train, SamplerMode::eval}) {
    const TokenizedSplit split = sequence_split(mode == SamplerMode::train ? "train" : "test");
    WindowConfig w = window_of(11);
    w.random_train_windows = true;  // a sequence task's samples are never cut, random windows or not
    Sampler sampler(split, w, batches_of(4), 7, mode);
    std::map<int64_t, int> served;
    Batch batch;
    while (sampler.next(batch)) {
      check_rows(split, batch);
      for (const int64_t doc : batch.doc_ids) ++served[doc];
    }
    CHECK(served.size() == 30);
    for (const auto& [doc, count] : served) CHECK(count == 1);
  }
}

TEST_CASE("a sample longer than the window is refused, naming the length key", "[datasets][sequence]") {
  const TokenizedSplit train = sequence_split("train");
  const std::string in_training = test::data_error_of([&] { train_windows(train, window_of(10), 0, 0); });
  CHECK_THAT(in_training, Catch::Matchers::StartsWith("data.max_len: sample 9 of split 'train' has 11 tokens"));
  CHECK_THAT(in_training, Catch::Matchers::Contains("never cut"));
  const TokenizedSplit test_split = sequence_split("test_40");
  const std::string in_evaluation = test::data_error_of([&] { eval_windows(test_split, window_of(10)); });
  CHECK_THAT(in_evaluation, Catch::Matchers::StartsWith("data.eval_max_len"));
  CHECK_THAT(in_evaluation, Catch::Matchers::Contains("split 'test_40'"));
  CHECK_NOTHROW(eval_windows(test_split, window_of(11)));
}

TEST_CASE("shuffled tokens are refused for a split with targets", "[datasets][sequence]") {
  WindowConfig w = window_of(16);
  w.shuffle_tokens = true;
  const std::string message =
      test::data_error_of([&] { Sampler(sequence_split("train"), w, batches_of(4), 0, SamplerMode::train); });
  CHECK_THAT(message, Catch::Matchers::StartsWith("data.shuffle_tokens"));
}
