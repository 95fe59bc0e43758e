// train.objective: a language model's config refuses the keys that mean
// something to a classifier only, fixes its best checkpoint to the lowest
// validation loss, and its dumped config leaves those keys out (so it loads back).
#include <catch2/catch.hpp>
#include <fstream>

#include "tests/trainers/training/run_fixture.h"
#include "trainers/config/config_loader.h"
#include "trainers/config/config_schema.h"

using namespace rotor;

namespace {

std::string config_file(const std::string& name, const std::string& text) {
  const std::string path = (test::fresh_dir(name) / "a.yaml").string();
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("a language model's config refuses classifier keys, naming the key, the line and the objective") {
  const std::string path =
      config_file("objective-keys", "train:\n  objective: clm\n  max_steps: 10\n  label_smoothing: 0.1\n");
  CHECK_THROWS_WITH(load_config(path),
                    Catch::Contains("a.yaml:4") &&
                        Catch::Contains("train.label_smoothing applies to train.objective classify only; this "
                                        "config trains clm"));
  const std::string plain = config_file("objective-keys-set", "train:\n  objective: clm\n  max_steps: 10\n");
  for (const char* key : {"model.pooling=cls", "data.truncation=tail", "train.best_metric=accuracy",
                          "data.shuffle_tokens=true", "data.eval_windows=all"}) {
    INFO(key);
    CHECK_THROWS_WITH(load_config(plain, {key}), Catch::Contains("applies to train.objective classify only"));
  }
  CHECK_NOTHROW(load_config(plain, {"train.objective=classify", "train.label_smoothing=0.1"}));
}

TEST_CASE("a language model keeps its lowest validation loss and dumps only the keys that apply to it") {
  const std::string path = config_file("objective-dump", "train:\n  objective: clm\n  max_steps: 10\n");
  const Config c = load_config(path);
  CHECK(c.train.objective == ObjectiveKind::clm);
  CHECK(c.train.best_metric == BestMetric::loss);
  const std::string dumped = dump_config(c);
  CHECK_THAT(dumped, Catch::Contains("objective: clm"));
  for (const ConfigOption& o : config_options()) {
    const std::string leaf = o.key.substr(o.key.rfind('.') + 1) + ":";
    if (!applies_to(o, ObjectiveKind::clm)) CHECK_THAT(dumped, !Catch::Contains(" " + leaf));  // the leaves are unique
  }
  const Config back = parse_config_text(dumped, "dumped");
  CHECK(differing_keys(c, back).empty());
  // A classifier's dump keeps every key.
  const Config classifier = load_config(path, {"train.objective=classify"});
  CHECK_THAT(dump_config(classifier), Catch::Contains("label_smoothing:"));
}

TEST_CASE("train.mask_probability applies to mlm only and lies in (0, 1), and an MLM config dumps it") {
  const std::string path = config_file("objective-mask", "train:\n  objective: clm\n  mask_probability: 0.2\n");
  CHECK_THROWS_WITH(load_config(path),
                    Catch::Contains("a.yaml:3") &&
                        Catch::Contains("train.mask_probability applies to train.objective mlm only; this config "
                                        "trains clm"));
  const std::string plain = config_file("objective-mask-set", "train:\n  max_steps: 10\n");
  CHECK_THROWS_WITH(load_config(plain, {"train.mask_probability=0.2"}),
                    Catch::Contains("applies to train.objective mlm only; this config trains classify"));
  for (const char* bad : {"0", "1", "1.5"})
    CHECK_THROWS_WITH(load_config(plain, {"train.objective=mlm", std::string("train.mask_probability=") + bad}),
                      Catch::Contains("train.mask_probability"));
  const Config mlm = load_config(plain, {"train.objective=mlm", "train.mask_probability=0.3"});
  CHECK(mlm.train.mask_probability == 0.3);
  CHECK(mlm.train.best_metric == BestMetric::loss);
  CHECK_FALSE(mlm.data.labelled);
  const std::string dumped = dump_config(mlm);
  CHECK_THAT(dumped, Catch::Contains("mask_probability: 0.3") && !Catch::Contains("label_smoothing:"));
  CHECK(differing_keys(mlm, parse_config_text(dumped, "dumped")).empty());
  CHECK_THAT(dump_config(load_config(plain)), !Catch::Contains("mask_probability"));
}

TEST_CASE("data.lm_blocks applies to language models only and names its choices") {
  const std::string plain = config_file("objective-lm-blocks", "train:\n  max_steps: 10\n");
  CHECK_THROWS_WITH(load_config(plain, {"data.lm_blocks=document"}),
                    Catch::Contains("data.lm_blocks applies to train.objective clm or mlm only; this config trains "
                                    "classify"));
  CHECK_THROWS_WITH(load_config(plain, {"train.objective=clm", "data.lm_blocks=sentence"}),
                    Catch::Contains("data.lm_blocks") && Catch::Contains("stream, document"));
  for (const char* objective : {"clm", "mlm"}) {
    const Config c = load_config(plain, {std::string("train.objective=") + objective, "data.lm_blocks=document"});
    CHECK(c.data.lm_blocks == BlockPacking::document);
    CHECK_THAT(dump_config(c), Catch::Contains("lm_blocks: document"));
  }
  CHECK(load_config(plain, {"train.objective=clm"}).data.lm_blocks == BlockPacking::stream);
}
