// Length-bucketed batches, dynamic padding, and the resumable sampler.
#include "datasets/batcher.h"
#include "datasets/sampler.h"
#include "helpers.h"

#include <algorithm>
#include <numeric>

using namespace rotor;

namespace {

// 200 documents of varied length; document d is filled with the value d + 4
// and labelled d % 3, so a batch row shows where it came from.
TokenizedSplit varied_split() {
  TokenizedSplit s;
  s.name = "train";
  for (int32_t d = 0; d < 200; ++d) {
    s.add(std::vector<int32_t>(static_cast<size_t>(1 + (d * 37) % 97), d + 4), d % 3);
  }
  return s;
}

std::vector<int64_t> lengths_of(const TokenizedSplit& s) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < s.num_docs(); ++d) out.push_back(s.doc_length(d));
  return out;
}

bool same_batch(const Batch& a, const Batch& b) {
  return a.batch_size == b.batch_size && a.seq_len == b.seq_len && a.tokens == b.tokens && a.lengths == b.lengths &&
         a.labels == b.labels && a.doc_ids == b.doc_ids && a.window_ids == b.window_ids;
}

std::vector<Batch> drain(Sampler& s, int64_t count) {
  std::vector<Batch> out;
  Batch b;
  while (static_cast<int64_t>(out.size()) < count) {
    if (s.next(b)) out.push_back(b);
  }
  return out;
}

int64_t padding(const std::vector<std::vector<int64_t>>& batches, const std::vector<int64_t>& lengths) {
  int64_t pad = 0;
  for (const auto& b : batches) {
    int64_t longest = 0;
    for (int64_t i : b) longest = std::max(longest, lengths[i]);
    for (int64_t i : b) pad += longest - lengths[i];
  }
  return pad;
}

}  // namespace

TEST_CASE("shuffled_indices is a permutation and a pure function of the key", "[datasets][sampler]") {
  const RandomKey key{5, stream_id("shuffle"), 2};
  const auto a = shuffled_indices(1000, key);
  CHECK(a == shuffled_indices(1000, key));
  auto sorted = a;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> expected(1000);
  std::iota(expected.begin(), expected.end(), 0);
  CHECK(sorted == expected);
  CHECK(a != expected);
  CHECK(a != shuffled_indices(1000, RandomKey{5, stream_id("shuffle"), 3}));
}

TEST_CASE("training batches cover every window once, bucketed by length", "[datasets][sampler]") {
  const auto lengths = lengths_of(varied_split());
  BatchConfig c;
  c.batch_size = 16;
  c.bucket_pool = 64;
  const auto batches = plan_train_batches(lengths, c, 1, 0);
  std::vector<int64_t> seen;
  for (const auto& b : batches) {
    CHECK(b.size() <= 16);
    seen.insert(seen.end(), b.begin(), b.end());
  }
  std::sort(seen.begin(), seen.end());
  std::vector<int64_t> all(200);
  std::iota(all.begin(), all.end(), 0);
  CHECK(seen == all);

  BatchConfig unbucketed = c;
  unbucketed.bucket_pool = 0;
  CHECK(padding(batches, lengths) * 3 < padding(plan_train_batches(lengths, unbucketed, 1, 0), lengths));
  CHECK(batches == plan_train_batches(lengths, c, 1, 0));
  CHECK(batches != plan_train_batches(lengths, c, 1, 1));
  CHECK(batches != plan_train_batches(lengths, c, 2, 0));
}

TEST_CASE("a token budget bounds the padded size of each batch", "[datasets][sampler]") {
  const auto lengths = lengths_of(varied_split());
  BatchConfig c;
  c.batch_tokens = 300;
  for (const auto& batches : {plan_train_batches(lengths, c, 3, 0), plan_eval_batches(lengths, c)}) {
    int64_t windows = 0;
    for (const auto& b : batches) {
      int64_t longest = 0;
      for (int64_t i : b) longest = std::max(longest, lengths[i]);
      CHECK(static_cast<int64_t>(b.size()) * longest <= 300);
      windows += static_cast<int64_t>(b.size());
    }
    CHECK(windows == 200);
  }
}

