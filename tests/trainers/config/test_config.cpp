// The config loader: strict keys with suggestions, typed values, line
// numbers, `extends`, --set, validation messages, and the round trip of the
// resolved config through the parser.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <thread>

#include "config_test_support.h"
#include "models/position_encoding.h"
#include "tests/trainers/training/run_fixture.h"
#include "trainers/config/config_loader.h"
#include "trainers/config/config_schema.h"

using namespace rotor;

using namespace rotor::config_test;

namespace {

const char* kValid = "train:\n  max_steps: 10\n";

}  // namespace

TEST_CASE("an unknown key names the file, the line and the closest valid key") {
  const auto dir = test::fresh_dir("config-unknown");
  const auto path = write(dir, "a.yaml", "train:\n  max_steps: 10\nmodel:\n  position:\n    tpye: rope\n");
  const std::string msg = error_of(path);
  CHECK_THAT(msg, Catch::Contains(path + ":5"));
  CHECK_THAT(msg, Catch::Contains("unknown key 'model.position.tpye'"));
  CHECK_THAT(msg, Catch::Contains("did you mean 'model.position.type'?"));
}

TEST_CASE("a value of the wrong type names the key, the line and what was expected") {
  const auto dir = test::fresh_dir("config-type");
  const auto path = write(dir, "a.yaml", "train:\n  max_steps: ten\n");
  const std::string msg = error_of(path);
  CHECK_THAT(msg, Catch::Contains(path + ":2"));
  CHECK_THAT(msg, Catch::Contains("train.max_steps expects an integer, got 'ten'"));
}

TEST_CASE("an unknown choice lists the allowed values and suggests one") {
  const auto dir = test::fresh_dir("config-choice");
  const auto path = write(dir, "a.yaml", "train:\n  max_steps: 10\nmodel:\n  position:\n    type: ropee\n");
  const std::string msg = error_of(path);
  CHECK_THAT(msg, Catch::Contains(path + ":5"));
  CHECK_THAT(msg, Catch::Contains("expected one of: rope, sinusoidal"));
  CHECK_THAT(msg, Catch::Contains("did you mean 'rope'?"));
}

TEST_CASE("out-of-range values point at the line that set them") {
  const auto dir = test::fresh_dir("config-range");
  const auto path = write(dir, "a.yaml", "train:\n  max_steps: 10\n  lr: -1\n");
  const std::string msg = error_of(path);
  CHECK_THAT(msg, Catch::Contains(path + ":3: train.lr: must be > 0"));
  const auto heads = write(dir, "b.yaml", "train:\n  max_steps: 10\nmodel:\n  d_model: 30\n  heads: 4\n");
  CHECK_THAT(error_of(heads), Catch::Contains("model.heads: d_model 30 is not divisible by heads 4"));
}

TEST_CASE("generated data beyond any machine is refused at load, naming the key and the bound") {
  const auto dir = test::fresh_dir("config-generated-bounds");
  const auto path =
      write(dir, "a.yaml", "data:\n  task: order\n  train_size: 1000000000000\ntrain:\n  max_steps: 10\n");
  CHECK_THAT(error_of(path), Catch::Contains(path + ":3: data.train_size: must be <= 100000000"));
  const auto base = write(dir, "b.yaml", "data:\n  task: order\ntrain:\n  max_steps: 10\n");
  CHECK_THAT(error_of(base, {"data.eval_size=1000000000"}), Catch::Contains("data.eval_size: must be <= 100000000"));
  CHECK_THAT(error_of(base, {"data.generated.max_len=1000000000"}),
             Catch::Contains("data.generated.max_len: must be in [1, 1048576]"));
  CHECK_THAT(error_of(base, {"data.generated.test_lengths=[128, 1000000000]"}),
             Catch::Contains("--set: data.generated.test_lengths: 1000000000 is not a sample length in [1, 1048576] "
                             "tokens"));
  // Each key within its bound, all of them together beyond 2^30 tokens (4 GiB of token ids).
  CHECK_THAT(error_of(base, {"data.train_size=100000000"}),
             Catch::Contains("--set: data.train_size: the generated splits would hold up to 6.4e+09 tokens"));
  CHECK(error_of(base, {"data.train_size=1000000"}).empty());  // 6.4e7 tokens
}

