#include "datasets/byte_tokenizer.h"

namespace rotor {

std::vector<int32_t> ByteTokenizer::encode(std::string_view text) const {
  std::vector<int32_t> ids;
  ids.reserve(text.size());
  for (char c : text) ids.push_back(kNumSpecial + static_cast<unsigned char>(c));
  return ids;
}

}  // namespace rotor
