// `rotor compare` study specs: strict parsing with errors that name the file,
// line and key before anything runs, variant presets, the runs and the
// length-sweep plan; every ready study in configs/compare/ parses.
#include <catch2/catch.hpp>

#include <filesystem>

#include "tests/trainers/study/study_fixture.h"
#include "trainers/study/study_spec.h"

using namespace rotor;
using Catch::Matchers::Contains;

namespace {

const char* kVariants = "seeds: [1, 2]\nvariants: [rope, sinusoidal]\n";

std::string parse_error(const std::string& body) {
  const auto dir = test::fresh_dir("study-spec");
  const std::string path = test::tiny_study_spec(dir, body);
  try {
    parse_study_spec(path);
  } catch (const ConfigError& e) {
    return e.what();
  }
  FAIL("no error for spec:\n" << body);
  return "";
}

}  // namespace

TEST_CASE("study spec: runs, overrides and presets", "[study]") {
  const auto dir = test::fresh_dir("study-spec-ok");
  const std::string path = test::tiny_study_spec(
      dir,
      "set: {train.max_steps: 8}\nseeds: [3, 1]\nvariants:\n  - rope-half\n  - learned\n"
      "  - name: rope-base500\n    set:\n      model:\n        position: {type: rope, base: 500}\n"
      "evaluation:\n  lengths: [16, 32, 64]\n  scalings: [none, ntk, yarn]\n");
  const StudySpec spec = parse_study_spec(path);
  REQUIRE(spec.variants.size() == 3);
  CHECK(spec.variants[0].config.model.position.choice<RotaryLayout>("layout") == RotaryLayout::half);
  // Mean pooling: one table row per training position.
  CHECK(spec.variants[1].config.model.position.integer("max_len") == 32);
  CHECK(spec.variants[2].config.model.position.number("base") == 500.0);
  CHECK(spec.variants[2].config.train.max_steps == 8);

  const std::vector<StudyRun> runs = spec.runs();
  REQUIRE(runs.size() == 6);
  CHECK(runs[0].id == "rope-half-seed3");
  CHECK(runs[1].id == "rope-half-seed1");
  CHECK(runs[5].id == "rope-base500-seed1");
  const std::vector<std::string> ov = spec.run_overrides(runs[1]);
  CHECK(ov.front() == "train.max_steps=8");
  CHECK(std::find(ov.begin(), ov.end(), "run.seed=1") != ov.end());
  CHECK(std::find(ov.begin(), ov.end(), "data.seed=1") != ov.end());
  CHECK(ov.back() == "run.name=rope-half-seed1");

  // Scalings only for rope beyond the training length (32): 3 lengths + 2 at 64.
  CHECK(sweep_plan(spec, spec.variants[0].config).size() == 5);
  const std::vector<SweepCell> learned = sweep_plan(spec, spec.variants[1].config);
  REQUIRE(learned.size() == 3);
  for (const SweepCell& c : learned) CHECK(c.scaling == "none");
}

TEST_CASE("study spec: unknown keys, variants and bad values are errors naming the line", "[study]") {
  CHECK_THAT(parse_error(std::string(kVariants) + "evalution: {lengths: [32]}\n"),
             Contains("study.yaml:4: unknown key 'evalution' in the study"));
  CHECK_THAT(parse_error("seeds: [1]\nvariants: [rope, rotary]\n"),
             Contains("study.yaml:3: variants: unknown variant 'rotary' (presets: rope, rope-half"));
  CHECK_THAT(parse_error("seeds: [1]\nvariants:\n  - name: x\n    set: {model.position.typ: rope}\n"),
             Contains("study.yaml:5: set: unknown key 'model.position.typ' (did you mean 'model.position.type'?)"));
  CHECK_THAT(parse_error("seeds: [1]\nvariants:\n  - name: x\n    set: {model.position.type: rotary}\n"),
             Contains("unknown value 'rotary'"));
  CHECK_THAT(parse_error("seeds: [1]\nvariants:\n  - name: x\n    set: {model.position.type: rope}\n    extra: 1\n"),
             Contains("study.yaml:6: unknown key 'extra' in a variant"));
  CHECK_THAT(parse_error("seeds: [1]\nvariants: [rope, rope]\n"), Contains("'rope' is listed twice"));
  CHECK_THAT(parse_error("seeds: [1, 1]\nvariants: [rope]\n"), Contains("seeds: 1 is listed twice"));
  CHECK_THAT(parse_error("seeds: [-1]\nvariants: [rope]\n"), Contains("seeds: expected non-negative integers"));
  CHECK_THAT(parse_error("variants: [rope]\n"), Contains("missing `seeds:`"));
  CHECK_THAT(parse_error("seeds: [1]\nvariants: []\n"), Contains("variants: expected a non-empty list"));
  CHECK_THAT(parse_error("seeds: [1]\nvariants:\n  - name: a/b\n    set: {model.position.type: rope}\n"),
             Contains("name 'a/b' must be letters"));
}

