// model.interleaved_position in config files: its keys parse into the second
// encoding, errors name the file, line and key, its training-length keys take
// the run's data.max_len, and the record holds its keys only while it is on.
#include <yaml-cpp/yaml.h>
#include <catch2/catch.hpp>

#include "config_test_support.h"
#include "tests/trainers/training/run_fixture.h"
#include "trainers/config/config_loader.h"

using namespace rotor;
using namespace rotor::config_test;
using Catch::Matchers::Contains;

namespace {

const char* kIrope =
    "train:\n  max_steps: 10\ndata:\n  max_len: 96\nmodel:\n  layers: 4\n  position:\n    type: rope\n"
    "  interleaved_position:\n    every: 4\n    first: 3\n    type: none\n";

}  // namespace

TEST_CASE("interleaved position: a config file sets the second encoding and its keys") {
  const auto dir = test::fresh_dir("config-interleaved");
  const Config irope = load_config(write(dir, "irope.yaml", kIrope));
  CHECK(irope.model.interleaved_position.every == 4);
  CHECK(irope.model.interleaved_position.first == 3);
  CHECK(irope.model.position_of_layer(3).type == "none");
  CHECK(irope.model.position_of_layer(2).type == "rope");
  // Gemma-style global layers: RoPE at another base, its YaRN training length the run's data.max_len.
  const Config global =
      load_config(write(dir, "irope.yaml", kIrope),
                  {"model.interleaved_position.type=rope", "model.interleaved_position.base=1000000",
                   "model.interleaved_position.scaling=yarn", "model.interleaved_position.scaling_factor=4"});
  CHECK(global.model.interleaved_position.position.number("base") == 1e6);
  CHECK(global.model.interleaved_position.position.integer("original_max_len") == 96);
  CHECK(global.model.position.number("base") == 10000);
}

TEST_CASE("interleaved position: errors name the file, line and key") {
  const auto dir = test::fresh_dir("config-interleaved-errors");
  const std::string path = write(dir, "irope.yaml", kIrope);
  CHECK_THAT(error_of(path, {"model.interleaved_position.every=1"}),
             Contains("model.interleaved_position.every: 1 gives every layer this encoding"));
  CHECK_THAT(error_of(path, {"model.interleaved_position.type=sinusoidal"}),
             Contains("model.interleaved_position.type: sinusoidal adds its signal to the embeddings"));
  // The whole model's keys have no row here; the error points at theirs.
  CHECK_THAT(error_of(path, {"model.interleaved_position.randomized=true"}),
             Contains("unknown key 'model.interleaved_position.randomized' (did you mean "
                      "'model.position.randomized'?)"));
  CHECK_THAT(error_of(path, {"model.interleaved_position.base=500"}),
             Contains("model.interleaved_position.base: applies to position.type") && Contains("not none"));
  const std::string first = write(dir, "first.yaml", std::string(kIrope) + "    first: 9\n");
  CHECK_THAT(error_of(first), Contains("first.yaml") && Contains("model.interleaved_position.first"));
  const std::string off = write(dir, "off.yaml",
                                "train:\n  max_steps: 10\nmodel:\n  interleaved_position:\n"
                                "    type: alibi\n");
  CHECK_THAT(error_of(off),
             Contains("off.yaml") && Contains("model.interleaved_position.every") && Contains("0 (off)"));
}

TEST_CASE("interleaved position: the record holds its keys only while it is on, and reads back the same") {
  const auto dir = test::fresh_dir("config-interleaved-record");
  const YAML::Node plain = YAML::Load(dump_config(Config()));
  CHECK(plain["model"]["interleaved_position"]["every"].as<int64_t>() == 0);
  CHECK(plain["model"]["interleaved_position"].size() == 1);
  const Config irope = load_config(write(dir, "irope.yaml", kIrope), {"model.interleaved_position.type=alibi"});
  const std::string text = dump_config(irope);
  const YAML::Node dumped = YAML::Load(text);
  CHECK(dumped["model"]["interleaved_position"]["type"].as<std::string>() == "alibi");
  CHECK(dumped["model"]["interleaved_position"]["first"].as<int64_t>() == 3);
  CHECK_FALSE(dumped["model"]["interleaved_position"]["base"]);  // rope's key, not alibi's
  const Config back = parse_stored_config(text, "dump", {}).trained;
  CHECK(differing_keys(back, irope).empty());
  CHECK(dump_config(back) == text);
  CHECK(differing_keys(Config(), irope) ==
        std::vector<std::string>{"model.position.original_max_len", "model.interleaved_position.every",
                                 "model.interleaved_position.first", "model.interleaved_position.type",
                                 "model.interleaved_position.original_max_len", "data.max_len", "train.max_steps"});
}