TEST_CASE("invalid YAML is reported with its position") {
  const auto dir = test::fresh_dir("config-yaml");
  const auto path = write(dir, "a.yaml", "train:\n  max_steps: [10\n");
  CHECK_THAT(error_of(path), Catch::Contains("invalid YAML"));
  CHECK_THAT(error_of((dir / "missing.yaml").string()), Catch::Contains("config file not found"));
}

TEST_CASE("extends merges a base config, the extending file and --set win") {
  const auto dir = test::fresh_dir("config-extends");
  write(dir, "base.yaml", "train:\n  max_steps: 10\n  lr: 0.001\nmodel:\n  d_model: 32\n  heads: 4\n");
  const auto child = write(dir, "child.yaml", "extends: base.yaml\nmodel:\n  d_model: 64\n");
  const Config c = load_config(child, {"train.lr=0.01", "model.position.type=alibi"});
  CHECK(c.model.d_model == 64);
  CHECK(c.model.heads == 4);
  CHECK(c.train.max_steps == 10);
  CHECK(c.train.lr == 0.01);
  CHECK(c.model.position.type == "alibi");
  CHECK_THAT(error_of(child, {"train.lr"}), Catch::Contains("expected key.path=value"));
  CHECK_THAT(error_of(child, {"train.lrr=1"}), Catch::Contains("--set: unknown key 'train.lrr'"));
  write(dir, "loop1.yaml", "extends: loop2.yaml\n");
  write(dir, "loop2.yaml", "extends: loop1.yaml\n");
  CHECK_THAT(error_of((dir / "loop1.yaml").string()), Catch::Contains("cycle"));
}

TEST_CASE("the resolved config round-trips through the parser") {
  const auto dir = test::fresh_dir("config-roundtrip");
  const Config c = load_config(write(dir, "a.yaml", kValid), {"model.position.base=500000", "train.lr=3.3e-4",
                                                              "data.include_labels=[a, b]", "model.norm_eps=1e-12"});
  const std::string text = dump_config(c);
  const Config back = parse_config_text(text, "dump");
  CHECK(differing_keys(c, back).empty());
  CHECK(dump_config(back) == text);
}

TEST_CASE("list-of-integer keys take integer lists and reject anything else") {
  const auto dir = test::fresh_dir("config-int-list");
  const auto path = write(dir, "a.yaml", std::string(kValid) + "data:\n  generated:\n    test_lengths: [96, 512]\n");
  CHECK(load_config(path).data.generated.test_lengths == std::vector<int64_t>{96, 512});
  CHECK(load_config(path, {"data.generated.test_lengths=[]"}).data.generated.test_lengths.empty());
  CHECK(find_option("data.generated.test_lengths")->type == "list of integers");
  CHECK_THAT(error_of(path, {"data.generated.test_lengths=[a]"}),
             Catch::Contains("data.generated.test_lengths expects a list of integers, got a list"));
  CHECK_THAT(error_of(path, {"data.generated.test_lengths=128"}),
             Catch::Contains("data.generated.test_lengths expects a list of integers, got '128'"));
  const Config c = load_config(path);
  CHECK(parse_config_text(dump_config(c), "dump").data.generated.test_lengths == c.data.generated.test_lengths);
}

