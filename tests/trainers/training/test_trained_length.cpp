// A learned position table's length is fixed by training: evaluating longer
// windows must say so (and suggest a length that fits), not suggest raising
// model.position.max_len, which then fails on the weights' shape.
#include <catch2/catch.hpp>

#include "models/position_encoding.h"
#include "tests/trainers/training/run_fixture.h"
#include "trainers/config/config.h"
#include "trainers/training/restored_model.h"
#include "trainers/training/trainer.h"

using namespace rotor;

TEST_CASE("trained length: windows beyond a learned table are refused with a length that fits", "[eval]") {
  ModelConfig m;
  m.position.type = "learned";
  m.position.set("max_len", 32);
  CHECK_NOTHROW(check_trained_length(m, 32, "--max-len"));
  CHECK_THROWS_WITH(
      check_trained_length(m, 64, "--max-len"),
      "--max-len 64: windows of 64 tokens need 64 positions, but the learned position table has 32 rows, "
      "fixed when the model was trained (it cannot grow after training); evaluate with --max-len 32 or "
      "less, or train with an encoding that has no table (rope, sinusoidal, t5_bias, alibi, "
      "alibi_directional, kerple, fire, xpos, p_rope, proportional, sandwich, cope) to evaluate longer windows");
  // From the encoding table: a new encoding without a table is named without editing the message.
  std::string message;
  try {
    check_trained_length(m, 64, "--max-len");
  } catch (const ConfigError& e) {
    message = e.what();
  }
  const size_t open = message.find("no table (") + 10;
  const std::string named = ", " + message.substr(open, message.find(')', open) - open) + ",";
  for (const PositionEncodingSpec& s : position_encodings()) {
    CAPTURE(s.name, named);
    CHECK((named.find(", " + s.name + ",") != std::string::npos) == (s.name != "learned" && !s.position_free));
  }
  m.pooling = Pooling::cls;  // the CLS vector takes a row
  CHECK_THROWS_WITH(check_trained_length(m, 32, "--max-len"), Catch::Contains("evaluate with --max-len 31 or less"));
  m.position.type = "rope";  // no table: any length
  CHECK_NOTHROW(check_trained_length(m, 100000, "--max-len"));
}

TEST_CASE("trained length: --set model.position.max_len on a learned checkpoint is refused", "[eval]") {
  const auto dir = test::fresh_dir("trained-length");
  TrainRequest request{test::tiny_run_config(dir),
                       {"model.position.type=learned", "model.position.max_len=32"},
                       "",
                       (dir / "run").string()};
  request.stop_after = 4;
  REQUIRE(train(request) == 0);
  const std::string checkpoint = (dir / "run" / "checkpoints" / "step-00000004.h5").string();
  CHECK_NOTHROW(restore_model(checkpoint, {"data.eval_windows=all"}));
  CHECK_THROWS_WITH(restore_model(checkpoint, {"model.position.max_len=64"}),
                    "--set model.position.max_len: the learned position table of " + checkpoint +
                        " has 32 rows, fixed when the model was trained (it cannot grow after training); evaluate "
                        "windows of at most 32 tokens with --max-len instead");
}
