#pragma once
// A classifier's batch as its model's input: the windows' tokens and lengths,
// and each token's position where the data gives them (data.positions_field).
#include "datasets/batch.h"
#include "models/transformer_encoder.h"

namespace rotor {

inline ModelInput batch_input(const Batch& batch) {
  return {batch.tokens, batch.lengths, batch.batch_size, batch.seq_len,
          batch.positions.empty() ? nullptr : &batch.positions};
}

}  // namespace rotor
