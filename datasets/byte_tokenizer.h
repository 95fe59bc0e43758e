#pragma once
// UTF-8 bytes as tokens: byte b has id 4 + b, after the special tokens.
#include "datasets/tokenizer.h"

namespace rotor {

class ByteTokenizer : public Tokenizer {
 public:
  std::string name() const override { return option_name(TokenizerKind::byte); }
  std::vector<int32_t> encode(std::string_view text) const override;
  std::string decode(const std::vector<int32_t>& ids) const override;
  int32_t vocab_size() const override { return kNumSpecial + 256; }

 protected:
  std::string payload() const override { return {}; }
};

}  // namespace rotor