TEST_CASE("every schema key appears in the reference and at its nested place in the dump") {
  const std::string reference = config_reference(false);
  for (const ConfigOption& o : config_options()) {
    INFO(o.key);
    CHECK(reference.find(o.key) != std::string::npos);
    Config config;  // the default objective (classify), or one the key applies to (mlm's train.mask_probability)
    if (!applies_to(o, config.train.objective)) config.train.objective = o.objectives.front();
    if (o.interleaved) config.model.interleaved_position.every = 2;  // on, for its keys
    PositionConfig& position = o.interleaved ? config.model.interleaved_position.position : config.model.position;
    for (const PositionEncodingSpec& e : position_encodings())  // and an encoding that reads it
      if (!o.position_key.empty() && e.declares(o.position_key)) position.type = e.name;
    REQUIRE(is_read_by(o, config));
    YAML::Node node =
        YAML::Load(dump_config(config));  // walk "model.position.type" -> dump["model"]["position"]["type"]
    std::stringstream parts(o.key);
    for (std::string part; std::getline(parts, part, '.');) node.reset(node[part]);
    CHECK(node.IsDefined());
  }
}

TEST_CASE("position keys: another encoding's keys are rejected naming the key and its encoding") {
  const auto dir = test::fresh_dir("config-position-keys");
  const auto sinusoidal = write(dir, "s.yaml", "train:\n  max_steps: 10\nmodel:\n  position:\n    type: sinusoidal\n");
  CHECK(error_of(sinusoidal).empty());
  const std::string ntk = error_of(sinusoidal, {"model.position.scaling=ntk"});
  CHECK_THAT(ntk, Catch::Contains("model.position.scaling") && Catch::Contains("position.type rope, not sinusoidal"));
  CHECK_THAT(error_of(sinusoidal, {"model.position.num_buckets=64"}), Catch::Contains("position.type t5_bias"));
  const auto rope = write(dir, "r.yaml", "train:\n  max_steps: 10\nmodel:\n  position:\n    max_len: 1025\n");
  CHECK_THAT(error_of(rope), Catch::Contains(rope + ":5") && Catch::Contains("position.type learned, not rope"));
  // a resolved config (every key at its default or the run's value) loads again
  const Config c = load_config(sinusoidal);
  CHECK_NOTHROW(parse_config_text(dump_config(c), "dump"));
}

TEST_CASE("embedding and position scales: parsed, range-checked, and rejected where they do nothing") {
  const auto dir = test::fresh_dir("config-scales");
  const auto sinusoidal = write(dir, "s.yaml",
                                "train:\n  max_steps: 10\nmodel:\n  embedding_scale: sqrt_d\n  position:\n"
                                "    type: sinusoidal\n    scale: 0.5\n");
  const Config c = load_config(sinusoidal);
  CHECK(c.model.embedding_scale == EmbeddingScale::sqrt_d);
  CHECK(c.model.position.number("scale") == 0.5);
  CHECK(load_config(sinusoidal, {"model.embedding_scale=1"}).model.embedding_scale == EmbeddingScale::one);
  CHECK(Config().model.embedding_scale == EmbeddingScale::one);  // other encodings' tokens stay BERT's
  CHECK(Config().model.position.number("scale") == 1.0);
  CHECK_THAT(error_of(sinusoidal, {"model.embedding_scale=16"}),
             Catch::Contains("model.embedding_scale") && Catch::Contains("sqrt_d"));
  CHECK_THAT(error_of(sinusoidal, {"model.position.scale=-0.1"}), Catch::Contains("model.position.scale"));
  CHECK_THAT(error_of(sinusoidal, {"model.position.type=rope"}),
             Catch::Contains("model.position.scale") && Catch::Contains("sinusoidal or learned, not rope"));
  CHECK_NOTHROW(parse_config_text(dump_config(c), "dump"));
}

