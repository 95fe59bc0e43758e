#pragma once
// Global-norm gradient clipping (torch.nn.utils.clip_grad_norm_) and the
// finiteness check a trainer runs before trusting an update.
#include "engine/parameters.h"
#include "engine/tensor.h"

namespace rotor {

// Returns the L2 norm of all gradients together, measured before clipping.
// When max_norm / (norm + 1e-6) < 1 every gradient is multiplied by that
// factor, exactly PyTorch's rule (so a norm just below max_norm is still
// nudged by the 1e-6). The norm is accumulated in double over fixed chunks
// added in chunk order, so it is bitwise independent of the thread count.
// A non-finite norm leaves the gradients untouched: the caller should skip
// the step. Throws ValueError unless max_norm is finite and > 0.
double clip_grad_norm(ParameterStore& params, double max_norm);

// True when no element is NaN or infinite.
bool all_finite(const Tensor& t);

}  // namespace rotor
