// The files `rotor eval` writes: what they record and how they are named, so
// that a sweep of lengths and scalings never overwrites a different result.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include "tests/storage/checkpoint_test_support.h"
#include "trainers/run/declared_scores.h"
#include "trainers/run/eval_record.h"

using namespace rotor;
using rotor::test::ScratchDir;

namespace {

EvalSetting plain() { return EvalSetting{"runs/a/checkpoints/step-00000100.h5", "test", "", 512, "first", {}}; }

void write(const std::string& path, const EvalSetting& s) {
  EvalRecord r{s, 100, 10, {{"accuracy", 0.5}, {"macro_f1", 0.0}, {"loss", 0.0}}};
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
  EvalRecord r{s, 100, 4, {{"accuracy", 0.75}, {"macro_f1", 0.0}, {"loss", 0.0}}};
  const std::string line = compact_json(r);
  CHECK(line ==
        "{\"evaluation\":{\"checkpoint\":\"runs/a/checkpoints/step-00000100.h5\",\"split\":\"test\",\"eval_max_len\":"
        "512,\"eval_windows\":\"first\",\"overrides\":[\"model.position.scaling=ntk\"]},\"step\":100,\"documents\":4,"
        "\"metrics\":{\"accuracy\":0.75,\"macro_f1\":0.0,\"loss\":0.0}}");
  r.evaluation.data = "more/docs.jsonl";
  CHECK_THAT(compact_json(r), Catch::Contains("\"split\":\"test\",\"data\":\"more/docs.jsonl\""));
}

TEST_CASE("a language model's eval record has the metrics its row declares, perplexity and bits per token too",
          "[eval]") {
  EvalSetting s = plain();
  s.eval_windows = "stride64";
  const SplitScores measured{{"accuracy", 0.25}, {"loss", std::log(2.0) * 3.0}};
  EvalRecord r{s, 100, 4, declared_scores(objective_spec(ObjectiveKind::clm), measured)};
  const std::string line = compact_json(r);
  CHECK_THAT(line, Catch::Contains("\"documents\":4,\"metrics\":{\"loss\":"));
  const JsonFields metrics = JsonFields::parse(line).at("metrics");
  CHECK(!metrics.contains("macro_f1"));
  CHECK(metrics.at("perplexity").get<double>() == Approx(8.0).epsilon(1e-12));
  CHECK(metrics.at("bits_per_token").get<double>() == Approx(3.0).epsilon(1e-12));
  CHECK(metrics.at("accuracy").get<double>() == 0.25);
  const EvalRecord back = JsonFields::parse(line).get<EvalRecord>();
  CHECK(back.scores == r.scores);
  CHECK(eval_file_name(s, 128) == "eval-test-L512-stride64.json");
}

// Records written before "metrics": the metrics were fields of the record.
TEST_CASE("eval records written before the metric map read into the same metric names", "[eval]") {
  const std::string setting =
      "{\"evaluation\":{\"checkpoint\":\"c.h5\",\"split\":\"test\",\"eval_max_len\":64,\"eval_windows\":"
      "\"first\",\"overrides\":[]},\"step\":7,\"documents\":4,";
  const EvalRecord classifier =
      JsonFields::parse(setting + "\"accuracy\":0.75,\"macro_f1\":0.5,\"loss\":0.25}").get<EvalRecord>();
  CHECK(classifier.scores == SplitScores{{"accuracy", 0.75}, {"macro_f1", 0.5}, {"loss", 0.25}});
  const EvalRecord lm = JsonFields::parse(setting +
                                          "\"accuracy\":0.5,\"loss\":2.0,\"perplexity\":7.38905609893065,"
                                          "\"bits_per_token\":2.8853900817779268}")
                            .get<EvalRecord>();
  CHECK(lm.scores.get("loss") == 2.0);
  CHECK(lm.scores.get("perplexity") == 7.38905609893065);
  CHECK(lm.scores.get("bits_per_token") == 2.8853900817779268);
  CHECK(lm.scores.get("accuracy") == 0.5);
  CHECK_THROWS_WITH(lm.scores.get("macro_f1"), Catch::Contains("no metric 'macro_f1'"));
  // The map the new record writes holds the same numbers.
  CHECK(lm.scores == declared_scores(objective_spec(ObjectiveKind::clm), {{"loss", 2.0}, {"accuracy", 0.5}}));
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
