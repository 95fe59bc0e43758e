// model.init_from: a fine-tune starts from a pre-trained encoder and a fresh
// head, records its source, refuses an encoder of another shape or kind, and
// resumes from its own checkpoints without reading the source again.
#include <catch2/catch.hpp>
#include <cstring>

#include <fmt/core.h>

#include "datasets/tokenizer.h"
#include "models/encoder_classifier.h"
#include "storage/checkpoint.h"
#include "storage/checkpoint_directory.h"
#include "tests/trainers/study/study_fixture.h"
#include "trainers/config/config_loader.h"
#include "trainers/run/run_summary.h"
#include "trainers/study/study_spec.h"
#include "trainers/training/data_dimensions.h"
#include "trainers/training/pretrained_encoder.h"
#include "trainers/training/trainer.h"

using namespace rotor;
namespace fs = std::filesystem;

namespace {

bool same_f32_bits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.dtype() == DType::F32 && b.dtype() == DType::F32 &&
         std::memcmp(a.data<float>(), b.data<float>(), static_cast<size_t>(a.numel()) * sizeof(float)) == 0;
}

double max_difference(const Tensor& a, const Tensor& b) {
  double most = 0;
  for (int64_t i = 0; i < a.numel(); ++i)
    most = std::max(most, std::abs(double(a.data<float>()[i]) - b.data<float>()[i]));
  return most;
}

// A short pre-training run (a causal LM unless `overrides` say otherwise) in DIR/source.
fs::path pretrain(const fs::path& dir, const std::string& config,
                  std::vector<std::string> overrides = {"train.objective=clm"}) {
  overrides.push_back("train.max_steps=8");
  const fs::path source = dir / "source";
  REQUIRE(train(TrainRequest{config, overrides, "", source.string()}) == 0);
  return source;
}

Config fine_tune_config(const std::string& config, const fs::path& source, std::vector<std::string> overrides = {}) {
  overrides.push_back("model.init_from=" + source.string());
  return load_config(config, overrides);
}

// The fine-tune's classifier as the trainer builds it, before its first update.
std::unique_ptr<EncoderClassifier> classifier(Config& config, const PretrainedEncoder* source) {
  set_data_dimensions(config.model, *source->header.loaded_tokenizer, 10);
  auto model = std::make_unique<EncoderClassifier>(config.model);
  model->initialize(config.run.seed);
  if (source) load_pretrained_encoder(*source, config, *model);
  return model;
}

// The encoder equals the source's, bit for bit; the head is what a fresh model draws.
void check_encoder_from(const PretrainedEncoder& source, Config config) {
  const auto tuned = classifier(config, &source);
  Config plain = config;
  plain.init_from = {};
  const auto fresh = classifier(plain, &source);  // (source only for the dimensions)
  const std::vector<std::string> encoder = tuned->encoder_parameters();
  for (const ParameterInfo& p : tuned->parameters().infos()) {
    INFO(p.name);
    const Tensor value = tuned->parameters().value(tuned->parameters().id(p.name));
    const bool in_encoder = std::find(encoder.begin(), encoder.end(), p.name) != encoder.end();
    const auto saved = source.contents.tensors.find("model/" + p.name);
    if (in_encoder && saved != source.contents.tensors.end())
      CHECK(same_f32_bits(value, saved->second));
    else
      CHECK(same_f32_bits(value, fresh->parameters().value(fresh->parameters().id(p.name))));
  }
  CHECK(std::find(encoder.begin(), encoder.end(), "head.weight") == encoder.end());
  CHECK(std::find(encoder.begin(), encoder.end(), "embed.tokens.weight") != encoder.end());
}

}  // namespace

TEST_CASE("init_from: a classifier starts from a causal LM's encoder and a fresh head", "[init_from]") {
  const auto dir = test::fresh_dir("init-from-clm");
  const std::string config = test::tiny_run_config(dir);
  const fs::path source = pretrain(dir, config);
  for (const std::string pooling : {"mean", "cls"}) {  // with cls: the [CLS] vector the LM lacks starts fresh
    const Config c = fine_tune_config(config, source, {"model.pooling=" + pooling});
    check_encoder_from(read_pretrained_encoder(c), c);
  }

  // The trainer loads it: after 8 steps at lr 1e-6 the encoder is still the source's, to within the steps taken.
  const std::string best = resolve_training_checkpoint(source.string(), nullptr).path;
  const CheckpointContents pre = read_checkpoint(best);
  const std::string checksum = fmt::format("fnv1a64:{:016x}", content_checksum(pre));
  REQUIRE(train(TrainRequest{config,
                             {"model.init_from=" + source.string(), "train.lr=1e-6", "train.max_steps=8"},
                             "",
                             (dir / "tuned").string()}) == 0);
  const CheckpointContents tuned = read_checkpoint((dir / "tuned" / "checkpoints" / "step-00000008.h5").string());
  CHECK(max_difference(tuned.tensors.at("model/layers.0.attn.q.weight"),
                       pre.tensors.at("model/layers.0.attn.q.weight")) < 1e-4);
  CHECK(max_difference(tuned.tensors.at("model/embed.tokens.weight"), pre.tensors.at("model/embed.tokens.weight")) <
        1e-4);

  const std::string yaml = test::read_text(dir / "tuned" / "config.yaml");
  CHECK(yaml.find("init_from: " + best) != std::string::npos);
  CHECK(yaml.find("init_from_checksum: " + checksum) != std::string::npos);
  const RunSummary summary = read_run_summary((dir / "tuned" / "summary.json").string());
  CHECK(summary.init_from.checkpoint == best);
  CHECK(summary.init_from.checksum == checksum);
  CHECK(read_run_summary((source / "summary.json").string()).init_from.checkpoint.empty());
}

