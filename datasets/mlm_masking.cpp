#include "datasets/mlm_masking.h"

#include <string>

#include "datasets/data_error.h"
#include "datasets/tokenizer.h"

namespace rotor {

RandomKey training_mask_key(uint64_t seed, int64_t epoch) {
  return RandomKey{seed, stream_id("mlm_mask/train"), static_cast<uint64_t>(epoch)};
}

RandomKey evaluation_mask_key(uint64_t seed) { return RandomKey{seed, stream_id("mlm_mask/eval"), 0}; }

bool maskable(int32_t token) {
  return token != Tokenizer::kPadId && token != Tokenizer::kMaskId && token != Tokenizer::kSepId;
}

MaskDecision mask_decision(const RandomKey& key, uint64_t position, int32_t token, const MaskingRule& rule) {
  if (rule.vocab_size <= Tokenizer::kNumSpecial)
    throw DataError("masking: a vocabulary of " + std::to_string(rule.vocab_size) + " ids has no regular token");
  if (!(rule.probability > 0.0 && rule.probability < 1.0))
    throw DataError("masking: train.mask_probability must be in (0, 1), got " + std::to_string(rule.probability));
  if (!maskable(token)) return {false, token};
  // One counter, four words: selection (words 0-1, as uniform_double), the 80/10/10 branch, the replacement.
  if (key.uniform_double(position) >= rule.probability) return {false, token};
  const std::array<uint32_t, 4> w = key.bits(position);
  const double branch = static_cast<double>(w[2]) * 0x1p-32;
  if (branch < 0.8) return {true, Tokenizer::kMaskId};
  if (branch >= 0.9) return {true, token};
  const auto regular = static_cast<uint64_t>(rule.vocab_size - Tokenizer::kNumSpecial);
  return {true, Tokenizer::kNumSpecial + static_cast<int32_t>((static_cast<uint64_t>(w[3]) * regular) >> 32)};
}

}  // namespace rotor
