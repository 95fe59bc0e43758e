#include "datasets/sentencepiece_tokenizer.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <unordered_map>

#include "datasets/data_error.h"

namespace rotor {
namespace {

// SentencePiece trains on sentences and skips any longer than
// max_sentence_length, so long lines are cut at a space (or, failing that, at
// a UTF-8 character boundary) into pieces no longer than this.
constexpr size_t kMaxPiece = 4096;

class PieceIterator : public sentencepiece::SentenceIterator {
 public:
  explicit PieceIterator(const std::vector<std::string_view>& texts) : texts_(texts) { advance(); }

  bool done() const override { return text_ >= texts_.size(); }
  void Next() override { advance(); }
  const std::string& value() const override { return value_; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  // Moves to the next non-blank piece.
  void advance() {
    while (text_ < texts_.size()) {
      const std::string_view text = texts_[text_];
      while (pos_ < text.size()) {
        const size_t line_end = std::min(text.find('\n', pos_), text.size());
        size_t end = line_end;
        if (end - pos_ > kMaxPiece) {
          end = text.rfind(' ', pos_ + kMaxPiece);
          if (end == std::string_view::npos || end <= pos_) {
            end = pos_ + kMaxPiece;
            while ((static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
          }
        }
        value_.assign(text.substr(pos_, end - pos_));
        pos_ = end == line_end ? end + 1 : end;
        if (value_.find_first_not_of(" \t\r") != std::string::npos) return;
      }
      ++text_;
      pos_ = 0;
    }
  }

  const std::vector<std::string_view>& texts_;
  size_t text_ = 0, pos_ = 0;
  std::string value_;
};

}  // namespace

SentencePieceTokenizer::SentencePieceTokenizer(std::string model)
    : model_(std::move(model)), processor_(std::make_unique<sentencepiece::SentencePieceProcessor>()) {
  const auto status = processor_->LoadFromSerializedProto(model_);
  if (!status.ok()) throw DataError("sentencepiece model: cannot load (" + status.ToString() + ")");
  if (processor_->pad_id() != kPadId || processor_->bos_id() != kClsId || processor_->eos_id() != kSepId ||
      processor_->unk_id() != kUnkId) {
    throw DataError("sentencepiece model: special token ids differ from PAD 0, CLS 1, SEP 2, UNK 3");
  }
}

SentencePieceTokenizer::~SentencePieceTokenizer() = default;

std::unique_ptr<SentencePieceTokenizer> SentencePieceTokenizer::train(const std::vector<std::string_view>& texts,
                                                                      int64_t vocab_size, SpmModelType model_type) {
  if (vocab_size <= Tokenizer::kNumSpecial) {
    throw DataError("vocab_size: expected more than " + std::to_string(Tokenizer::kNumSpecial) + ", got " +
                    std::to_string(vocab_size));
  }
  // Our special ids become SentencePiece's pad/bos/eos/unk; bos and eos are
  // never added by encode(), they only reserve the CLS and SEP ids.
  // (The map form of Train(), unlike the command-line form, does not log the
  // command to stderr.)
  const std::unordered_map<std::string, std::string> args = {
      {"model_type", option_name(model_type)},
      {"vocab_size", std::to_string(vocab_size)},
      {"pad_id", "0"},
      {"bos_id", "1"},
      {"eos_id", "2"},
      {"unk_id", "3"},
      {"pad_piece", "<pad>"},
      {"bos_piece", "<cls>"},
      {"eos_piece", "<sep>"},
      {"unk_piece", "<unk>"},
      {"hard_vocab_limit", "false"},  // small corpora may give fewer pieces
      {"num_threads", "1"},
      {"minloglevel", "2"},
      {"max_sentence_length", std::to_string(kMaxPiece)},
  };
  PieceIterator pieces(texts);
  if (pieces.done()) throw DataError("sentencepiece: no training text");
  std::string model;
  const auto status = sentencepiece::SentencePieceTrainer::Train(args, &pieces, &model);
  if (!status.ok()) throw DataError("sentencepiece training failed: " + status.ToString());
  return std::unique_ptr<SentencePieceTokenizer>(new SentencePieceTokenizer(std::move(model)));
}

std::unique_ptr<SentencePieceTokenizer> SentencePieceTokenizer::from_payload(std::string_view model) {
  return std::unique_ptr<SentencePieceTokenizer>(new SentencePieceTokenizer(std::string(model)));
}

std::vector<int32_t> SentencePieceTokenizer::encode(std::string_view text) const {
  std::vector<int> ids;
  const auto status = processor_->Encode(text, &ids);
  if (!status.ok()) throw DataError("sentencepiece encode failed: " + status.ToString());
  return std::vector<int32_t>(ids.begin(), ids.end());
}

std::string SentencePieceTokenizer::decode(const std::vector<int32_t>& ids) const {
  std::string text;
  const auto status = processor_->Decode(std::vector<int>(ids.begin(), ids.end()), &text);
  if (!status.ok()) throw DataError("sentencepiece decode failed: " + status.ToString());
  return text;
}

int32_t SentencePieceTokenizer::vocab_size() const { return processor_->GetPieceSize(); }

}  // namespace rotor
