#include "datasets/tokenizer.h"

#include "datasets/byte_tokenizer.h"
#include "datasets/data_error.h"
#include "datasets/sentencepiece_tokenizer.h"
#include "datasets/vocab_tokenizer.h"

namespace rotor {
namespace {

constexpr std::string_view kTokenizerMagic = "rotor-tokenizer ";

}  // namespace

std::string Tokenizer::special_token_text(int32_t id) {
  static const char* const names[kNumSpecial] = {"[PAD]", "[CLS]", "[SEP]", "[UNK]"};
  return names[id];
}

std::string Tokenizer::save() const { return std::string(kTokenizerMagic) + name() + "\n" + payload(); }

std::unique_ptr<Tokenizer> train_tokenizer(const TokenizerConfig& config,
                                           const std::vector<std::string_view>& train_texts) {
  switch (config.kind) {
    case TokenizerKind::byte:
      return std::make_unique<ByteTokenizer>();
    case TokenizerKind::vocab:
      return VocabTokenizer::train(train_texts, config.vocab_size, config.min_freq,
                                   VocabOptions{config.lowercase, config.split_punctuation});
    case TokenizerKind::sentencepiece:
      return SentencePieceTokenizer::train(train_texts, config.vocab_size, config.model_type);
    case TokenizerKind::automatic:
      break;
  }
  throw DataError("tokenizer: the automatic choice must be resolved before training (tokenizer_config does)");
}

std::unique_ptr<Tokenizer> load_tokenizer(std::string_view bytes) {
  const size_t newline = bytes.find('\n');
  if (bytes.substr(0, kTokenizerMagic.size()) != kTokenizerMagic || newline == std::string_view::npos) {
    throw DataError("saved tokenizer: expected a header 'rotor-tokenizer <name>'");
  }
  const std::string_view name = bytes.substr(kTokenizerMagic.size(), newline - kTokenizerMagic.size());
  const std::string_view payload = bytes.substr(newline + 1);
  switch (parse_option<TokenizerKind>(name).value_or(TokenizerKind::automatic)) {
    case TokenizerKind::byte:
      return std::make_unique<ByteTokenizer>();
    case TokenizerKind::vocab:
      return VocabTokenizer::from_payload(payload);
    case TokenizerKind::sentencepiece:
      return SentencePieceTokenizer::from_payload(payload);
    case TokenizerKind::automatic:  // "" or an unknown name: not a saved kind
      break;
  }
  throw DataError("saved tokenizer: unknown kind '" + std::string(name) + "'");
}

}  // namespace rotor
