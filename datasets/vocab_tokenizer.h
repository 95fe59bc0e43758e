#pragma once
// Whitespace-separated tokens with a vocabulary learned from the training
// split; unseen tokens map to UNK. Used by ListOps and pre-tokenised corpora,
// and, with lowercasing and punctuation split off, by natural-language text:
// then "Earth." and "earth" share the token "earth", where a byte tokenizer
// would have to learn words from letters within the same training budget.
#include <functional>
#include <unordered_map>

#include "datasets/tokenizer.h"

namespace rotor {

// How text becomes words before the vocabulary lookup; both off by default
// (the split on whitespace alone, as pre-tokenised data needs).
struct VocabOptions {
  bool lowercase = false;          // ASCII letters A-Z become a-z
  bool split_punctuation = false;  // each ASCII punctuation character is a word of its own
};

class VocabTokenizer : public Tokenizer {
 public:
  // `tokens[i]` gets id kNumSpecial + i. Throws DataError on duplicates or
  // tokens holding whitespace.
  explicit VocabTokenizer(std::vector<std::string> tokens, VocabOptions options = {});

  // Keeps tokens seen at least `min_freq` times, most frequent first (ties in
  // byte order), at most `max_size` ids in all (0 = no limit).
  static std::unique_ptr<VocabTokenizer> train(const std::vector<std::string_view>& texts, int64_t max_size,
                                               int64_t min_freq, VocabOptions options = {});
  static std::unique_ptr<VocabTokenizer> from_payload(std::string_view payload);

  std::string name() const override { return option_name(TokenizerKind::vocab); }
  std::vector<int32_t> encode(std::string_view text) const override;
  std::string decode(const std::vector<int32_t>& ids) const override;
  int32_t vocab_size() const override { return kNumSpecial + static_cast<int32_t>(tokens_.size()); }
  const std::vector<std::string>& tokens() const { return tokens_; }
  const VocabOptions& options() const { return options_; }

 protected:
  // One token per line, in id order, after a line "options lowercase
  // split_punctuation" naming those that are on (no such line when none is:
  // the form saved before the options existed). A token holds no space, so
  // the options line cannot be mistaken for one.
  std::string payload() const override;

 private:
  std::vector<std::string> tokens_;
  VocabOptions options_;
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

// Calls `fn` with each word of `text` as `options` make them: the runs of
// non-whitespace bytes, lowercased and split at punctuation when asked.
void for_each_vocab_word(std::string_view text, const VocabOptions& options,
                         const std::function<void(std::string_view)>& fn);

}  // namespace rotor
