#include "datasets/data_stats.h"

#include <algorithm>
#include <cstdio>
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
    ++s.docs_per_class[static_cast<size_t>(split.labels[d])];
    lengths.push_back(split.doc_length(d));
    if (split.doc_length(d) > max_len) ++s.longer_than_max_len;
  }
  s.tokens = length_stats(std::move(lengths));
  return s;
}

std::string DataStats::report() const {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "data %s: tokenizer %s (%d ids), %zu classes%s\n", source.c_str(), tokenizer.c_str(),
                vocab_size, classes.size(), from_cache ? ", from cache" : "");
  out += line;
  if (generated_attempts > 0) {
    int64_t docs = 0;
    for (const SplitStats& s : splits) docs += s.docs;
    std::snprintf(line, sizeof line, "  generated %lld samples from %lld draws (acceptance %.2f%%)\n",
                  static_cast<long long>(docs), static_cast<long long>(generated_attempts),
                  100.0 * static_cast<double>(docs) / static_cast<double>(generated_attempts));
    out += line;
  }
  if (invalid_utf8 > 0) {
    std::snprintf(line, sizeof line, "  %lld invalid UTF-8 sequences replaced by U+FFFD\n",
                  static_cast<long long>(invalid_utf8));
    out += line;
  }
  out += "  split      docs  windows    min    p10 median    p90    max  >max_len\n";
  for (const SplitStats& s : splits) {
    std::snprintf(line, sizeof line, "  %-8s %6lld %8lld %6lld %6lld %6lld %6lld %6lld %9lld\n", s.name.c_str(),
                  static_cast<long long>(s.docs), static_cast<long long>(s.windows),
                  static_cast<long long>(s.tokens.min), static_cast<long long>(s.tokens.p10),
                  static_cast<long long>(s.tokens.median), static_cast<long long>(s.tokens.p90),
                  static_cast<long long>(s.tokens.max), static_cast<long long>(s.longer_than_max_len));
    out += line;
  }
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
