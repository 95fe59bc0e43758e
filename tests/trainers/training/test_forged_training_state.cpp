// Checkpoints that pass every checksum but hold impossible values (forged, or
// written by a broken tool): negative step counters and NaN weights must be
// refused naming the file, not fail inside the trainer or evaluate quietly.
#include <catch2/catch.hpp>

#include <limits>

#include "storage/checkpoint.h"
#include "tests/trainers/training/run_fixture.h"
#include "trainers/training/evaluator.h"
#include "trainers/training/trainer.h"
#include "trainers/training/training_checkpoint.h"

using namespace rotor;

namespace {

// The first checkpoint of a tiny run, read back.
CheckpointContents tiny_checkpoint(const std::filesystem::path& dir) {
  TrainRequest request{test::tiny_run_config(dir), {}, "", (dir / "run").string()};
  request.stop_after = 4;
  REQUIRE(train(request) == 0);
  return read_checkpoint((dir / "run" / "checkpoints" / "step-00000004.h5").string());
}

std::string header_error(const CheckpointContents& c, const std::string& path) {
  write_checkpoint(path, c);  // every checksum recomputed: a forgery
  try {
    read_header(read_checkpoint(path), path);
  } catch (const CheckpointError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("forged training state: negative counters are refused naming the file and the field", "[forged]") {
  const auto dir = test::fresh_dir("forged-state");
  const CheckpointContents good = tiny_checkpoint(dir);
  const std::string path = (dir / "forged.h5").string();
  CHECK(header_error(good, path).empty());
  CheckpointContents c = good;
  c.integers["state/step"] = -5;  // reached LrSchedule::lr_at as "step must be >= 0"
  CHECK(header_error(c, path) == path + ": state/step is -5, expected >= 0 (forged or damaged checkpoint)");
  c = good;
  c.integers["state/best_step"] = -2;  // -1: no evaluation yet
  CHECK(header_error(c, path) == path + ": state/best_step is -2, expected >= -1 (forged or damaged checkpoint)");
  c = good;
  c.reals["state/elapsed_s"] = -1.5;
  CHECK(header_error(c, path) == path + ": state/elapsed_s is -1.5, expected >= 0 (forged or damaged checkpoint)");
}

TEST_CASE("forged training state: counters beyond any run and a tokenizer that does not load name the file and field",
          "[forged]") {
  const auto dir = test::fresh_dir("forged-bounds");
  const CheckpointContents good = tiny_checkpoint(dir);
  const std::string path = (dir / "forged.h5").string();
  CheckpointContents c = good;
  c.integers["state/step"] = int64_t{1} << 62;  // 2^63 - 1 reached LrSchedule::lr_at as a negative step
  CHECK(header_error(c, path) == path +
                                     ": state/step is 4611686018427387904, expected at most 2^53 = 9007199254740992 "
                                     "(forged or damaged checkpoint)");
  c = good;
  c.integers["state/best_step"] = 6;  // resume and eval looked for step-00000006.h5: "cannot open"
  CHECK(header_error(c, path) == path + ": state/best_step is 6, after state/step 4 (forged or damaged checkpoint)");
  c = good;
  const std::string tokenizer = "rotor-tokenizer vocab\nnot a vocabulary";
  c.blobs["tokenizer"] = std::vector<uint8_t>(tokenizer.begin(), tokenizer.end());
  const std::string error = header_error(c, path);
  INFO(error);
  CHECK(error.rfind(path + ": its 'tokenizer' entry cannot be loaded: saved vocab tokenizer: ", 0) == 0);
  CHECK(error.find("(forged or damaged checkpoint)") != std::string::npos);
}

TEST_CASE("forged labels or tokenizer are refused against the stored tensors before a model is built", "[forged]") {
  const auto dir = test::fresh_dir("forged-dimensions");
  const CheckpointContents good = tiny_checkpoint(dir);
  const std::string path = (dir / "forged.h5").string();
  // A million labels: a classifier head of a million rows would be built before the shape check.
  CheckpointContents c = good;
  c.texts["labels"].clear();
  for (int k = 0; k < 1000000; ++k) c.texts["labels"] += "x" + std::to_string(k) + "\n";
  CHECK(header_error(c, path) == path +
                                     ": its labels number 1000000 but the stored parameter head.bias has 10 rows "
                                     "(forged or damaged; no model was built)");
  // A tokenizer larger than the stored embedding table (here: the table cut to 3 rows).
  c = good;
  const Tensor& table = good.tensors.at("model/embed.tokens.weight");
  c.tensors["model/embed.tokens.weight"] = Tensor::zeros({3, table.size(1)}, table.dtype());
  CHECK_THAT(header_error(c, path),
             Catch::Contains(path + ": its tokenizer's tokens number " + std::to_string(table.size(0)) +
                             " but the stored parameter embed.tokens.weight has 3 rows"));
}

TEST_CASE("NaN or infinite logits are refused naming the checkpoint", "[forged][eval]") {
  DocumentScores s;
  s.logits = {{0.5, -1.0}, {1.0, 2.0}, {0.0, 0.0}};
  s.labels = {0, 1, -1};
  CHECK_NOTHROW(require_finite_scores(s, "a.h5"));
  s.logits[2][0] = std::numeric_limits<double>::quiet_NaN();  // a document never served does not count
  CHECK_NOTHROW(require_finite_scores(s, "a.h5"));
  s.logits[0][1] = std::numeric_limits<double>::quiet_NaN();
  s.logits[1][0] = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH(require_finite_scores(s, "a.h5"),
                    "a.h5: the model's outputs are NaN or infinite for 2 of 2 documents: its weights hold NaN or "
                    "infinite values (a damaged or forged checkpoint); no metrics were written");
}