TEST_CASE("init_from: a classifier checkpoint is a source too (its encoder only)", "[init_from]") {
  const auto dir = test::fresh_dir("init-from-classifier");
  const std::string config = test::tiny_run_config(dir);
  const fs::path source = pretrain(dir, config, {"model.pooling=cls"});
  const Config c = fine_tune_config(config, source, {"model.pooling=cls", "run.seed=9"});
  check_encoder_from(read_pretrained_encoder(c), c);
}

TEST_CASE("init_from: mismatches, a missing or damaged source and a wrong checksum are errors naming both values",
          "[init_from]") {
  const auto dir = test::fresh_dir("init-from-errors");
  const std::string config = test::tiny_run_config(dir);
  const fs::path source = pretrain(dir, config);
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"model.d_model=32", "model.d_model is 16", "but 32"},
      {"model.layers=2", "model.layers is 1", "but 2"},
      {"model.heads=4", "model.heads is 2", "but 4"},
      {"model.d_ff=64", "model.d_ff is 32", "but 64"},
      {"model.position.type=alibi", "model.position.type is rope", "but alibi"},
      {"model.attention=linear", "model.attention is softmax", "but linear"},
      {"model.norm=post", "model.norm is pre", "but post"},
      {"data.tokenizer=byte", "data.tokenizer: this run sets byte", "trained with the vocab tokenizer"},
      {"model.init_from_checksum=fnv1a64:0000000000000000", "expects fnv1a64:0000000000000000", "has fnv1a64:"},
  };
  for (const auto& [override_, first, second] : cases) {
    INFO(override_);
    const Config c = fine_tune_config(config, source, {override_});
    CHECK_THROWS_WITH(read_pretrained_encoder(c), Catch::Contains(first) && Catch::Contains(second));
  }
  CHECK_THROWS_WITH(read_pretrained_encoder(fine_tune_config(config, dir / "nowhere")),
                    Catch::Contains("model.init_from") && Catch::Contains("nowhere"));
  const std::string best = resolve_training_checkpoint(source.string(), nullptr).path;
  const fs::path damaged = dir / "damaged.h5";
  fs::copy_file(best, damaged);
  {
    std::fstream f(damaged, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(2000);
    f.put('\x5a');
  }
  CHECK_THROWS_WITH(read_pretrained_encoder(fine_tune_config(config, damaged)), Catch::Contains("damaged.h5"));
}

// A learned table's rows follow model.position.max_len: the error names the key and both values.
TEST_CASE("init_from: a position table of another length names the model.position key", "[init_from]") {
  const auto dir = test::fresh_dir("init-from-table");
  const std::string config = test::tiny_run_config(dir);
  const fs::path source = pretrain(dir, config, {"train.objective=clm", "model.position.type=learned"});
  Config c = fine_tune_config(config, source, {"model.position.type=learned", "model.position.max_len=64"});
  const PretrainedEncoder pre = read_pretrained_encoder(c);
  CHECK_THROWS_WITH(classifier(c, &pre),
                    Catch::Contains("embed.positions.weight") &&
                        Catch::Contains("model.position.max_len 512 (pre-trained) / 64 (this run)"));
}

TEST_CASE("init_from: a resumed fine-tune is bit-identical and does not read the source again", "[init_from][resume]") {
  const auto dir = test::fresh_dir("init-from-resume");
  const std::string config = test::tiny_run_config(dir);
  const fs::path source = pretrain(dir, config);
  const std::vector<std::string> overrides = {"model.init_from=" + source.string()};
  REQUIRE(train(TrainRequest{config, overrides, "", (dir / "straight").string()}) == 0);
  TrainRequest first_half{config, overrides, "", (dir / "resumed").string()};
  first_half.stop_after = 12;
  REQUIRE(train(first_half) == 0);
  fs::rename(source, dir / "moved");  // the source is gone: resuming must not need it
  REQUIRE(train(TrainRequest{config, overrides, "auto", (dir / "resumed").string()}) == 0);
  CHECK(test::deterministic_metrics(dir / "straight") == test::deterministic_metrics(dir / "resumed"));
  const auto a = read_checkpoint((dir / "straight" / "checkpoints" / "step-00000024.h5").string());
  const auto b = read_checkpoint((dir / "resumed" / "checkpoints" / "step-00000024.h5").string());
  for (const auto& [key, t] : a.tensors) {
    INFO(key);
    CHECK(same_f32_bits(t, b.tensors.at(key)));
  }
  CHECK(a.texts.at("config") == b.texts.at("config"));  // the record of the source, kept
  CHECK(test::read_text(dir / "straight" / "summary.json").find("init_from_checksum") != std::string::npos);
}

TEST_CASE("init_from: a study variant sets its own pre-trained encoder, or none", "[init_from][study]") {
  const auto dir = test::fresh_dir("init-from-study");
  const std::string path = test::tiny_study_spec(dir,
                                                 "set: {model.init_from: pre/default}\nseeds: [1]\nvariants:\n"
                                                 "  - name: tuned\n    set: {model.init_from: pre/rope}\n"
                                                 "  - name: shared\n    set: {model.position.type: rope}\n"
                                                 "  - name: scratch\n    set: {model.init_from: \"\"}\n");
  const StudySpec spec = parse_study_spec(path);
  REQUIRE(spec.variants.size() == 3);
  const fs::path folder = fs::weakly_canonical(dir);
  CHECK(spec.variants[0].config.init_from.checkpoint == (folder / "pre" / "rope").string());
  CHECK(spec.variants[1].config.init_from.checkpoint == (folder / "pre" / "default").string());
  CHECK(spec.variants[2].config.init_from.checkpoint.empty());
}
