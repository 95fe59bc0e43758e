// Token caches shared by several writers, and caches that cannot be written
// (issue 11, defect 4).
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "datasets/data_error.h"
#include "datasets/dataset.h"
#include "datasets/token_cache.h"
#include "helpers.h"

using namespace rotor;

namespace {

CachedTokens tokens_of_size(size_t n) {
  CachedTokens t;
  t.tokenizer = "rotor-tokenizer byte\n";
  t.labels = {"a", "b"};
  TokenizedSplit s;
  s.name = "train";
  s.tokens.assign(n, 7);
  s.offsets = {0, static_cast<int64_t>(n)};
  s.labels = {1};
  t.splits.push_back(s);
  return t;
}

}  // namespace

TEST_CASE("token cache: concurrent writers of one file never fail and never leave a partial file",
          "[datasets][cache]") {
  test::TempDir dir;
  const std::string path = dir.path("cache/task-0123.tokens");
  // Different sizes per writer: interleaved writes to one file would show.
  std::vector<CachedTokens> tokens;
  for (size_t w = 0; w < 4; ++w) tokens.push_back(tokens_of_size(1000000 + 1000 * w));
  std::atomic<int> failures{0}, bad_reads{0};
  for (int round = 0; round < 15; ++round) {
    std::atomic<int> ready{0};
    std::vector<std::thread> writers;
    for (size_t w = 0; w < tokens.size(); ++w) {
      writers.emplace_back([&, w] {
        ++ready;
        while (ready < static_cast<int>(tokens.size())) std::this_thread::yield();  // start together
        try {
          save_token_cache(path, "key", tokens[w]);
        } catch (const DataError&) {
          ++failures;
        }
      });
    }
    for (std::thread& t : writers) t.join();
    if (!load_token_cache(path, "key")) ++bad_reads;  // whichever writer won, its file is whole
  }
  CHECK(failures == 0);
  CHECK(bad_reads == 0);
  int leftovers = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path("cache"))) leftovers += e.path() != path;
  CHECK(leftovers == 0);
}

TEST_CASE("token cache: a folder that cannot be written degrades to no cache with a warning", "[datasets][cache]") {
  test::TempDir dir;
  dir.write("train.jsonl", "{\"text\": \"red green\", \"label\": \"a\"}\n{\"text\": \"one two\", \"label\": \"b\"}\n");
  dir.write("eval.jsonl", "{\"text\": \"blue\", \"label\": \"a\"}\n{\"text\": \"three\", \"label\": \"b\"}\n");
  dir.write("blocker", "a file where the cache folder should be\n");
  DataConfig c;
  c.train_path = dir.path("train.jsonl");
  c.val_path = c.test_path = dir.path("eval.jsonl");
  c.tokenizer = TokenizerKind::vocab;
  c.cache_dir = dir.path("blocker/cache");  // cannot be created: its parent is a file
  std::vector<std::string> warnings;
  LoadOptions opt;
  opt.warn = [&](const std::string& w) { warnings.push_back(w); };
  const Dataset data = load_dataset(c, opt);
  CHECK_FALSE(data.stats.from_cache);
  REQUIRE(warnings.size() == 1);
  // The folder that cannot be made is named (under a read-only folder the file's open said "No such file").
  CHECK(warnings[0] == "token cache folder '" + dir.path("blocker/cache") +
                           "' is not writable: Not a directory; the data was tokenized without caching");
}
