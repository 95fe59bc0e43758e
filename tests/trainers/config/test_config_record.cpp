// Configs rotor records (a checkpoint's, a run directory's config.yaml, a study
// manifest's) and reads back: only the keys the run reads are written, and a
// record by an older build reads as the run it was (stored_config_upgrade.h).
#include <catch2/catch.hpp>
#include <sstream>

#include "config_test_support.h"
#include "tests/trainers/training/run_fixture.h"
#include "trainers/config/config_loader.h"
#include "trainers/config/stored_config_upgrade.h"

using namespace rotor;
using namespace rotor::config_test;

TEST_CASE("a config stored before the scale keys keeps the scales its run was trained with") {
  Config sinusoidal;
  sinusoidal.model.position.type = "sinusoidal";
  sinusoidal.train.max_steps = 10;
  // A checkpoint's config from before model.embedding_scale and model.position.scale existed.
  std::string old_dump;
  std::istringstream lines(dump_config(sinusoidal));
  for (std::string line; std::getline(lines, line);)
    if (line.find("embedding_scale:") == std::string::npos && line.find("  scale:") == std::string::npos)
      old_dump += line + "\n";
  REQUIRE(old_dump.find("scale:") == std::string::npos);
  const Config old = parse_config_text(upgrade_stored_config(old_dump), "stored");
  CHECK(old.model.embedding_scale == EmbeddingScale::sqrt_d);  // Vaswani's, as sinusoidal ran then
  CHECK(old.model.position.number("scale") == std::sqrt(0.5));
  CHECK(differing_keys(old, sinusoidal) == std::vector<std::string>{"model.embedding_scale", "model.position.scale"});
  // Configs stored with the keys, and other encodings' configs, are read as they are.
  CHECK(upgrade_stored_config(dump_config(sinusoidal)) == dump_config(sinusoidal));
  const std::string rope = dump_config(Config());  // read as text only
  std::string rope_old = rope;
  rope_old.erase(rope_old.find("  embedding_scale:"),
                 rope_old.find('\n', rope_old.find("  embedding_scale:")) - rope_old.find("  embedding_scale:") + 1);
  CHECK(upgrade_stored_config(rope_old) == rope_old);
}

TEST_CASE("a run records only its encoding's position keys, and reads past those older builds recorded for all") {
  Config rope;
  rope.train.max_steps = 10;
  const std::string dumped = dump_config(rope);
  CHECK_THAT(dumped,
             Catch::Contains("  base: ") && !Catch::Contains("num_buckets") && !Catch::Contains("max_distance"));
  // As builds before 2026-11-28 stored it, with T5's keys, one at a value that is no longer its default.
  std::string old = dumped;
  const size_t at = old.find("    type: rope\n");
  REQUIRE(at != std::string::npos);
  old.insert(at, "    num_buckets: 64\n    max_distance: 128\n");
  const StoredConfig stored = parse_stored_config(old, "stored", {});
  CHECK(differing_keys(stored.trained, rope).empty());
  CHECK(dump_config(stored.trained) == dumped);
  const auto dir = test::fresh_dir("config-recorded");
  CHECK(differing_keys(load_recorded_config(write(dir, "config.yaml", old)), rope).empty());
  // A config people write is held to the rule: another encoding's key, set, is an error.
  CHECK_THROWS_WITH(parse_config_text(old, "written"), Catch::Contains("model.position.num_buckets") &&
                                                           Catch::Contains("position.type t5_bias, not rope"));
  // Keys neither config reads do not count as a difference; a key one of them reads does.
  Config t5 = rope;
  t5.model.position.type = "t5_bias";
  CHECK(differing_keys(rope, t5) == std::vector<std::string>{"model.position.type"});
  t5.model.position.set("num_buckets", int64_t{64});
  CHECK(differing_keys(rope, t5) == std::vector<std::string>{"model.position.type", "model.position.num_buckets"});
}

TEST_CASE("a record of an interleaved model with the whole model's keys in its block (89cb934 to 1c7bb0f) reads") {
  Config irope;
  irope.train.max_steps = 10;
  irope.model.interleaved_position.every = 4;
  irope.model.interleaved_position.first = 3;
  const std::string dumped = dump_config(irope);
  std::string old = dumped;
  const size_t at = old.find("    type: none\n");
  REQUIRE(at != std::string::npos);
  old.insert(at, "    randomized: false\n    max_positions: 2048\n    logn_scaling: false\n");
  CHECK_THROWS_WITH(parse_config_text(old, "written"), Catch::Contains("unknown key 'model.interleaved_position."));
  const Config read = parse_stored_config(old, "stored", {}).trained;
  CHECK(differing_keys(read, irope).empty());
  CHECK(dump_config(read) == dumped);
}