TEST_CASE("position keys: original_max_len (yarn's, logn_scaling's) defaults to the run's data.max_len") {
  const auto dir = test::fresh_dir("config-original-max-len");
  const auto path = write(dir, "a.yaml", "train:\n  max_steps: 10\ndata:\n  max_len: 2048\n");
  CHECK(load_config(path).model.position.integer("original_max_len") == 2048);
  CHECK(load_config(path, {"model.position.original_max_len=300"}).model.position.integer("original_max_len") == 300);
  const Config c = load_config(path, {"model.position.scaling=yarn", "model.position.scaling_factor=4"});
  // the stored config keeps the training length when evaluation changes data.max_len
  CHECK(parse_config_text(dump_config(c), "dump", {"data.max_len=8192"}).model.position.integer("original_max_len") ==
        2048);
  // every encoding reads it (logn_scaling's training length), so alibi's follows data.max_len too
  const auto alibi =
      write(dir, "b.yaml", "train:\n  max_steps: 10\ndata:\n  max_len: 1024\nmodel:\n  position:\n    type: alibi\n");
  CHECK(load_config(alibi).model.position.integer("original_max_len") == 1024);
}

TEST_CASE("a learned table with cls pooling needs data.max_len + 1 rows, checked at load") {
  const auto dir = test::fresh_dir("config-learned-cls");
  const auto path = write(dir, "a.yaml",
                          "train:\n  max_steps: 10\ndata:\n  max_len: 512\nmodel:\n  pooling: cls\n  position:\n"
                          "    type: learned\n    max_len: 512\n");
  const std::string msg = error_of(path);
  CHECK_THAT(msg,
             Catch::Contains(path + ":9") && Catch::Contains("model.position.max_len") && Catch::Contains("needs 513"));
  CHECK(error_of(path, {"model.position.max_len=513"}).empty());
  CHECK_THAT(error_of(path, {"model.position.max_len=513", "data.eval_max_len=1024"}),
             Catch::Contains("data.eval_max_len = 1024") && Catch::Contains("needs 1025"));
}

TEST_CASE("randomized positions: max_positions holds the training window, checked at load, none rejects them") {
  const auto dir = test::fresh_dir("config-randomized");
  const auto path = write(dir, "a.yaml",
                          "train:\n  max_steps: 10\ndata:\n  max_len: 64\nmodel:\n  pooling: cls\n  position:\n"
                          "    randomized: true\n    max_positions: 64\n");
  CHECK_THAT(error_of(path), Catch::Contains(path + ":9") && Catch::Contains("model.position.max_positions") &&
                                 Catch::Contains("needs 65"));
  CHECK(error_of(path, {"model.position.max_positions=65"}).empty());
  // evaluation takes positions 0..N-1: longer evaluation windows need no more
  CHECK(error_of(path, {"model.position.max_positions=65", "data.eval_max_len=1024"}).empty());
  CHECK_THAT(error_of(path, {"model.position.type=none"}),
             Catch::Contains("model.position.max_positions") && Catch::Contains("not none"));
  CHECK_THAT(error_of(path, {"model.position.type=none", "model.position.max_positions=2048"}),
             Catch::Contains("model.position.randomized") && Catch::Contains("not none"));
  CHECK_THAT(
      error_of(path, {"model.position.type=learned", "model.position.max_positions=600", "model.position.max_len=513"}),
      Catch::Contains("model.position.max_len") && Catch::Contains("max_positions = 600"));
}

TEST_CASE("paths in a config file are relative to its folder, --set paths to the working directory") {
  const auto dir = test::fresh_dir("config-paths");
  std::filesystem::create_directories(dir / "configs");
  const std::string path =
      write(dir / "configs", "p.yaml",
            std::string(kValid) + "data:\n  train_path: ../data/train.jsonl\n  cache_dir: /abs/cache\n");
  const Config c = load_config(path, {"data.val_path=val.jsonl"});
  CHECK(c.data.train_path == (std::filesystem::canonical(dir) / "data" / "train.jsonl").string());
  CHECK(c.data.cache_dir == "/abs/cache");
  CHECK(c.data.val_path == (std::filesystem::current_path() / "val.jsonl").string());
  CHECK(c.data.test_path.empty());
  // The dump is absolute, so a run's config.yaml reads the same from anywhere.
  CHECK(parse_config_text(dump_config(c), "dump").data.train_path == c.data.train_path);
}

