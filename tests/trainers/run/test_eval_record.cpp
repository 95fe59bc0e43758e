// The files `rotor eval` writes: what they record and how they are named, so
// that a sweep of lengths and scalings never overwrites a different result.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include "tests/storage/checkpoint_test_support.h"
#include "trainers/run/eval_record.h"

using namespace rotor;
using rotor::test::ScratchDir;

namespace {

EvalSetting plain() { return EvalSetting{"runs/a/checkpoints/step-00000100.h5", "test", "", 512, "first", {}}; }

void write(const std::string& path, const EvalSetting& s) {
  EvalRecord r{s, 100, 10, {0.0, 0.5, 0.0}};
  std::ofstream(path) << compact_json(r) << "\n";
}

}  // namespace

TEST_CASE("eval file names say what was evaluated", "[eval]") {
  EvalSetting s = plain();
  CHECK(eval_file_name(s, 512) == "eval-test.json");
  s.eval_max_len = 2048;
  CHECK(eval_file_name(s, 512) == "eval-test-L2048.json");
  s.overrides = {"model.position.scaling=ntk", "model.position.scaling_factor=4"};
  CHECK(eval_file_name(s, 512) == "eval-test-L2048-ntk4.json");
  s.overrides = {"model.position.scaling=yarn", "data.eval_windows=all", "train.lr=1e-3"};
  CHECK(eval_file_name(s, 2048) == "eval-test-yarn-all-1e_3.json");
  s.split = "my file";
  s.overrides = {"model.position.base=../x"};
  CHECK(eval_file_name(s, 2048) == "eval-my_file-.._x.json");
}

TEST_CASE("eval records carry the evaluation's setting", "[eval]") {
  EvalSetting s = plain();
  s.overrides = {"model.position.scaling=ntk"};
  EvalRecord r{s, 100, 4, {0.0, 0.75, 0.0}};
  const std::string line = compact_json(r);
  CHECK(line ==
        "{\"evaluation\":{\"checkpoint\":\"runs/a/checkpoints/step-00000100.h5\",\"split\":\"test\",\"eval_max_len\":"
        "512,\"eval_windows\":\"first\",\"overrides\":[\"model.position.scaling=ntk\"]},\"step\":100,\"documents\":4,"
        "\"accuracy\":0.75,\"macro_f1\":0.0,\"loss\":0.0}");
  r.evaluation.data = "more/docs.jsonl";
  CHECK_THAT(compact_json(r), Catch::Contains("\"split\":\"test\",\"data\":\"more/docs.jsonl\""));
}

TEST_CASE("a language model's eval record has perplexity and bits per token for macro-F1", "[eval]") {
  EvalSetting s = plain();
  s.eval_windows = "stride64";
  EvalRecord r{s, 100, 4, {std::log(2.0) * 3.0, 0.25, 0.0}};
  r.scores.language_model = true;
  const std::string line = compact_json(r);
  CHECK_THAT(line, Catch::Contains("\"documents\":4,\"accuracy\":0.25,\"loss\":"));
  const JsonFields j = JsonFields::parse(line);
  CHECK(!j.contains("macro_f1"));
  CHECK(j.at("perplexity").get<double>() == Approx(8.0).epsilon(1e-12));
  CHECK(j.at("bits_per_token").get<double>() == Approx(3.0).epsilon(1e-12));
  const EvalRecord back = j.get<EvalRecord>();
  CHECK(back.scores == r.scores);
  CHECK(eval_file_name(s, 128) == "eval-test-L512-stride64.json");
}

TEST_CASE("eval output paths never overwrite a different evaluation", "[eval]") {
  ScratchDir run("eval-paths");
  const EvalSetting a = plain();
  CHECK(eval_output_path(run.path(), a, 512) == run / "eval-test.json");
  write(run / "eval-test.json", a);
  CHECK(eval_output_path(run.path(), a, 512) == run / "eval-test.json");  // the same evaluation: refreshed

  EvalSetting b = a;
  b.checkpoint = "runs/a/checkpoints/step-00000200.h5";  // same name, another checkpoint
  CHECK(eval_output_path(run.path(), b, 512) == run / "eval-test-2.json");
  write(run / "eval-test-2.json", b);
  EvalSetting c = a;
  c.overrides = {"data.seed=5"};
  c.eval_max_len = 1024;
  CHECK(eval_output_path(run.path(), c, 512) == run / "eval-test-L1024-5.json");

  std::ofstream(run / "eval-val.json") << "not json\n";  // unreadable: kept
  EvalSetting v = a;
  v.split = "val";
  CHECK(eval_output_path(run.path(), v, 512) == run / "eval-val-2.json");
  EvalSetting b2 = b;
  CHECK(eval_output_path(run.path(), b2, 512) == run / "eval-test-2.json");  // finds its own earlier file
}
