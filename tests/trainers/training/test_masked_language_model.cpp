// train.objective mlm: a batch of blocks masked by stream position, and
// rotor eval's per-length scores of an MLM checkpoint (its bit-exact resume:
// test_resume.cpp).
#include <catch2/catch.hpp>
#include <cmath>

#include "datasets/dataset.h"
#include "datasets/lm_windows.h"
#include "tests/trainers/training/run_fixture.h"
#include "trainers/config/config.h"
#include "trainers/training/language_model_batch.h"
#include "trainers/training/restored_evaluation.h"
#include "trainers/training/restored_model.h"
#include "trainers/training/trainer.h"

using namespace rotor;

namespace {

// The blocks of `stream` cut at `length`, as one batch (block i at row i).
Batch blocks_batch(const std::vector<int32_t>& stream, int64_t length) {
  const TokenizedSplit blocks = lm_blocks("s", stream, length, length);
  Batch b;
  b.batch_size = blocks.num_docs();
  b.seq_len = length + 1;
  b.tokens.assign(static_cast<size_t>(b.batch_size * b.seq_len), 0);
  for (int64_t d = 0; d < b.batch_size; ++d) {
    std::copy(blocks.doc_tokens(d), blocks.doc_tokens(d) + blocks.doc_length(d), b.tokens.begin() + d * b.seq_len);
    b.lengths.push_back(static_cast<int32_t>(blocks.doc_length(d)));
    b.labels.push_back(blocks.labels[d]);
    b.doc_ids.push_back(d);
  }
  return b;
}

}  // namespace

TEST_CASE("an MLM batch masks every block's inputs by stream position and scores the selected tokens only", "[mlm]") {
  std::vector<int32_t> stream;
  for (int32_t i = 0; i < 4000; ++i) stream.push_back(i % 97 == 96 ? Tokenizer::kSepId : 4 + i % 50);
  const MaskingRule rule{0.15, 60};
  std::vector<int32_t> seen_as(stream.size(), -1), target_of(stream.size(), -2);
  for (const int64_t length : {16, 50}) {  // two cuts of one stream: a token's mask does not depend on its block
    const Batch w = blocks_batch(stream, length);
    std::vector<int64_t> starts;  // block i starts at i * length
    for (int64_t i = 0; i < w.batch_size; ++i) starts.push_back(i * length);
    const StreamMasking masking{evaluation_mask_key(9), rule, &starts};
    const LanguageModelBatch plain = language_model_batch(w);
    const LanguageModelBatch b = masked_language_model_batch(w, masking);
    CHECK(b.lengths == plain.lengths);
    int64_t scored = 0;
    for (int64_t r = 0; r < b.batch; ++r)
      for (int32_t t = 0; t < b.lengths[r]; ++t) {
        const size_t slot = static_cast<size_t>(r * b.seq_len + t), at = static_cast<size_t>(r * length + t);
        REQUIRE(plain.tokens[slot] == stream[at]);
        const MaskDecision d = mask_decision(masking.key, at, stream[at], rule);
        CHECK(b.tokens[slot] == d.input);
        CHECK(b.targets[slot] == (d.selected ? stream[at] : kUnscoredTarget));
        scored += d.selected;
        if (length == 16) {
          seen_as[at] = b.tokens[slot];
          target_of[at] = b.targets[slot];
        } else {
          CHECK(seen_as[at] == b.tokens[slot]);
          CHECK(target_of[at] == b.targets[slot]);
        }
      }
    CHECK(b.scored == scored);
    CHECK(static_cast<double>(scored) / 4000.0 == Approx(0.15).margin(0.03));
  }
}

TEST_CASE("rotor eval --max-len on an MLM checkpoint scores the masked LM at each length", "[eval][mlm]") {
  const auto dir = test::fresh_dir("eval-mlm");
  TrainRequest request{test::tiny_run_config(dir), {"train.objective=mlm"}, "", (dir / "run").string()};
  request.stop_after = 8;
  REQUIRE(train(request) == 0);
  const RestoredModel r = restore_model((dir / "run" / "checkpoints" / "step-00000008.h5").string());
  CHECK(r.language_model().kind() == LanguageModelKind::masked);
  LoadOptions opt;
  opt.tokenizer = r.header.tokenizer;
  const Dataset data = load_dataset(r.header.config.data, opt);
  DataConfig at_length = r.header.config.data;
  for (const int64_t length : {16, 32, 64}) {
    at_length.eval_max_len = length;
    const SplitScores s = evaluate_at_length(r, data.split("val"), at_length, length / 2, "ckpt");  // sliding, too
    INFO(length);
    CHECK(s.language_model);
    CHECK(std::isfinite(s.loss));
    CHECK(s.loss > 0.0);
    CHECK(s.loss < std::log(static_cast<double>(r.tokenizer->vocab_size())) + 1.0);
  }
  // The evaluation masks are keyed by data.data_seed, not by data.seed (the training order, which a study's
  // seeds change): runs of one study score the same masked tokens, so they can be paired window by window.
  at_length.eval_max_len = 32;
  DataConfig other_order = at_length;
  other_order.seed = at_length.seed + 1;
  const auto tokens = [&](const DataConfig& d) {
    return evaluate_language_model_at_length(r, data.split("val"), d, 32, 0, "ckpt").window_tokens;
  };
  CHECK(tokens(at_length) == tokens(other_order));
  DataConfig other_masks = at_length;
  other_masks.data_seed = at_length.data_seed + 1;
  CHECK(tokens(at_length) != tokens(other_masks));
}