namespace {

// Runs a test body in `dir` as the working directory, and goes back after.
class WorkingDirectory {
 public:
  explicit WorkingDirectory(const std::filesystem::path& dir) : before_(std::filesystem::current_path()) {
    std::filesystem::current_path(dir);
  }
  ~WorkingDirectory() { std::filesystem::current_path(before_); }

 private:
  std::filesystem::path before_;
};

}  // namespace

TEST_CASE("a config named without a folder, as ./name or through a symlink resolves paths against its real folder") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::canonical(test::fresh_dir("config-bare-name"));
  fs::create_directories(dir / "configs");
  write(dir / "configs", "p.yaml", std::string(kValid) + "data:\n  train_path: ../data/train.jsonl\n");
  fs::create_symlink(dir / "configs" / "p.yaml", dir / "link.yaml");
  const std::string expected = (dir / "data" / "train.jsonl").string();
  const WorkingDirectory in_configs(dir / "configs");
  CHECK(load_config("p.yaml").data.train_path == expected);
  CHECK(load_config("./p.yaml").data.train_path == expected);
  CHECK(load_config("../link.yaml").data.train_path == expected);
  CHECK(load_config("p.yaml", {"data.test_path=../t.jsonl"}).data.test_path == (dir / "t.jsonl").string());
}

TEST_CASE("paths that name the same file in different spellings are not a config difference") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::canonical(test::fresh_dir("config-same-file"));
  fs::create_directories(dir / "data");
  std::ofstream(dir / "data" / "x.jsonl") << "{}\n";
  fs::create_symlink(dir / "data" / "x.jsonl", dir / "alias.jsonl");
  fs::create_directories(dir / "runs");
  const WorkingDirectory in_runs(dir / "runs");
  Config stored, given;
  stored.data.train_path = "../data/x.jsonl";  // stored by an older rotor, relative to the working directory
  for (const fs::path& same : {dir / "data" / "x.jsonl", dir / "alias.jsonl", dir / "runs/../data/./x.jsonl"}) {
    given.data.train_path = same.string();
    CHECK(differing_keys(stored, given).empty());
  }
  given.data.train_path = (dir / "data" / "y.jsonl").string();
  CHECK(differing_keys(stored, given) == std::vector<std::string>{"data.train_path"});
}

TEST_CASE("config numbers are dumped in their shortest round-trip form") {
  const std::string text = dump_config(Config());
  CHECK_THAT(text, Catch::Contains("norm_eps: 1e-05\n"));
  CHECK_THAT(text, Catch::Contains("lr: 0.0003\n"));
  CHECK_THAT(text, !Catch::Contains("00000000"));
}

TEST_CASE("ranges come from the schema rows, derived model keys cannot be set") {
  const auto dir = test::fresh_dir("config-rows");
  const std::string path = write(dir, "a.yaml", kValid);
  CHECK_THAT(error_of(path, {"train.beta2=1"}), Catch::Contains("--set: train.beta2: must be in [0, 1)"));
  CHECK_THAT(error_of(path, {"data.max_len=0"}), Catch::Contains("--set: data.max_len: must be >= 1"));
  CHECK_THAT(error_of(path, {"model.vocab_size=100"}),
             Catch::Contains("--set: model.vocab_size is derived from the data (the tokenizer's vocabulary)"));
  CHECK_THAT(error_of(path, {"model.num_classes=3"}), Catch::Contains("derived from the data (the training labels)"));
  CHECK(resumable_change("train.max_steps"));
  CHECK_FALSE(resumable_change("train.lr"));
  const ConfigOption* lr = find_option("train.lr");
  REQUIRE(lr != nullptr);
  CHECK(lr->range.violation(0.0) == "must be > 0");
  CHECK(lr->range.violation(1e-3).empty());
}

