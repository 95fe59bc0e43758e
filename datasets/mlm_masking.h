#pragma once
// BERT's masking for masked-language-model training (Devlin et al. 2019,
// section 3.1): each maskable token is selected with probability p; a
// selected token is the model's target, and its input becomes [MASK] (80%),
// a uniformly random regular token (10%) or stays itself (10%).
//
// [MASK] is the CLS id (Tokenizer::kMaskId == kClsId). A language model never
// reads CLS (it has no pooling slot), so the id is free there, and reusing it
// leaves every tokenizer, vocabulary size and token cache as it is; a
// classifier fine-tuned from the pre-trained encoder starts its CLS slot from
// the [MASK] embedding, a token that means "gather the context".
// Maskable: every token but PAD, CLS/[MASK] and SEP (the document boundary).
// UNK stands for a real word, so it is maskable, as in BERT.
//
// A decision is a pure function of (key, position): key = (seed, stream,
// epoch) and position the token's index in its split's token stream, so masks
// do not depend on threads, batching or scheduling, a resumed run redraws
// exactly the masks it would have drawn, and evaluation at any window length
// corrupts and scores the same tokens.
#include <cstdint>

#include "engine/random.h"

namespace rotor {

struct MaskingRule {
  double probability = 0.15;  // of selecting a maskable token (train.mask_probability)
  int32_t vocab_size = 0;     // random replacements are drawn from [Tokenizer::kNumSpecial, vocab_size)
};

struct MaskDecision {
  bool selected = false;  // the token is a target
  int32_t input = 0;      // what the model reads in its place
};

// The keys of the draws: training's redraws every epoch; evaluation's are fixed.
RandomKey training_mask_key(uint64_t seed, int64_t epoch);
RandomKey evaluation_mask_key(uint64_t seed);

bool maskable(int32_t token);

// The decision for `token` at stream position `position`. Throws DataError
// when rule.vocab_size leaves no regular token or the probability is outside (0, 1).
MaskDecision mask_decision(const RandomKey& key, uint64_t position, int32_t token, const MaskingRule& rule);

}  // namespace rotor