TEST_CASE("evaluation batches are sorted by length and fixed", "[datasets][sampler]") {
  const auto lengths = lengths_of(varied_split());
  BatchConfig c;
  c.batch_size = 50;
  const auto batches = plan_eval_batches(lengths, c);
  REQUIRE(batches.size() == 4);
  CHECK(lengths[batches[0][0]] == 97);
  CHECK(lengths[batches[3].back()] == 1);
}

TEST_CASE("make_batch pads rows with PAD and keeps labels and ids", "[datasets][sampler]") {
  const TokenizedSplit s = varied_split();
  WindowConfig w;
  w.max_len = 40;
  const auto windows = eval_windows(s, w);
  const Batch b = make_batch(s, windows, {1, 2});  // lengths 38, 75 -> 40
  CHECK(b.batch_size == 2);
  CHECK(b.seq_len == 40);
  CHECK(b.lengths == std::vector<int32_t>{38, 40});
  CHECK(b.labels == std::vector<int32_t>{1, 2});
  CHECK(b.doc_ids == std::vector<int64_t>{1, 2});
  CHECK(b.window_ids == std::vector<int32_t>{0, 0});
  CHECK(b.tokens[0] == 5);
  CHECK(b.tokens[37] == 5);
  CHECK(b.tokens[38] == 0);
  CHECK(b.tokens[39] == 0);
  CHECK(b.tokens[40] == 6);
  CHECK(b.tokens[79] == 6);
}

TEST_CASE("a restored sampler serves exactly the batches of an uninterrupted run", "[datasets][sampler]") {
  const TokenizedSplit s = varied_split();
  WindowConfig w;
  w.max_len = 32;  // most documents are longer: random windows matter
  BatchConfig c;
  c.batch_size = 12;
  c.bucket_pool = 48;
  Sampler reference(s, w, c, 11, SamplerMode::train);
  const int64_t per_epoch = reference.batches_in_epoch();
  const auto uninterrupted = drain(reference, 3 * per_epoch);

  for (const int64_t stop : {int64_t{0}, int64_t{5}, per_epoch, per_epoch + 7, 2 * per_epoch - 1}) {
    INFO("interrupted after " << stop << " batches");
    Sampler first(s, w, c, 11, SamplerMode::train);
    const auto before = drain(first, stop);
    const SamplerState saved = first.state();
    Sampler resumed(s, w, c, 11, SamplerMode::train);
    resumed.restore(saved);
    const auto after = drain(resumed, 3 * per_epoch - stop);
    for (int64_t i = 0; i < 3 * per_epoch; ++i) {
      const Batch& got = i < stop ? before[i] : after[i - stop];
      CHECK(same_batch(got, uninterrupted[i]));
    }
  }
}

TEST_CASE("sampler order is a pure function of (seed, epoch)", "[datasets][sampler]") {
  const TokenizedSplit s = varied_split();
  WindowConfig w;
  w.max_len = 32;
  BatchConfig c;
  c.batch_size = 10;
  Sampler a(s, w, c, 3, SamplerMode::train), b(s, w, c, 3, SamplerMode::train);
  Sampler other_seed(s, w, c, 4, SamplerMode::train);
  const auto epochs_a = drain(a, 2 * a.batches_in_epoch());
  const auto epochs_b = drain(b, 2 * b.batches_in_epoch());
  const auto seed4 = drain(other_seed, other_seed.batches_in_epoch());
  for (size_t i = 0; i < epochs_a.size(); ++i) CHECK(same_batch(epochs_a[i], epochs_b[i]));
  const size_t n = seed4.size();
  CHECK_FALSE(same_batch(epochs_a[0], epochs_a[n]));  // epoch 1 differs from epoch 0
  CHECK_FALSE(same_batch(epochs_a[0], seed4[0]));

  // Jumping straight to epoch 1 gives epoch 1 without replaying epoch 0.
  Sampler jump(s, w, c, 3, SamplerMode::train);
  jump.restore(SamplerState{1, 0});
  const auto epoch1 = drain(jump, static_cast<int64_t>(n));
  for (size_t i = 0; i < n; ++i) CHECK(same_batch(epoch1[i], epochs_a[n + i]));
}

