#include "datasets/byte_tokenizer.h"

namespace rotor {

std::vector<int32_t> ByteTokenizer::encode(std::string_view text) const {
  std::vector<int32_t> ids;
  ids.reserve(text.size());
  for (char c : text) ids.push_back(kNumSpecial + static_cast<unsigned char>(c));
  return ids;
}

std::string ByteTokenizer::decode(const std::vector<int32_t>& ids) const {
  std::string text;
  for (int32_t id : ids)
    text += id < kNumSpecial ? special_token_text(id) : std::string(1, static_cast<char>(id - kNumSpecial));
  return text;
}

}  // namespace rotor
