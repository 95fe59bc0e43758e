#pragma once
// What a loaded dataset looks like: documents per split and class, and length
// percentiles, for the trainer to print when a dataset is loaded.
#include <cstdint>
#include <string>
#include <vector>

#include "datasets/tokenized_split.h"

namespace rotor {

// Nearest-rank percentiles of document lengths in tokens.
struct LengthStats {
  int64_t min = 0, p10 = 0, median = 0, p90 = 0, max = 0;
  double mean = 0.0;
};

struct SplitStats {
  std::string name;
  int64_t docs = 0;
  std::vector<int64_t> docs_per_class;  // by class index
  LengthStats tokens;
  int64_t longer_than_max_len = 0;  // documents cut into windows or truncated
  int64_t windows = 0;              // windows per epoch of this split's sampler

  // Share of the documents in the most frequent class: the accuracy of always
  // predicting it (0 for an empty split).
  double majority_rate() const;
};

struct DataStats {
  std::string source;     // task name or training file
  std::string tokenizer;  // "byte", "vocab" or "sentencepiece"
  int32_t vocab_size = 0;
  std::vector<std::string> classes;
  std::vector<SplitStats> splits;
  int64_t invalid_utf8 = 0;        // sequences replaced by U+FFFD while reading
  int64_t generated_attempts = 0;  // ListOps trees drawn; docs / attempts = acceptance
  bool from_cache = false;
  std::string cache_path;  // empty when caching is off

  // A few lines of text: one row per split (with its majority-class rate),
  // then the class counts.
  std::string report() const;
};

LengthStats length_stats(std::vector<int64_t> lengths);

// Counts of `split`; `max_len` decides longer_than_max_len, `windows` is the
// number of windows its sampler produces.
SplitStats split_stats(const TokenizedSplit& split, int32_t num_classes, int64_t max_len, int64_t windows);

}  // namespace rotor
