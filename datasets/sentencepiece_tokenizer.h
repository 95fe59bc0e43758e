#pragma once
// SentencePiece (unigram or BPE) trained on the training split with Debian's
// libsentencepiece. The serialized model is the tokenizer's saved form, so a
// run directory or checkpoint holds exactly the tokenizer that was trained.
#include "datasets/tokenizer.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace rotor {

class SentencePieceTokenizer : public Tokenizer {
 public:
  // Trains on the lines of `texts` (single-threaded, so the model depends only
  // on the texts). With few texts the vocabulary may come out smaller than
  // `vocab_size`. Throws DataError if training fails.
  static std::unique_ptr<SentencePieceTokenizer> train(const std::vector<std::string_view>& texts, int64_t vocab_size,
                                                       SpmModelType model_type);
  // From a serialized SentencePiece model.
  static std::unique_ptr<SentencePieceTokenizer> from_payload(std::string_view model);

  ~SentencePieceTokenizer() override;

  std::string name() const override { return option_name(TokenizerKind::sentencepiece); }
  std::vector<int32_t> encode(std::string_view text) const override;
  // SentencePiece's own decoding: pieces joined, its space marks turned back into spaces.
  std::string decode(const std::vector<int32_t>& ids) const override;
  int32_t vocab_size() const override;

 protected:
  std::string payload() const override { return model_; }

 private:
  explicit SentencePieceTokenizer(std::string model);

  std::string model_;
  std::unique_ptr<sentencepiece::SentencePieceProcessor> processor_;
};

}  // namespace rotor