TEST_CASE("an evaluation sampler ends each pass and repeats it", "[datasets][sampler]") {
  const TokenizedSplit s = varied_split();
  WindowConfig w;
  w.max_len = 32;
  w.eval_windows = EvalWindows::all;
  BatchConfig c;
  c.batch_size = 64;
  Sampler eval(s, w, c, 0, SamplerMode::eval);
  std::vector<Batch> first, second;
  Batch b;
  while (eval.next(b)) first.push_back(b);
  while (eval.next(b)) second.push_back(b);
  REQUIRE(first.size() == second.size());
  int64_t windows = 0;
  for (size_t i = 0; i < first.size(); ++i) {
    CHECK(same_batch(first[i], second[i]));
    windows += first[i].batch_size;
  }
  CHECK(windows == static_cast<int64_t>(eval_windows(s, w).size()));
  CHECK(eval.state().epoch == 2);
}

TEST_CASE("restoring a state beyond the epoch is an error", "[datasets][sampler]") {
  const TokenizedSplit s = varied_split();
  Sampler sampler(s, WindowConfig{}, BatchConfig{}, 0, SamplerMode::train);
  CHECK_THAT(test::data_error_of([&] {
               sampler.restore(SamplerState{0, 1000});
             }),
             Catch::Matchers::Contains("cursor 1000 is beyond the 7 batches of epoch 0 of split 'train'"));
}

namespace {

// 40 documents whose tokens count up from 100 * (d + 1): a shuffled row is
// told from an ordered one, and its multiset of tokens from another document's.
TokenizedSplit counting_docs() {
  TokenizedSplit s;
  s.name = "train";
  for (int32_t d = 0; d < 40; ++d) {
    std::vector<int32_t> doc(static_cast<size_t>(5 + d % 23));
    std::iota(doc.begin(), doc.end(), 100 * (d + 1));
    s.add(doc, d % 2);
  }
  return s;
}

// Row `row` of a batch: its real tokens (padding dropped).
std::vector<int32_t> row_tokens(const Batch& b, int64_t row) {
  const int32_t* first = b.tokens.data() + row * b.seq_len;
  return {first, first + b.lengths[static_cast<size_t>(row)]};
}

}  // namespace

TEST_CASE("shuffle_tokens permutes each window, keeps padding, per document and epoch", "[datasets][sampler]") {
  const TokenizedSplit s = counting_docs();
  WindowConfig plain;
  plain.max_len = 16;
  plain.random_train_windows = false;
  WindowConfig shuffled = plain;
  shuffled.shuffle_tokens = true;
  BatchConfig c;
  c.batch_size = 8;
  for (const SamplerMode mode : {SamplerMode::train, SamplerMode::eval}) {
    Sampler ordered(s, plain, c, 5, mode), mixed(s, shuffled, c, 5, mode), again(s, shuffled, c, 5, mode);
    const int64_t n = ordered.batches_in_epoch();
    const auto o = drain(ordered, 2 * n), m = drain(mixed, 2 * n), a = drain(again, 2 * n);
    int64_t moved = 0, rows = 0, differs_by_epoch = 0;
    for (int64_t i = 0; i < 2 * n; ++i) {
      CHECK(same_batch(m[i], a[i]));  // a pure function of seed, epoch, document
      REQUIRE(o[i].doc_ids == m[i].doc_ids);
      for (int64_t r = 0; r < o[i].batch_size; ++r) {
        std::vector<int32_t> want = row_tokens(o[i], r), got = row_tokens(m[i], r);
        moved += want != got;
        ++rows;
        std::sort(want.begin(), want.end());
        std::sort(got.begin(), got.end());
        CHECK(want == got);  // the same tokens, in another order
        for (int64_t t = m[i].lengths[r]; t < m[i].seq_len; ++t) CHECK(m[i].tokens[r * m[i].seq_len + t] == 0);
      }
    }
    CHECK(moved > rows * 9 / 10);  // windows of >= 5 tokens: almost never the identity
    // The same document in epoch 0 and epoch 1: re-drawn in training, fixed in evaluation.
    for (int64_t i = 0; i < n; ++i)
      for (int64_t r = 0; r < m[i].batch_size; ++r)
        for (int64_t j = n; j < 2 * n; ++j)
          for (int64_t q = 0; q < m[j].batch_size; ++q)
            if (m[j].doc_ids[q] == m[i].doc_ids[r]) differs_by_epoch += row_tokens(m[i], r) != row_tokens(m[j], q);
    if (mode == SamplerMode::train)
      CHECK(differs_by_epoch > 30);
    else
      CHECK(differs_by_epoch == 0);
  }
}
