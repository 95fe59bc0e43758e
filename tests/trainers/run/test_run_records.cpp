// The records of a run directory: each reads what today's trainer and study
// write and writes it back byte for byte (to_json(from_json(x)) == x), and a
// file that is not the record is named in the error.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include "tests/storage/checkpoint_test_support.h"
#include "trainers/run/json_file.h"
#include "trainers/run/metrics_history.h"
#include "trainers/run/run_directory.h"

using namespace rotor;
using rotor::test::ScratchDir;

namespace {

// Lines written by `rotor train configs/quickstart.yaml`: the summary and the
// eval and final events of a rotor from before the metric map, then today's.
const char* const kOldSummary =
    R"({"run":"quickstart","steps":60,"epochs":0,"best_step":40,"best_metric":"accuracy","best_value":0.236,)"
    R"("parameters":401546,"position":"rope","elapsed_s":4.655013048,"tokens_per_s":4842.949406370923,)"
    R"("val_loss":2.1390870512705344,"val_accuracy":0.236,"val_macro_f1":0.16447617450480145,)"
    R"("test_loss":2.0870466038230067,"test_accuracy":0.251,"test_macro_f1":0.17251155014387973})";
const char* const kSummary =
    R"({"run":"quickstart","steps":60,"epochs":0,"best_step":40,"best_metric":"accuracy","best_value":0.236,)"
    R"("parameters":401546,"position":"rope","elapsed_s":4.655013048,"tokens_per_s":4842.949406370923,)"
    R"("build":"2e8571b0c4f1",)"
    R"("scores":{"val":{"accuracy":0.236,"macro_f1":0.16447617450480145,"loss":2.1390870512705344},)"
    R"("test":{"accuracy":0.251,"macro_f1":0.17251155014387973,"loss":2.0870466038230067}}})";
const char* const kTrain =
    R"({"event":"train","step":10,"epoch":0,"lr":0.0009865224352899118,"loss":2.293954920768738,)"
    R"("accuracy":0.140625,"grad_norm":5.455271495232577,"tokens":3459,"tokens_per_s":6535.580827186075,)"
    R"("elapsed_s":0.529266604})";
const char* const kOldEval =
    R"({"event":"eval","split":"val","step":20,"epoch":0,"loss":2.1971639487873635,"accuracy":0.199,)"
    R"("macro_f1":0.16432938887781723,"best":true,"elapsed_s":1.346678472})";
const char* const kEval =
    R"({"event":"eval","split":"val","step":20,"epoch":0,"metrics":{"accuracy":0.199,)"
    R"("macro_f1":0.16432938887781723,"loss":2.1971639487873635},"best":true,"elapsed_s":1.346678472})";
const char* const kOldFinal = R"({"event":"final","split":"test","step":40,"loss":2.0870466038230067,"accuracy":0.251,)"
                              R"("macro_f1":0.17251155014387973})";
const char* const kFinal =
    R"({"event":"final","split":"test","step":40,"metrics":{"accuracy":0.251,"macro_f1":0.17251155014387973,)"
    R"("loss":2.0870466038230067}})";

template <typename Record>
std::string round_trip(const std::string& line) {
  return compact_json(JsonFields::parse(line).get<Record>());
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("run records: metrics events and the summary round-trip byte for byte", "[run]") {
  CHECK(round_trip<TrainEvent>(kTrain) == kTrain);
  CHECK(round_trip<EvalEvent>(kEval) == kEval);
  CHECK(round_trip<FinalEvent>(kFinal) == kFinal);
  CHECK(round_trip<RunSummary>(kSummary) == kSummary);
  const RunSummary s = JsonFields::parse(kSummary).get<RunSummary>();
  REQUIRE(s.splits.size() == 2);
  CHECK(s.splits[0].first == "val");
  CHECK(s.splits[1].second.get("accuracy") == 0.251);
}

TEST_CASE("run records: events and summaries written before the metric map read into the same metrics", "[run]") {
  const RunSummary old = JsonFields::parse(kOldSummary).get<RunSummary>();
  const RunSummary now = JsonFields::parse(kSummary).get<RunSummary>();
  REQUIRE(old.splits.size() == 2);
  CHECK(old.splits == now.splits);
  CHECK(old.build.empty());  // written before summaries named their build
  CHECK(now.build == "2e8571b0c4f1");
  CHECK(RunSummary{}.build == build_id());  // a summary this binary writes names it
  CHECK_FALSE(std::string(build_id()).empty());
  CHECK(old.splits[0].second.get("macro_f1") == 0.16447617450480145);
  CHECK(JsonFields::parse(kOldEval).get<EvalEvent>().scores == JsonFields::parse(kEval).get<EvalEvent>().scores);
  CHECK(JsonFields::parse(kOldFinal).get<FinalEvent>().scores == JsonFields::parse(kFinal).get<FinalEvent>().scores);
  CHECK_THAT(round_trip<FinalEvent>(kOldFinal), Catch::Contains(R"("step":40,"metrics":{)"));  // rewritten as today's
}

TEST_CASE("run records: NaN is written as null and read back as NaN", "[run]") {
  RunSummary s = JsonFields::parse(kSummary).get<RunSummary>();
  s.best_value = std::nan("");  // no evaluation ran
  const std::string line = compact_json(s);
  CHECK_THAT(line, Catch::Contains("\"best_value\":null,"));
  CHECK(std::isnan(JsonFields::parse(line).get<RunSummary>().best_value));
  CHECK(round_trip<RunSummary>(line) == line);
}

TEST_CASE("run records: the summary file, and what a resumed run reads of it", "[run]") {
  ScratchDir dir("run-summary");
  const RunDirectory run(dir.path());
  CHECK_FALSE(run.finished());
  CHECK_FALSE(run.summarized_steps());
  CHECK_THROWS_WITH(run.read_summary(), Catch::StartsWith(run.summary_path() + ": cannot open"));
  run.write_summary(JsonFields::parse(kSummary).get<RunSummary>());
  CHECK(read_text(run.summary_path()) == std::string(kSummary) + "\n");
  CHECK(run.finished());
  CHECK(run.summarized_steps() == 60);
  CHECK(run.best_checkpoint_path() == dir.path() + "/checkpoints/step-00000040.h5");
  std::ofstream(run.summary_path()) << "{\"steps\":60,\"best_step\":4}\n";
  CHECK(run.summarized_steps() == 60);
  CHECK_THROWS_AS(run.read_summary(), RunFileError);
  CHECK_THROWS_WITH(run.read_summary(), Catch::StartsWith(run.summary_path() + ": not a run summary ("));
  std::ofstream(run.summary_path()) << "{\"steps\":6";  // cut short
  CHECK_FALSE(run.summarized_steps());
}

TEST_CASE("run records: eval records round-trip", "[run]") {
  const std::string line =
      R"({"evaluation":{"checkpoint":"runs/a/checkpoints/step-00000100.h5","split":"test","data":"more/docs.jsonl",)"
      R"("eval_max_len":512,"eval_windows":"first","overrides":["model.position.scaling=ntk"]},"step":100,)"
      R"("documents":4,"metrics":{"accuracy":0.75,"macro_f1":0.0,"loss":0.0}})";
  CHECK(round_trip<EvalRecord>(line) == line);
}

TEST_CASE("run records: the length sweep and attention files round-trip", "[run]") {
  ScratchDir dir("run-sweep");
  const RunDirectory run(dir.path());
  CHECK(run.read_length_sweep().cells.empty());  // none yet
  const std::string sweep =
      "{\n  \"cells\": [\n    {\n      \"available\": true,\n      \"documents\": 2,\n"
      "      \"labels\": [\n        1,\n        0\n      ],\n      \"length\": 64,\n      \"metrics\": {\n"
      "        \"accuracy\": 0.5,\n        \"loss\": 1.25,\n        \"macro_f1\": 0.3333333333333333\n      },\n"
      "      \"predictions\": [\n        1,\n        -1\n      ],\n"
      "      \"scaling\": \"none\",\n      \"split\": \"test\"\n    },\n    {\n      \"available\": false,\n"
      "      \"length\": 128,\n      \"reason\": \"too long\",\n      \"scaling\": \"ntk\",\n"
      "      \"split\": \"test\"\n    }\n  ],\n  \"checkpoint\": \"r/checkpoints/step-00000040.h5\"\n}\n";
  std::ofstream(run.length_sweep_path()) << sweep;
  const LengthSweep read = run.read_length_sweep();
  REQUIRE(read.cells.size() == 2);
  CHECK(read.cells[0].predictions == std::vector<int32_t>{1, -1});
  CHECK(read.cells[1].reason == "too long");
  run.write_length_sweep(read);
  CHECK(read_text(run.length_sweep_path()) == sweep);

  CHECK(run.read_attention_usage().reason == "not measured");
  const std::string attention =
      "{\n  \"available\": true,\n  \"layer_entropy\": [\n    0.5,\n    0.99\n  ],\n  \"split\": \"val\",\n"
      "  \"windows\": 256\n}\n";
  std::ofstream(run.attention_path()) << attention;
  const AttentionUsage usage = run.read_attention_usage();
  CHECK(usage.windows == 256);
  CHECK_FALSE(usage.near_uniform());
  run.write_attention_usage(usage);
  CHECK(read_text(run.attention_path()) == attention);

  std::ofstream(run.length_sweep_path()) << "{\"cells\": [{\"split\": \"test\"}]}\n";
  CHECK_THROWS_WITH(run.read_length_sweep(),
                    Catch::StartsWith(run.length_sweep_path() + ": not a length sweep file (") &&
                        Catch::EndsWith("; delete it to evaluate again"));
}

TEST_CASE("run records: a language model's sweep cell that scored nothing reads back absent", "[run][mlm]") {
  ScratchDir dir("run-sweep-absent");
  const RunDirectory run(dir.path());
  SweepCell cell;
  cell.split = "test";
  cell.length = 16;
  cell.available = true;
  cell.stream_windows = true;
  cell.stride = 16;
  cell.scores = {{"loss", std::nan("")}, {"accuracy", std::nan("")}};  // a masked LM's split with no token selected
  cell.window_nats = {0.0};
  cell.window_tokens = {0};
  run.write_length_sweep({"r/checkpoints/step-00000004.h5", {cell}});
  CHECK_THAT(read_text(run.length_sweep_path()), Catch::Contains("\"loss\": null"));
  const LengthSweep read = run.read_length_sweep();  // threw: null is not a number
  REQUIRE(read.cells.size() == 1);
  CHECK(std::isnan(read.cells[0].scores.get("loss")));
  CHECK(std::isnan(read.cells[0].scores.get("accuracy")));
}

TEST_CASE("run records: a language model's validation curve is its validation loss", "[run]") {
  ScratchDir dir("run-metrics-lm");
  const RunDirectory run(dir.path());
  std::ofstream(run.metrics_path())
      << "{\"event\":\"eval\",\"split\":\"val\",\"step\":10,\"epoch\":0,\"loss\":2.5,\"accuracy\":0.25,"
         "\"perplexity\":12.18,\"bits_per_token\":3.6,\"best\":true,\"elapsed_s\":1.0}\n";
  CHECK(run.validation_curve("loss") == std::vector<std::pair<int64_t, double>>{{10, 2.5}});
}

TEST_CASE("run records: the metrics log kept on resume and the validation curve", "[run]") {
  ScratchDir dir("run-metrics");
  const RunDirectory run(dir.path());
  std::ofstream(run.metrics_path()) << kTrain << "\n" << kEval << "\n" << kFinal << "\n";
  CHECK(run.validation_curve("accuracy") == std::vector<std::pair<int64_t, double>>{{20, 0.199}});
  CHECK_THROWS_WITH(run.validation_curve("perplexity"),
                    Catch::StartsWith(run.metrics_path() + ":2: no metric 'perplexity'"));
  std::ofstream(run.metrics_path(), std::ios::app) << "{\"event\": \"train\", \"step\": ";  // killed mid-line
  std::vector<std::string> warnings;
  CHECK(metrics_lines_to_keep(run.metrics_path(), 20, warnings) == std::vector<std::string>{kTrain, kEval});
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == run.metrics_path() + ":4: dropping the last line, cut short when the run was killed");
  CHECK_THROWS_WITH(run.validation_curve("accuracy"),
                    Catch::StartsWith(run.metrics_path() + ":4: not a metrics event ("));

  std::ofstream(run.metrics_path()) << "{\"event\":\"train\",\"step\":1.5}\n" << kTrain << "\n";
  CHECK_THROWS_WITH(
      metrics_lines_to_keep(run.metrics_path(), 20, warnings),
      Catch::StartsWith(run.metrics_path() + ":1: expected a metrics event with \"event\" and an integer \"step\"") &&
          Catch::EndsWith("(a damaged metrics log; repair or remove that line to resume)"));
}

TEST_CASE("run directory: a checkpoint's run", "[run]") {
  CHECK(RunDirectory::of_checkpoint("runs/a/checkpoints/step-00000100.h5").root() == "runs/a");
  CHECK(RunDirectory::of_checkpoint("elsewhere/model.h5").root() == "elsewhere");
  CHECK(RunDirectory("runs/a").metrics_path() == "runs/a/metrics.jsonl");
  CHECK(RunDirectory("runs/a").checkpoints().dir() == "runs/a/checkpoints");
}

TEST_CASE("run files: a write that fails names the file and the reason", "[run]") {
  const ScratchDir dir("run-file-write");
  const std::string not_a_folder = dir.path() + "/plain";
  std::ofstream(not_a_folder) << "a file, not a folder\n";
  const std::string path = not_a_folder + "/report.json";
  CHECK_THROWS_WITH(write_json_file(path, nlohmann::json::object()), path + ": cannot write: Not a directory");
}
