#pragma once
// On-disk cache of tokenized datasets. A cache file is named and checked by a
// key: the SHA-1 of everything the tokens depend on (the source files'
// contents, the reader and tokenizer settings, the generator config). When
// nothing changed the tokens are reloaded instead of read, trained and
// encoded again; any change gives another key, so the dataset is rebuilt.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "datasets/sha1.h"
#include "datasets/tokenized_split.h"

namespace rotor {

// Accumulates what a cached dataset depends on.
class CacheKey {
 public:
  // A named setting; names keep "a"+"bc" from colliding with "ab"+"c".
  void add(std::string_view name, std::string_view value);
  // A named value given by its SHA-1 (hex): the same key as add(name, value).
  void add_hashed(std::string_view name, std::string_view value_sha1);
  std::string hex();

 private:
  Sha1 sha_;
};

// What a cache file holds: the outcome of loading a dataset.
struct CachedTokens {
  std::string tokenizer;            // Tokenizer::save()
  std::vector<std::string> labels;  // class names by index
  std::vector<TokenizedSplit> splits;
  int64_t invalid_utf8 = 0;        // U+FFFD repairs made while reading
  std::string invalid_utf8_at;     // "file:line" of the first repair
  int64_t generated_attempts = 0;  // ListOps trees drawn (0 for files)
};

// Path of the cache file for `name` (a task or file stem) under `dir`.
std::string token_cache_path(const std::string& dir, const std::string& name, const std::string& key);

// The cached tokens, or nullopt if the file is missing, holds another key,
// or is damaged (a damaged cache is rebuilt, never trusted).
std::optional<CachedTokens> load_token_cache(const std::string& path, const std::string& key);

// Writes atomically (a temporary file unique to this writer, then rename),
// creating `path`'s folder. Throws DataError if the file cannot be written;
// load_dataset then warns and goes on without the cache.
void save_token_cache(const std::string& path, const std::string& key, const CachedTokens& tokens);

}  // namespace rotor