TEST_CASE("run.threads is bounded by 4 x this machine's cores, a stored config is not") {
  const auto dir = test::fresh_dir("config-threads");
  const auto path = write(dir, "a.yaml", "run:\n  threads: 100000\ntrain:\n  max_steps: 10\n");
  const std::string cores = std::to_string(std::max(1u, std::thread::hardware_concurrency()));
  const std::string msg = error_of(path);
  CHECK_THAT(msg, Catch::Contains(path + ":2: run.threads: 100000 is more than 4 x this machine's " + cores +
                                  " cores (at most " + std::to_string(4 * std::stoi(cores)) + ";"));
  CHECK(error_of(write(dir, "b.yaml", kValid), {"run.threads=" + std::to_string(4 * std::stoi(cores))}).empty());
  // A checkpoint's config may come from a larger machine: eval must still read it.
  CHECK(parse_config_text("run:\n  threads: 100000\ntrain:\n  max_steps: 10\n", "stored").run.threads == 100000);
}

TEST_CASE("a directory given as a config or by extends is named as a directory") {
  const auto dir = test::fresh_dir("config-directory");
  std::filesystem::create_directories(dir / "base");
  const auto path = write(dir, "a.yaml", "extends: base\ntrain:\n  max_steps: 10\n");
  CHECK(error_of(path) == (dir / "base").string() + ": is a directory, not a config file");
  CHECK(error_of((dir / "base").string()) == (dir / "base").string() + ": is a directory, not a config file");
}

TEST_CASE("YAML nested hundreds of levels deep names the file, the line and the depth") {
  const auto dir = test::fresh_dir("config-deep");
  std::string text = "train:\n  max_steps: " + std::string(600, '[') + std::string(600, ']') + "\n";
  const auto path = write(dir, "a.yaml", text);
  CHECK_THAT(error_of(path), Catch::StartsWith(path + ":2: invalid YAML: nested more than ") &&
                                 Catch::EndsWith(" levels deep (a config needs 3)"));
}

TEST_CASE("a warm-up longer than train.max_steps points at the line that set it") {
  const auto dir = test::fresh_dir("config-warmup");
  const auto path = write(dir, "a.yaml", "train:\n  max_steps: 190\n  warmup_steps: 200\n");
  CHECK_THAT(error_of(path), Catch::StartsWith(path + ":3: train.warmup_steps: 200 warm-up steps are longer than the "
                                                      "whole run of 190 steps (train.max_steps)"));
  CHECK(error_of(path, {"train.warmup_steps=19"}).empty());
  CHECK(load_config(write(dir, "b.yaml", "train:\n  max_steps: 4\n")).train.warmup_steps == 0);  // none by default
}

TEST_CASE("position keys: a list of numbers (LongRoPE's factors) parses, dumps and reads back, errors name the key") {
  const auto dir = test::fresh_dir("config-number-list");
  const std::string path = write(dir, "a.yaml",
                                 "train:\n  max_steps: 10\nmodel:\n  d_model: 64\n  heads: 4\n  position:\n"
                                 "    scaling: longrope\n    scaling_factor: 4\n"
                                 "    short_factors: [1, 1.25, 1.5, 2, 2, 2, 2, 2]\n"
                                 "    long_factors: [1, 2, 4, 8, 8, 8, 8, 8.5]\n");
  const Config c = load_config(path);
  CHECK(c.model.position.numbers("long_factors") == std::vector<double>{1, 2, 4, 8, 8, 8, 8, 8.5});
  const std::string text = dump_config(c);
  CHECK_THAT(text, Catch::Contains("long_factors: [1, 2, 4, 8, 8, 8, 8, 8.5]"));
  CHECK(differing_keys(parse_config_text(text, "dump"), c).empty());
  CHECK_THAT(error_of(path, {"model.position.short_factors=2"}),
             Catch::Contains("model.position.short_factors expects a list of numbers"));
  CHECK_THAT(error_of(path, {"model.position.short_factors=[1, a]"}),
             Catch::Contains("model.position.short_factors expects a list of numbers"));
  CHECK_THAT(error_of(path, {"model.position.short_factors=[1, 2]"}),
             Catch::Contains("model.position.short_factors: longrope needs one factor per rotated pair: 8"));
}
