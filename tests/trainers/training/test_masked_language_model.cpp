// train.objective mlm: a batch of blocks masked by stream position, and
// rotor eval's per-length scores of an MLM checkpoint (its bit-exact resume:
// test_resume.cpp).
#include <catch2/catch.hpp>
#include <cmath>

#include "datasets/dataset.h"
#include "datasets/lm_windows.h"
#include "tests/trainers/training/run_fixture.h"
#include "trainers/config/config.h"
#include "trainers/config/config_loader.h"
#include "trainers/config/objective_table.h"
#include "trainers/training/language_model_batch.h"
#include "trainers/training/objective.h"
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

// True when the fixed evaluation masks select no token of the config's val split (as the evaluation cuts it).
bool val_selects_nothing(const Config& config) {
  const Dataset data = load_dataset(config.data);
  const MaskingRule rule{config.train.mask_probability, static_cast<int32_t>(data.tokenizer->vocab_size())};
  const StreamWindows cut = lm_windows(data.split("val"), data.tokenizer->sep_id(), config.data.max_len,
                                       config.data.max_len, config.data.lm_blocks);
  for (int64_t d = 0; d < cut.windows.num_docs(); ++d)
    for (int64_t t = 0; t + 1 < cut.windows.doc_length(d); ++t) {
      const auto at = static_cast<uint64_t>(cut.starts[static_cast<size_t>(d)] + t);
      if (mask_decision(evaluation_mask_key(config.data.data_seed), at, cut.windows.doc_tokens(d)[t], rule).selected)
        return false;
    }
  return true;
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
    CHECK(s.has("perplexity"));
    CHECK(std::isfinite(s.get("loss")));
    CHECK(s.get("loss") > 0.0);
    CHECK(s.get("loss") < std::log(static_cast<double>(r.tokenizer->vocab_size())) + 1.0);
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

TEST_CASE("a masked-LM split with no token selected has absent metrics, never loss 0 or the best", "[eval][mlm]") {
  const auto dir = test::fresh_dir("eval-mlm-nothing");
  TrainRequest request{test::tiny_run_config(dir), {"train.objective=mlm"}, "", (dir / "run").string()};
  request.stop_after = 4;
  REQUIRE(train(request) == 0);
  RestoredModel r = restore_model((dir / "run" / "checkpoints" / "step-00000004.h5").string());
  LoadOptions opt;
  opt.tokenizer = r.header.tokenizer;
  const Dataset data = load_dataset(r.header.config.data, opt);
  r.header.config.train.mask_probability = 1e-12;  // no token of the split is selected
  DataConfig at_length = r.header.config.data;
  at_length.eval_max_len = 32;
  const SplitScores s = evaluate_at_length(r, data.split("val"), at_length, 32, "ckpt");
  CHECK(s.has("perplexity"));
  CHECK(s.absent());
  CHECK(std::isnan(s.get("loss")));  // was 0: perplexity 1, a "perfect" model
  CHECK(std::isnan(s.get("accuracy")));
  CHECK(describe_scores(objective_spec(ObjectiveKind::mlm), s) ==
        "nothing scored: loss, perplexity, bits/token, token accuracy absent");
  // Written as null and read back absent; such an evaluation never becomes the best.
  const std::string line = JsonFields(EvalEvent{"val", 4, 0, s, false, 0.0}).dump();
  CHECK_THAT(line, Catch::Contains("\"loss\":null") && Catch::Contains("\"perplexity\":null"));
  CHECK(JsonFields::parse(line).get<EvalEvent>().scores.absent());
  const MetricDeclaration& loss = *objective_spec(ObjectiveKind::mlm).find_metric("loss");
  CHECK_FALSE(loss.improves(s.get("loss"), std::nan("")));
  CHECK_FALSE(loss.improves(s.get("loss"), 5.0));
  CHECK(loss.improves(5.0, std::nan("")));  // the first scored evaluation
}

TEST_CASE("a masking probability that leaves training batches selecting nothing is refused", "[mlm]") {
  const auto dir = test::fresh_dir("mlm-tiny-probability");
  // 16 x 32 tokens a batch: at 0.001, 60% of batches select nothing.
  TrainRequest request{
      test::tiny_run_config(dir), {"train.objective=mlm", "train.mask_probability=0.001"}, "", (dir / "run").string()};
  CHECK_THROWS_WITH(train(request), Catch::Contains("train.mask_probability: 0.001 selects about 0.51 of the 512 "
                                                    "tokens of a training batch (data.batch_size 16 x data.max_len "
                                                    "32), so 60% of batches would select no token") &&
                                        Catch::Contains("at least 0.009 "));
  // At 0.05 (26 a batch) the chance is 4e-12: trained.
  request.overrides = {"train.objective=mlm", "train.mask_probability=0.05"};
  request.out_dir = (dir / "trained").string();
  request.stop_after = 2;
  CHECK(train(request) == 0);
}

TEST_CASE("training never takes a validation that scored nothing as its best", "[mlm]") {
  const auto dir = test::fresh_dir("mlm-val-nothing");
  const std::string config = test::tiny_run_config(dir);
  // One short validation document at 2%: find a data seed whose evaluation masks select none of it.
  std::vector<std::string> overrides{"train.objective=mlm", "train.mask_probability=0.02", "data.eval_size=1",
                                     "train.max_steps=8", "train.eval_every=4"};
  bool found = false;
  for (int seed = 1; seed <= 40 && !found; ++seed) {
    overrides.push_back("data.data_seed=" + std::to_string(seed));
    found = val_selects_nothing(load_config(config, overrides));
    if (!found) overrides.pop_back();
  }
  REQUIRE(found);
  TrainRequest request{config, overrides, "", (dir / "run").string()};
  REQUIRE(train(request) == 0);
  int evals = 0;
  for (const std::string& line : test::deterministic_metrics(dir / "run")) {
    const nlohmann::json event = nlohmann::json::parse(line);
    if (event["event"] != "eval") continue;
    ++evals;
    CHECK(event["metrics"]["loss"].is_null());  // was 0: perplexity 1
    CHECK(event["metrics"]["perplexity"].is_null());
    CHECK(event["best"] == false);  // was true at step 4
  }
  CHECK(evals == 2);
  const nlohmann::json summary = nlohmann::json::parse(test::read_text(dir / "run" / "summary.json"));
  CHECK(summary["best_step"] == -1);
  CHECK(summary["best_value"].is_null());
}
