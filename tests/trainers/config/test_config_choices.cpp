// Enum options of the data, train and run sections: one name table each, so an
// unknown value is one ConfigError naming the key and "" keeps meaning
// "automatic"; DataConfig::validate's messages name the key; and every data key
// is marked as changing the tokens or not (the token-cache key).
#include <catch2/catch.hpp>
#include <fstream>
#include <set>

#include "config_test_support.h"
#include "datasets/token_options.h"
#include "tests/trainers/training/run_fixture.h"
#include "trainers/config/config_loader.h"
#include "trainers/config/config_schema.h"

using namespace rotor;
using namespace rotor::config_test;

namespace {

std::string valid_config(const std::string& name) {
  const std::string path = (test::fresh_dir(name) / "a.yaml").string();
  std::ofstream(path) << "train:\n  max_steps: 10\n";
  return path;
}

}  // namespace

TEST_CASE("an unknown value of an enum option is one ConfigError naming the key, never a fallback") {
  const std::string path = valid_config("config-choices-unknown");
  const std::pair<const char*, const char*> cases[] = {
      {"train.optimizer", "adamw, adam, sgd"},
      {"train.best_metric",
       "accuracy, macro_f1, loss, perplexity, bits_per_token, token_accuracy, sequence_accuracy, exact_match"},
      {"train.schedule", "constant, linear, cosine, inverse_sqrt"},
      {"run.progress", "auto, bar, lines, none"},
      {"data.format", "\"\", jsonl, csv, tsv, folder, text"},
      {"data.tokenizer", "\"\", byte, vocab, sentencepiece"},
      {"data.truncation", "head, tail, head_tail"},
      {"data.eval_windows", "first, all"},
      {"data.spm_model_type", "unigram, bpe"},
  };
  for (const auto& [key, names] : cases) {
    INFO(key);
    const std::string msg = error_of(path, {std::string(key) + "=bogus"});
    CHECK(msg == std::string("--set: ") + key + ": unknown value 'bogus' (expected one of: " + names + ")");
  }
  CHECK_THAT(error_of(path, {"train.optimizer=sdg"}), Catch::Contains("(did you mean 'sgd'?)"));
  CHECK_THAT(error_of(path, {"train.best_metric=macro-f1"}), Catch::Contains("(did you mean 'macro_f1'?)"));
}

TEST_CASE("enum options parse, dump and parse back by name, \"\" is the automatic format and tokenizer") {
  const std::string path = valid_config("config-choices-names");
  const Config defaults = load_config(path);
  CHECK(defaults.data.format == DataFormat::automatic);
  CHECK(defaults.data.tokenizer == TokenizerKind::automatic);
  CHECK(load_config(path, {"data.format=\"\"", "data.tokenizer=\"\""}).data.tokenizer == TokenizerKind::automatic);
  const Config c =
      load_config(path, {"train.optimizer=sgd", "train.best_metric=loss", "train.schedule=inverse_sqrt",
                         "train.warmup_steps=2", "run.progress=none", "data.format=tsv", "data.tokenizer=sentencepiece",
                         "data.spm_model_type=bpe", "data.truncation=head_tail", "data.eval_windows=all"});
  CHECK(c.train.optimizer == OptimizerKind::sgd);
  CHECK(c.train.best_metric == "loss");
  CHECK(c.train.schedule == LrSchedule::Kind::inverse_sqrt);
  CHECK(c.run.progress == ProgressMode::none);
  CHECK(c.data.format == DataFormat::tsv);
  CHECK(c.data.spm_model_type == SpmModelType::bpe);
  CHECK(c.data.truncation == Truncation::head_tail);
  CHECK(c.data.eval_windows == EvalWindows::all);
  const std::string text = dump_config(c);
  CHECK_THAT(text, Catch::Contains("optimizer: sgd") && Catch::Contains("progress: none"));
  CHECK(differing_keys(parse_config_text(text, "dump"), c).empty());
  // A stored config writes the automatic choices as "" and reads them back as such.
  CHECK_THAT(dump_config(defaults), Catch::Contains("format: \"\"") && Catch::Contains("tokenizer: \"\""));
  CHECK(parse_config_text(dump_config(defaults), "dump").data.format == DataFormat::automatic);
}

TEST_CASE("data rules name the data key and the line that set it") {
  const std::string path = valid_config("config-choices-data-rules");
  CHECK(error_of(path, {"data.lowercase=true"}) ==
        "--set: data.lowercase: applies to the vocab tokenizer only (tokenizer is byte)");
  CHECK(error_of(path, {"data.val_fraction=0.5", "data.test_fraction=0.5"}) ==
        "--set: data.val_fraction: val_fraction + test_fraction must be in [0, 1)");
  CHECK(error_of(path, {"data.lowercase=true", "data.tokenizer=vocab"}).empty());
}

TEST_CASE("a sequence task is a data.task: a misspelt one is a did-you-mean, a too short min_len names the key") {
  const std::string path = valid_config("config-choices-sequence-task");
  CHECK_THAT(error_of(path, {"data.task=revers-string"}), Catch::Contains("(did you mean 'reverse-string'?)"));
  CHECK(error_of(path, {"data.task=solve-equation", "train.objective=transduction", "data.generated.min_len=2"}) ==
        "--set: data.generated.min_len: task 'solve-equation' is defined for inputs of at least 3 symbols, got 2");
  // The default objective classifies documents: a sequence task's targets are per token.
  CHECK_THAT(error_of(path, {"data.task=reverse-string"}),
             Catch::Contains("data.task: 'reverse-string' is a sequence task"));
  CHECK_THAT(error_of(path, {"data.task=reverse-string", "train.objective=clm"}),
             Catch::Contains("data.task: 'reverse-string' is a sequence task"));
  CHECK(error_of(path, {"data.task=reverse-string", "train.objective=transduction"}).empty());
}

TEST_CASE("every data key of the schema is marked as changing the tokens or not") {
  std::set<std::string> schema, marked;
  for (const ConfigOption& o : config_options())
    if (o.key.rfind("data.", 0) == 0) schema.insert(o.key.substr(5));
  for (const DataOptionEffect& o : data_option_effects()) marked.insert(o.key);
  CHECK(schema == marked);
}

TEST_CASE("MPI reduction tuning is the run section's, range-checked and free to change on resume") {
  const std::string path = valid_config("config-choices-mpi");
  const Config c = load_config(path, {"run.mpi_overlap=false", "run.mpi_bucket_bytes=2048"});
  CHECK_FALSE(c.run.mpi_overlap);
  CHECK(c.run.mpi_bucket_bytes == 2048);
  CHECK_THAT(error_of(path, {"run.mpi_bucket_bytes=0"}), Catch::Contains("--set: run.mpi_bucket_bytes: must be"));
  CHECK(resumable_change("run.mpi_overlap"));
  CHECK(resumable_change("run.mpi_bucket_bytes"));
}
