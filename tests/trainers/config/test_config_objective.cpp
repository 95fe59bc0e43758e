// train.objective: a language model's config refuses the keys that mean
// something to a classifier only, picks its best checkpoint by a metric its
// objective declares (the lowest validation loss unless set), and its dumped
// config leaves those keys out (so it loads back).
#include <catch2/catch.hpp>
#include <fstream>

#include "tests/trainers/training/run_fixture.h"
#include "trainers/config/config_loader.h"
#include "trainers/config/config_schema.h"
#include "trainers/config/objective_table.h"

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
  for (const char* key :
       {"model.pooling=cls", "data.truncation=tail", "data.shuffle_tokens=true", "data.eval_windows=all"}) {
    INFO(key);
    CHECK_THROWS_WITH(load_config(plain, {key}), Catch::Contains("applies to train.objective classify only"));
  }
  CHECK_NOTHROW(load_config(plain, {"train.objective=classify", "train.label_smoothing=0.1"}));
}

TEST_CASE("a language model keeps its lowest validation loss and dumps only the keys that apply to it") {
  const std::string path = config_file("objective-dump", "train:\n  objective: clm\n  max_steps: 10\n");
  const Config c = load_config(path);
  CHECK(c.train.objective == ObjectiveKind::clm);
  CHECK(c.train.best_metric == "loss");
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

TEST_CASE("train.best_metric takes any metric the objective declares, refusing others where they are set") {
  const std::string path =
      config_file("objective-best", "train:\n  objective: clm\n  max_steps: 10\n  best_metric: perplexity\n");
  const Config c = load_config(path);
  CHECK(c.train.best_metric == "perplexity");
  CHECK(best_metric_declaration(c.train).lower_is_better);
  CHECK_THAT(dump_config(c), Catch::Contains("best_metric: perplexity"));
  CHECK(load_config(path, {"train.best_metric=accuracy"}).train.best_metric == "accuracy");  // of the next token
  const std::string refused =
      config_file("objective-best-refused", "train:\n  objective: mlm\n  max_steps: 10\n  best_metric: macro_f1\n");
  CHECK_THROWS_WITH(load_config(refused),
                    Catch::Contains("a.yaml:4") &&
                        Catch::Contains("train.best_metric: 'macro_f1' is not a metric of train.objective mlm "
                                        "(expected one of: loss, perplexity, bits_per_token, accuracy)"));
  const std::string classifier = config_file("objective-best-classify", "train:\n  max_steps: 10\n");
  CHECK_THROWS_WITH(load_config(classifier, {"train.best_metric=perplexity"}),
                    Catch::Contains("--set: train.best_metric: 'perplexity' is not a metric of train.objective "
                                    "classify (expected one of: accuracy, macro_f1, loss)"));
  CHECK(load_config(classifier).train.best_metric == "accuracy");
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
  CHECK(mlm.train.best_metric == "loss");
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

TEST_CASE("the sequence objectives pick the best checkpoint by target tokens right unless told, and set the layout") {
  const std::string path = config_file("objective-sequence",
                                       "data:\n  task: reverse-string\ntrain:\n  objective: "
                                       "transduction\n  max_steps: 10\n");
  const Config transduction = load_config(path);
  CHECK(transduction.train.best_metric == "token_accuracy");
  CHECK_FALSE(best_metric_declaration(transduction.train).lower_is_better);
  CHECK(transduction.data.sequence_layout == SequenceLayout::queries);
  const Config completion = load_config(path, {"train.objective=completion"});
  CHECK(completion.train.best_metric == "token_accuracy");
  CHECK(completion.data.sequence_layout == SequenceLayout::prompt_answer);
  CHECK(load_config(path, {"train.best_metric=sequence_accuracy"}).train.best_metric == "sequence_accuracy");
  CHECK_THROWS_WITH(load_config(path, {"train.best_metric=exact_match"}),
                    Catch::Contains("train.best_metric: 'exact_match' is not a metric of train.objective "
                                    "transduction (expected one of: loss, token_accuracy, sequence_accuracy)"));
  CHECK_THROWS_WITH(load_config(path, {"train.label_smoothing=0.1"}),
                    Catch::Contains("applies to train.objective classify only; this config trains transduction"));
}

TEST_CASE("a sequence task and a sequence objective come together, refused at load naming both and the line") {
  const std::string sequence =
      config_file("objective-task", "data:\n  task: reverse-string\ntrain:\n  max_steps: 10\n");
  for (const char* objective : {"classify", "clm", "mlm"})
    CHECK_THROWS_WITH(load_config(sequence, {std::string("train.objective=") + objective}),
                      Catch::Contains("a.yaml:2: data.task: 'reverse-string' is a sequence task") &&
                          Catch::Contains(std::string("train.objective ") + objective + " does not read"));
  const std::string other =
      config_file("objective-task-other", "data:\n  task: listops-easy\ntrain:\n  max_steps: 10\n");
  CHECK_THROWS_WITH(load_config(other, {"train.objective=completion"}),
                    Catch::Contains("a.yaml:2: data.task: 'listops-easy' has no per-token targets, which "
                                    "train.objective completion trains on"));
  CHECK_NOTHROW(load_config(sequence, {"train.objective=completion"}));
}
