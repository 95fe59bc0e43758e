#include "datasets/data_stats.h"

#include <fmt/core.h>

#include <algorithm>
#include <numeric>

namespace rotor {
namespace {

int64_t nearest_rank(const std::vector<int64_t>& sorted, double q) {
  const auto rank = static_cast<size_t>(q * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(rank, sorted.size() - 1)];
}

}  // namespace

LengthStats length_stats(std::vector<int64_t> lengths) {
  LengthStats s;
  if (lengths.empty()) return s;
  std::sort(lengths.begin(), lengths.end());
  s.min = lengths.front();
  s.max = lengths.back();
  s.p10 = nearest_rank(lengths, 0.1);
  s.median = nearest_rank(lengths, 0.5);
  s.p90 = nearest_rank(lengths, 0.9);
  s.mean = static_cast<double>(std::accumulate(lengths.begin(), lengths.end(), int64_t{0})) /
           static_cast<double>(lengths.size());
  return s;
}

SplitStats split_stats(const TokenizedSplit& split, int32_t num_classes, int64_t max_len, int64_t windows) {
  SplitStats s;
  s.name = split.name;
  s.docs = split.num_docs();
  s.windows = windows;
  s.docs_per_class.assign(static_cast<size_t>(num_classes), 0);
  std::vector<int64_t> lengths;
  for (int64_t d = 0; d < split.num_docs(); ++d) {
    if (num_classes > 0) ++s.docs_per_class[static_cast<size_t>(split.labels[d])];  // 0: unlabelled
    lengths.push_back(split.doc_length(d));
    if (split.doc_length(d) > max_len) ++s.longer_than_max_len;
  }
  s.tokens = length_stats(std::move(lengths));
  return s;
}

double SplitStats::majority_rate() const {
  if (docs == 0 || docs_per_class.empty()) return 0.0;
  return static_cast<double>(*std::max_element(docs_per_class.begin(), docs_per_class.end())) /
         static_cast<double>(docs);
}

std::string DataStats::report() const {
  const std::string classes_text = classes.empty() ? "unlabelled" : fmt::format("{} classes", classes.size());
  std::string out = fmt::format("data {}: tokenizer {} ({} ids), {}\n", source, tokenizer, vocab_size, classes_text);
  if (!cache_path.empty())
    out += fmt::format("  token cache: {} ({})\n", cache_path, from_cache ? "reused" : "written");
  if (generated_attempts > 0) {
    int64_t docs = 0;
    for (const SplitStats& s : splits) docs += s.docs;
    out += fmt::format("  generated {} samples from {} draws (acceptance {:.2f}%)\n", docs, generated_attempts,
                       100.0 * static_cast<double>(docs) / static_cast<double>(generated_attempts));
  }
  if (invalid_utf8 > 0) {
    out += fmt::format("  {} invalid UTF-8 sequences replaced by U+FFFD\n", invalid_utf8);
  }
  out += fmt::format("  {:<9} {:>6} {:>8} {:>6} {:>6} {:>6} {:>6} {:>6} {:>9} {:>9}\n", "split", "docs", "windows",
                     "min", "p10", "median", "p90", "max", ">max_len", "majority");
  for (const SplitStats& s : splits) {
    out += fmt::format("  {:<9} {:>6} {:>8} {:>6} {:>6} {:>6} {:>6} {:>6} {:>9} {:>8.1f}%\n", s.name, s.docs, s.windows,
                       s.tokens.min, s.tokens.p10, s.tokens.median, s.tokens.p90, s.tokens.max, s.longer_than_max_len,
                       100.0 * s.majority_rate());
  }
  if (classes.empty()) return out;
  out += "  docs per class (";
  for (size_t i = 0; i < splits.size(); ++i) out += (i ? "/" : "") + splits[i].name;
  out += "):\n";
  for (size_t c = 0; c < classes.size(); ++c) {
    out += "    " + classes[c] + ":";
    for (size_t i = 0; i < splits.size(); ++i) out += (i ? "/" : " ") + std::to_string(splits[i].docs_per_class[c]);
    out += "\n";
  }
  return out;
}

}  // namespace rotor
