#pragma once
// Tokenizers turn a document's text into token ids. All of them share the ids
// of the special tokens (PAD = 0, CLS = 1, SEP = 2, UNK = 3), and none adds
// CLS or SEP while encoding: models prepend CLS themselves when configured.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/option_names.h"

namespace rotor {

class Tokenizer {
 public:
  static constexpr int32_t kPadId = 0, kClsId = 1, kSepId = 2, kUnkId = 3;
  static constexpr int32_t kNumSpecial = 4;  // regular tokens start at this id
  // A masked language model's [MASK]: the CLS id, which a language model never reads (datasets/mlm_masking.h).
  static constexpr int32_t kMaskId = kClsId;

  virtual ~Tokenizer() = default;

  // "byte", "vocab" or "sentencepiece".
  virtual std::string name() const = 0;
  virtual std::vector<int32_t> encode(std::string_view text) const = 0;
  // The text of `ids` (for `rotor generate`): encode's inverse on what encode produced, up to the
  // whitespace a vocabulary's split drops (its words are joined by single spaces).
  virtual std::string decode(const std::vector<int32_t>& ids) const = 0;
  // Number of ids, special tokens included: every id is below it.
  virtual int32_t vocab_size() const = 0;

  int32_t pad_id() const { return kPadId; }
  int32_t cls_id() const { return kClsId; }
  int32_t sep_id() const { return kSepId; }
  int32_t unk_id() const { return kUnkId; }

  // Everything needed to rebuild this exact tokenizer with load_tokenizer(),
  // for the run directory and checkpoints: "rotor-tokenizer <name>\n" followed
  // by the tokenizer's own data.
  std::string save() const;

 protected:
  virtual std::string payload() const = 0;
  // A special id written out, so a generated separator stays visible: "[PAD]", "[CLS]", "[SEP]", "[UNK]".
  static std::string special_token_text(int32_t id);
};

// automatic (data.tokenizer ""): vocab for generated tasks, byte otherwise,
// resolved by the dataset before a tokenizer is trained.
enum class TokenizerKind { automatic, byte, vocab, sentencepiece };
enum class SpmModelType { unigram, bpe };

template <>
struct OptionNames<TokenizerKind> {
  static constexpr std::array<std::pair<TokenizerKind, const char*>, 4> table{
      {{TokenizerKind::automatic, ""},
       {TokenizerKind::byte, "byte"},
       {TokenizerKind::vocab, "vocab"},
       {TokenizerKind::sentencepiece, "sentencepiece"}}};
};
template <>
struct OptionNames<SpmModelType> {
  static constexpr std::array<std::pair<SpmModelType, const char*>, 2> table{
      {{SpmModelType::unigram, "unigram"}, {SpmModelType::bpe, "bpe"}}};
};

struct TokenizerConfig {
  TokenizerKind kind = TokenizerKind::byte;
  // sentencepiece: the size to train; vocab: the maximum size (0 = no limit).
  // Both count the special tokens.
  int64_t vocab_size = 8000;
  int64_t min_freq = 1;                             // vocab: drop tokens seen fewer times in training
  bool lowercase = false;                           // vocab: see VocabOptions
  bool split_punctuation = false;                   // vocab: see VocabOptions
  SpmModelType model_type = SpmModelType::unigram;  // sentencepiece
};

// Builds a tokenizer; vocab and sentencepiece learn from `train_texts`. The
// kind must be resolved (not automatic).
std::unique_ptr<Tokenizer> train_tokenizer(const TokenizerConfig& config,
                                           const std::vector<std::string_view>& train_texts);

// Rebuilds a tokenizer from Tokenizer::save(). Throws DataError on bad bytes.
std::unique_ptr<Tokenizer> load_tokenizer(std::string_view bytes);

}  // namespace rotor