TEST_CASE("study spec: errors suggest the closest name, and a typo in set: is named at its own line", "[study]") {
  CHECK_THAT(parse_error(std::string(kVariants) + "evalution: {lengths: [32]}\n"),
             Contains("(did you mean 'evaluation'?)"));
  CHECK_THAT(parse_error("seeds: [1]\nvariants: [rope-halff]\n"), Contains("(did you mean 'rope-half'?)"));
  CHECK_THAT(parse_error(std::string(kVariants) + "evaluation: {scalings: [none, ntkk]}\n"),
             Contains("(did you mean 'ntk'?)"));
  CHECK_THAT(parse_error("seeds: [1]\nvariants:\n  - name: x\n    set:\n      model.position.type: rope\n"
                         "      model.position.bse: 500\n"),
             Contains("study.yaml:7: set: unknown key 'model.position.bse' (did you mean 'model.position.base'?)"));
  CHECK_THAT(parse_error("set:\n  train.lr: 0.01\n  train.max_stpes: 5\nseeds: [1]\nvariants: [rope]\n"),
             Contains("study.yaml:4: set: unknown key 'train.max_stpes' (did you mean 'train.max_steps'?)"));
}

TEST_CASE("study spec: presets are spelt with hyphens, underscores name the same preset", "[study]") {
  const auto dir = test::fresh_dir("study-spec-presets");
  const StudySpec spec =
      parse_study_spec(test::tiny_study_spec(dir, "seeds: [1]\nvariants: [t5-bias, t5_bias, rope_half]\n"));
  REQUIRE(spec.variants.size() == 3);
  CHECK(spec.variants[0].config.model.position.type == "t5_bias");
  CHECK(spec.variants[1].overrides == spec.variants[0].overrides);
  CHECK(spec.variants[1].name == "t5_bias");  // as written: it names the run directories of existing studies
  CHECK(spec.variants[2].config.model.position.choice<RotaryLayout>("layout") == RotaryLayout::half);
}

TEST_CASE("study spec: evaluation lengths, splits and scalings are checked", "[study]") {
  const std::string v = kVariants;
  CHECK_THAT(
      parse_error(v + "evaluation:\n  lengths: [64, 32]\n"),
      Contains("study.yaml:5: evaluation.lengths: expected distinct lengths in ascending order, got 32 after 64"));
  CHECK_THAT(parse_error(v + "evaluation:\n  lengths: [32, 32]\n"), Contains("ascending order"));
  CHECK_THAT(parse_error(v + "evaluation:\n  lengths: [0]\n"), Contains("at least 2 tokens, got 0"));
  CHECK_THAT(parse_error(v + "evaluation:\n  lengths: [1.5]\n"), Contains("expected an integer, got '1.5'"));
  CHECK_THAT(parse_error(v + "evaluation:\n  lengths: 512\n"),
             Contains("evaluation.lengths: expected a non-empty list"));
  CHECK_THAT(parse_error(v + "evaluation:\n  scalings: [none, dynamic]\n"), Contains("unknown scaling 'dynamic'"));
  CHECK_THAT(parse_error(v + "evaluation:\n  splits: [test_4k]\n"),
             Contains("unknown split 'test_4k' of task 'listops-easy' (expected `all` or a list of: val, test)"));
  CHECK_THAT(parse_error(v + "evaluation:\n  split: test\n"), Contains("unknown key 'split' in evaluation"));
  CHECK_THAT(parse_error(v + "evaluation:\n  thresholds: [0.5, high]\n"),
             Contains("study.yaml:5: evaluation.thresholds: expected a number, got 'high'"));
  CHECK_THAT(parse_error(v + "evaluation:\n  thresholds: [.nan]\n"),
             Contains("evaluation.thresholds: expected a finite number"));
  // A sliding window and a token budget are a language model's (the tiny spec's base classifies).
  CHECK_THAT(parse_error(v + "evaluation:\n  stride: 4\n"),
             Contains("study.yaml:5: evaluation.stride: a sliding window is for a language model (train.objective "
                      "clm or mlm) only"));
  CHECK_THAT(parse_error(v + "evaluation:\n  max_tokens: 4096\n"),
             Contains("study.yaml:5: evaluation.max_tokens: a token budget is for a language model"));
  const std::string clm = "set: {train.objective: clm}\n" + v;
  CHECK_THAT(parse_error(clm + "evaluation:\n  max_tokens: 0\n"),
             Contains("study.yaml:6: evaluation.max_tokens: expected at least 1, got 0"));
  CHECK_THAT(parse_error(clm + "evaluation:\n  stride: -2\n"),
             Contains("study.yaml:6: evaluation.stride: expected at least 1, got -2"));
  // A separation task's test_<L> splits are known.
  const std::string order = "set: {data.task: order, data.generated.test_lengths: [96]}\n" + v;
  CHECK_THAT(parse_error(order + "evaluation:\n  splits: [test_128]\n"),
             Contains("unknown split 'test_128' of task 'order' (expected `all` or a list of: val, test, test_96)"));
  CHECK_THAT(parse_error(order + "evaluation:\n  splits: every\n"),
             Contains("evaluation.splits: expected a non-empty list"));
}

