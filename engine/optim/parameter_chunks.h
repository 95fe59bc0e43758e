#pragma once
// The loop every elementwise optimizer update runs: over each parameter's
// range of the flat buffers, in fixed chunks, with that parameter's weight
// decay. Chunks depend only on the parameter sizes and each element is updated
// independently, so the result never depends on the thread count.
#include <cstdint>

#include "engine/parallel.h"
#include "engine/parameters.h"

namespace rotor {

// Calls f(begin, end, decay) over flat-buffer element ranges, where decay is
// `weight_decay` for parameters flagged for decay and 0 for the others
// (biases, norm gains): PyTorch's usual two parameter groups.
template <class F>
void for_each_parameter_chunk(const ParameterStore& params, double weight_decay, F&& f) {
  for (const ParameterInfo& p : params.infos()) {
    const double decay = p.weight_decay ? weight_decay : 0.0;
    parallel_for(numel(p.shape), kElementwiseGrain,
                 [&](int64_t b, int64_t e) { f(p.offset + b, p.offset + e, decay); });
  }
}

}  // namespace rotor
