#include "datasets/vocab_tokenizer.h"

#include <algorithm>

#include "datasets/data_error.h"

namespace rotor {

VocabTokenizer::VocabTokenizer(std::vector<std::string> tokens) : tokens_(std::move(tokens)) {
  for (size_t i = 0; i < tokens_.size(); ++i) {
    const std::string& t = tokens_[i];
    if (t.empty() || t.find_first_of(" \t\n\r\f\v") != std::string::npos) {
      throw DataError("vocab tokenizer: token " + std::to_string(i) + " is empty or holds whitespace");
    }
    if (!ids_.emplace(t, kNumSpecial + static_cast<int32_t>(i)).second) {
      throw DataError("vocab tokenizer: duplicate token '" + t + "'");
    }
  }
}

std::unique_ptr<VocabTokenizer> VocabTokenizer::train(const std::vector<std::string_view>& texts, int64_t max_size,
                                                      int64_t min_freq) {
  std::unordered_map<std::string, int64_t> counts;
  for (std::string_view text : texts) for_each_word(text, [&](std::string_view w) { ++counts[std::string(w)]; });
  std::vector<std::pair<std::string, int64_t>> kept;
  for (auto& entry : counts) {
    if (entry.second >= min_freq) kept.emplace_back(entry.first, entry.second);
  }
  std::sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  if (max_size > 0) {
    if (max_size <= kNumSpecial) {
      throw DataError("vocab_size: expected more than " + std::to_string(kNumSpecial) + " (the special tokens), got " +
                      std::to_string(max_size));
    }
    kept.resize(std::min<size_t>(kept.size(), static_cast<size_t>(max_size - kNumSpecial)));
  }
  std::vector<std::string> tokens;
  for (auto& entry : kept) tokens.push_back(std::move(entry.first));
  return std::make_unique<VocabTokenizer>(std::move(tokens));
}

std::unique_ptr<VocabTokenizer> VocabTokenizer::from_payload(std::string_view payload) {
  std::vector<std::string> tokens;
  for_each_word(payload, [&](std::string_view w) { tokens.emplace_back(w); });
  return std::make_unique<VocabTokenizer>(std::move(tokens));
}

std::vector<int32_t> VocabTokenizer::encode(std::string_view text) const {
  std::vector<int32_t> ids;
  std::string word;
  for_each_word(text, [&](std::string_view w) {
    word.assign(w);
    const auto it = ids_.find(word);
    ids.push_back(it == ids_.end() ? kUnkId : it->second);
  });
  return ids;
}

std::string VocabTokenizer::payload() const {
  std::string out;
  for (const auto& t : tokens_) out += t + "\n";
  return out;
}

}  // namespace rotor
