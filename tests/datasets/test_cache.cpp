// The on-disk token cache: hit, miss, rebuild.
#include "datasets/dataset.h"
#include "datasets/token_cache.h"
#include "helpers.h"

#include <fstream>

using namespace rotor;

namespace {

const char* kCorpus =
    "{\"text\": \"red green blue\", \"label\": \"colour\"}\n"
    "{\"text\": \"one two three\", \"label\": \"number\"}\n"
    "{\"text\": \"cyan magenta\", \"label\": \"colour\"}\n"
    "{\"text\": \"four five\", \"label\": \"number\"}\n";

DataConfig cached_config(const test::TempDir& dir) {
  DataConfig c;
  c.train_path = dir.path("train.jsonl");
  c.val_path = c.test_path = dir.path("eval.jsonl");
  c.tokenizer = TokenizerKind::vocab;
  c.cache_dir = dir.path("cache");
  return c;
}

size_t cache_files(const test::TempDir& dir) {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path("cache"))) n += e.path().extension() == ".tokens";
  return n;
}

}  // namespace

TEST_CASE("token cache round-trips and rejects other keys and damage", "[datasets][cache]") {
  test::TempDir dir;
  CachedTokens t;
  t.tokenizer = "rotor-tokenizer byte\n";
  t.labels = {"a", "b"};
  t.invalid_utf8 = 2;
  t.invalid_utf8_at = "f:3";
  t.generated_attempts = 9;
  TokenizedSplit s;
  s.name = "train";
  s.add({5, 6, 7}, 1);
  s.add({8}, 0);
  t.splits = {s};
  const std::string path = dir.path("x.tokens");
  save_token_cache(path, "key1", t);
  const auto loaded = load_token_cache(path, "key1");
  REQUIRE(loaded.has_value());
  CHECK(loaded->tokenizer == t.tokenizer);
  CHECK(loaded->labels == t.labels);
  CHECK(loaded->invalid_utf8 == 2);
  CHECK(loaded->invalid_utf8_at == "f:3");
  CHECK(loaded->generated_attempts == 9);
  REQUIRE(loaded->splits.size() == 1);
  CHECK(loaded->splits[0].tokens == s.tokens);
  CHECK(loaded->splits[0].offsets == s.offsets);
  CHECK(loaded->splits[0].labels == s.labels);

  CHECK_FALSE(load_token_cache(path, "key2").has_value());
  CHECK_FALSE(load_token_cache(dir.path("missing.tokens"), "key1").has_value());
  const auto size = std::filesystem::file_size(path);
  std::filesystem::resize_file(path, size - 3);  // truncated
  CHECK_FALSE(load_token_cache(path, "key1").has_value());
  save_token_cache(path, "key1", t);
  std::ofstream(path, std::ios::app) << "junk";  // trailing bytes
  CHECK_FALSE(load_token_cache(path, "key1").has_value());
}

TEST_CASE("load_dataset reuses the cache and rebuilds it when a source or setting changes", "[datasets][cache]") {
  test::TempDir dir;
  dir.write("train.jsonl", kCorpus);
  dir.write("eval.jsonl", kCorpus);
  DataConfig c = cached_config(dir);

  const Dataset first = load_dataset(c);
  CHECK_FALSE(first.stats.from_cache);
  CHECK(cache_files(dir) == 1);
  const Dataset hit = load_dataset(c);
  CHECK(hit.stats.from_cache);
  CHECK(hit.stats.cache_path == first.stats.cache_path);
  CHECK(hit.split("train").tokens == first.split("train").tokens);
  CHECK(hit.tokenizer->save() == first.tokenizer->save());
  CHECK(hit.labels.names() == first.labels.names());

  // A changed source: a miss, then a new cache file.
  dir.write("eval.jsonl", std::string(kCorpus) + "{\"text\": \"six\", \"label\": \"number\"}\n");
  const Dataset changed = load_dataset(c);
  CHECK_FALSE(changed.stats.from_cache);
  CHECK(changed.split("val").num_docs() == 5);
  CHECK(cache_files(dir) == 2);
  CHECK(load_dataset(c).stats.from_cache);

  // A changed tokenizer setting: a miss too.
  c.min_freq = 2;
  CHECK_FALSE(load_dataset(c).stats.from_cache);
  CHECK(load_dataset(c).stats.from_cache);

  // Window and batch settings do not touch the tokens: still a hit.
  c.max_len = 3;
  c.batch_size = 2;
  c.seed = 99;
  CHECK(load_dataset(c).stats.from_cache);

  // A damaged cache file is rebuilt, not trusted.
  const std::string path = load_dataset(c).stats.cache_path;
  std::filesystem::resize_file(path, 10);
  const Dataset rebuilt = load_dataset(c);
  CHECK_FALSE(rebuilt.stats.from_cache);
  CHECK(load_dataset(c).stats.from_cache);

  c.cache = false;
  CHECK(load_dataset(c).stats.cache_path.empty());
}