TEST_CASE("study spec: evaluation splits `all` are test and every longer test split of the task", "[study]") {
  const auto dir = test::fresh_dir("study-spec-all-splits");
  const std::string path = test::tiny_study_spec(
      dir,
      "set: {data.task: order, data.generated.test_lengths: [96, 128]}\nseeds: [1]\nvariants: [rope]\n"
      "evaluation:\n  splits: all\n");
  CHECK(parse_study_spec(path).evaluation.splits == std::vector<std::string>{"test", "test_96", "test_128"});
}

TEST_CASE("study spec: a bad base config is reported before anything runs", "[study]") {
  const auto dir = test::fresh_dir("study-spec-base");
  const std::string path = (dir / "study.yaml").string();
  std::ofstream(path) << "base: missing.yaml\nseeds: [1]\nvariants: [rope]\n";
  CHECK_THROWS_WITH(parse_study_spec(path), Contains("study.yaml:1: base: config file"));
  test::tiny_run_config(dir);
  std::ofstream(path) << "base: tiny.yaml\nset: {train.lr: fast}\nseeds: [1]\nvariants: [rope]\n";
  CHECK_THROWS_WITH(parse_study_spec(path), Contains("train.lr expects a number, got 'fast'"));
}

TEST_CASE("study spec: base, out_dir and set paths are relative to the spec's folder, also for a bare name",
          "[study]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::canonical(test::fresh_dir("study-spec-paths"));
  test::tiny_study_spec(dir, "out_dir: ../studies/s\nset: {data.cache_dir: cache}\n" + std::string(kVariants));
  const fs::path before = fs::current_path();
  fs::current_path(dir);
  const StudySpec spec = parse_study_spec("study.yaml");
  fs::current_path(before);
  CHECK(spec.base == (dir / "tiny.yaml").string());
  CHECK(spec.out_dir == (dir.parent_path() / "studies" / "s").string());
  CHECK(spec.variants[0].config.data.cache_dir == (dir / "cache").string());
}

TEST_CASE("study spec: every ready study in configs/compare parses", "[study]") {
  int specs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ROTOR_SOURCE_DIR) + "/configs/compare")) {
    if (entry.path().extension() != ".yaml") continue;
    INFO(entry.path().string());
    // Some studies compare fewer variants by design: the quick language-model study (four, ~10 minutes), the
    // linear-attention study (RoFormer's Figure 3 right: linear attention without RoPE, in its two forms, and
    // softmax), MLM pre-training (Figure 3 left: rope, learned, sinusoidal), fine-tuning (rope and learned, each
    // pre-trained and from scratch), the two precision studies (encodings in fp32 and bf16, paired) and T5's two
    // table starts (t5-start with `none` beside them, t5-start-lm without), iRoPE's study (rope, irope, none),
    // coupled positions in a decoder (rope and alibi at both kinds of positions, none), the random offset of
    // coupled positions (three encodings with and without it) and the two studies of the newer encodings beside
    // their references (separation-newer, lm-extrapolation-newer); every other one compares at least 7.
    const std::string stem = entry.path().stem().string();
    const size_t fewest = stem == "t5-start-lm"                                                      ? 2
                          : stem == "mlm-pretrain" || stem == "t5-start" || stem == "interleaved-lm" ? 3
                          : stem == "lm-extrapolation-quick" || stem == "lm-linear-attention" || stem == "finetune" ||
                                  stem == "coupled-addition-decoder" || stem == "coupled-addition-offset" ||
                                  stem.rfind("precision-", 0) == 0 || stem.find("-newer") != std::string::npos
                              ? 4
                              : 7;
    for (const StudySpec& spec : parse_study_suite(entry.path().string()).studies) {
      CHECK(spec.variants.size() >= fewest);
      CHECK(spec.seeds.size() >= 2);
    }
    ++specs;
  }
  // The three Chomsky and decoder benchmarks joined the 14, then T5's two start studies, iRoPE's, coupled
  // positions on addition (encoder and decoder), their random offset, the newer encodings on the separation
  // suite and the LM extrapolation study, and index hints on addition.
  CHECK(specs == 26);
}

