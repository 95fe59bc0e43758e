#pragma once
// Whitespace-separated tokens with a vocabulary learned from the training
// split; unseen tokens map to UNK. Used by ListOps and pre-tokenised corpora.
#include <unordered_map>

#include "datasets/tokenizer.h"

namespace rotor {

class VocabTokenizer : public Tokenizer {
 public:
  // `tokens[i]` gets id kNumSpecial + i. Throws DataError on duplicates or
  // tokens holding whitespace.
  explicit VocabTokenizer(std::vector<std::string> tokens);

  // Keeps tokens seen at least `min_freq` times, most frequent first (ties in
  // byte order), at most `max_size` ids in all (0 = no limit).
  static std::unique_ptr<VocabTokenizer> train(const std::vector<std::string_view>& texts, int64_t max_size,
                                               int64_t min_freq);
  static std::unique_ptr<VocabTokenizer> from_payload(std::string_view payload);

  std::string name() const override { return "vocab"; }
  std::vector<int32_t> encode(std::string_view text) const override;
  int32_t vocab_size() const override { return kNumSpecial + static_cast<int32_t>(tokens_.size()); }
  const std::vector<std::string>& tokens() const { return tokens_; }

 protected:
  // One token per line, in id order.
  std::string payload() const override;

 private:
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int32_t> ids_;
};

// Calls `fn` with each maximal run of non-whitespace bytes of `text`.
template <typename Fn>
void for_each_word(std::string_view text, Fn&& fn) {
  constexpr std::string_view kSpace = " \t\n\r\f\v";
  size_t pos = text.find_first_not_of(kSpace);
  while (pos != std::string_view::npos) {
    const size_t end = text.find_first_of(kSpace, pos);
    fn(text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos));
    pos = end == std::string_view::npos ? end : text.find_first_not_of(kSpace, end);
  }
}

}  // namespace rotor
