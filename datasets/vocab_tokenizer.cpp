#include "datasets/vocab_tokenizer.h"

#include <algorithm>

#include "datasets/data_error.h"

namespace rotor {

namespace {

constexpr std::string_view kOptionsLine = "options";

bool is_ascii_punctuation(char c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
}

}  // namespace

void for_each_vocab_word(std::string_view text, const VocabOptions& options,
                         const std::function<void(std::string_view)>& fn) {
  if (!options.lowercase && !options.split_punctuation) return for_each_word(text, fn);
  std::string word;
  for_each_word(text, [&](std::string_view w) {
    word.assign(w);
    if (options.lowercase) {
      for (char& c : word) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
    if (!options.split_punctuation) return fn(word);
    size_t start = 0;
    for (size_t i = 0; i < word.size(); ++i) {
      if (!is_ascii_punctuation(word[i])) continue;
      if (i > start) fn(std::string_view(word).substr(start, i - start));
      fn(std::string_view(word).substr(i, 1));
      start = i + 1;
    }
    if (start < word.size()) fn(std::string_view(word).substr(start));
  });
}

VocabTokenizer::VocabTokenizer(std::vector<std::string> tokens, VocabOptions options)
    : tokens_(std::move(tokens)), options_(options) {
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
                                                      int64_t min_freq, VocabOptions options) {
  std::unordered_map<std::string, int64_t> counts;
  for (std::string_view text : texts) {
    for_each_vocab_word(text, options, [&](std::string_view w) { ++counts[std::string(w)]; });
  }
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
  return std::make_unique<VocabTokenizer>(std::move(tokens), options);
}

std::unique_ptr<VocabTokenizer> VocabTokenizer::from_payload(std::string_view payload) {
  VocabOptions options;
  const size_t newline = payload.find('\n');
  const std::string_view first = payload.substr(0, newline);
  if (first.find(' ') != std::string_view::npos) {
    std::vector<std::string_view> words;
    for_each_word(first, [&](std::string_view w) { words.push_back(w); });
    if (words.empty() || words[0] != kOptionsLine)
      throw DataError("saved vocab tokenizer: expected a first line 'options ...'");
    for (size_t i = 1; i < words.size(); ++i) {
      if (words[i] == "lowercase") {
        options.lowercase = true;
      } else if (words[i] == "split_punctuation") {
        options.split_punctuation = true;
      } else {
        throw DataError("saved vocab tokenizer: unknown option '" + std::string(words[i]) + "'");
      }
    }
    payload = newline == std::string_view::npos ? std::string_view() : payload.substr(newline + 1);
  }
  std::vector<std::string> tokens;
  for_each_word(payload, [&](std::string_view w) { tokens.emplace_back(w); });
  return std::make_unique<VocabTokenizer>(std::move(tokens), options);
}

std::vector<int32_t> VocabTokenizer::encode(std::string_view text) const {
  std::vector<int32_t> ids;
  std::string word;
  for_each_vocab_word(text, options_, [&](std::string_view w) {
    word.assign(w);
    const auto it = ids_.find(word);
    ids.push_back(it == ids_.end() ? kUnkId : it->second);
  });
  return ids;
}

std::string VocabTokenizer::decode(const std::vector<int32_t>& ids) const {
  std::string text;
  for (int32_t id : ids)
    text += (text.empty() ? "" : " ") + (id < kNumSpecial ? special_token_text(id) : tokens_[id - kNumSpecial]);
  return text;
}

std::string VocabTokenizer::payload() const {
  std::string out;
  if (options_.lowercase || options_.split_punctuation) {
    out += std::string(kOptionsLine) + (options_.lowercase ? " lowercase" : "") +
           (options_.split_punctuation ? " split_punctuation" : "") + "\n";
  }
  for (const auto& t : tokens_) out += t + "\n";
  return out;
}

}  // namespace rotor
