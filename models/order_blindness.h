#pragma once
// Whether an encoder classifier can tell a sequence from its reverse. With no
// position signal, or an attention bias of |i - j| alone (the encoding row's
// `reversal_symmetric`: none, alibi, kerple), attention over the reversed
// sequence is the original's mirrored, so each token's output is the same, in
// reverse order; a pooling blind to order (mean, max) then hands the head the
// same vector, and a label that depends on direction cannot be learnt. CLS
// pooling sees direction: its slot is at position 0, next to the first token;
// with no position signal at all (`position_free`: none) nothing does.
// rotor's t5_bias (its encoder buckets tell keys before the query from keys
// after it), alibi_directional and fire see direction.
#include <string>

#include "models/model_config.h"

namespace rotor {

// Empty when a classifier of `config` can tell a sequence from its reverse;
// otherwise why not, naming model.position.type and model.pooling.
std::string order_blindness(const ModelConfig& config);

}  // namespace rotor