TEST_CASE("study spec: a suite of tasks is one study per task with the same variants", "[study]") {
  const auto dir = test::fresh_dir("study-spec-suite");
  test::tiny_run_config(dir);
  const std::string path = (dir / "suite.yaml").string();
  std::ofstream(path) << "tasks: {alpha: tiny.yaml, beta: {base: tiny.yaml, set: {train.max_steps: 40}}}\n"
                      << "out_dir: out\nseeds: [1, 2]\n"
                      << "set: {train.max_steps: 30}\nvariants: [rope, none]\n";
  const StudySuite suite = parse_study_suite(path);
  REQUIRE(suite.has_tasks());
  REQUIRE(suite.studies.size() == 2);
  CHECK(suite.studies[0].task == "alpha");
  CHECK(suite.studies[1].task == "beta");
  CHECK(suite.out_dir == (std::filesystem::canonical(dir) / "out").string());
  CHECK(suite.studies[1].out_dir == (std::filesystem::canonical(dir) / "out" / "beta").string());
  CHECK(suite.studies[1].variants.size() == 2);
  CHECK(suite.studies[0].variants[0].config.train.max_steps == 30);
  CHECK(suite.studies[1].variants[0].config.train.max_steps == 40);  // the task's own set, after the spec's
  CHECK(&suite.study("beta") == &suite.studies[1]);
  CHECK_THROWS_WITH(suite.study("gamma"), Contains("--task gamma: no such task") && Contains("alpha, beta"));
  CHECK_THROWS_WITH(parse_study_spec(path), Contains("a suite of tasks") && Contains("--task NAME"));
  std::ofstream(path) << "base: tiny.yaml\ntasks: {alpha: tiny.yaml}\nseeds: [1]\nvariants: [rope]\n";
  CHECK_THROWS_WITH(parse_study_suite(path), Contains("suite.yaml:2: tasks: give either `base:`"));
  std::ofstream(path) << "tasks: {alpha: {base: tiny.yaml, sett: {}}}\nseeds: [1]\nvariants: [rope]\n";
  CHECK_THROWS_WITH(parse_study_suite(path), Contains("unknown key 'sett' in task alpha"));
  std::ofstream(path) << "tasks: {alpha: missing.yaml}\nseeds: [1]\nvariants: [rope]\n";
  CHECK_THROWS_WITH(parse_study_suite(path), Contains("suite.yaml:1: base: config file"));
  std::ofstream(path) << "seeds: [1]\nvariants: [rope]\n";
  CHECK_THROWS_WITH(parse_study_suite(path), Contains("missing `base:` (or `tasks:`)"));
}

TEST_CASE("study spec: work beyond any study is refused at load, before a run trains", "[study]") {
  const std::string v = kVariants;
  // The sweep runs after every run has trained: an impossible length is refused first.
  CHECK_THAT(parse_error(v + "evaluation:\n  lengths: [8, 100000000]\n"),
             Contains("study.yaml:5: evaluation.lengths: 100000000 tokens is longer than the longest window rotor "
                      "evaluates (65536;"));
  CHECK_THAT(parse_error(v + "evaluation:\n  lengths: [8, 65537]\n"), Contains("65537 tokens is longer"));
  // A million seeds or variants: one message naming the key, before any variant's config is resolved.
  std::string seeds = "seeds: [";
  for (int s = 0; s < 1001; ++s) seeds += (s ? ", " : "") + std::to_string(s);
  CHECK_THAT(parse_error(seeds + "]\nvariants: [rope]\n"),
             Contains("study.yaml:2: seeds: 1001 seeds; a study runs at most 1000 runs"));
  std::string variants = "variants:\n";
  for (int k = 0; k < 501; ++k) variants += "  - {name: v" + std::to_string(k) + ", set: {train.lr: 0.001}}\n";
  CHECK_THAT(parse_error("seeds: [1, 2]\n" + variants),
             Contains("study.yaml:4: variants: 501 variants x 2 seeds is 1002 runs; a study runs at most 1000"));
}
