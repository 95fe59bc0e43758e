#pragma once
// Small helpers shared by the op files (not part of the public API).
#include <string>

#include "engine/error.h"
#include "engine/var.h"

namespace rotor::detail {

// The gradient buffer of parent i, or nullptr when it needs no gradient.
inline Tensor* input_grad(Node& node, size_t i) {
  auto& p = node.parents[i];
  return p->requires_grad ? &p->grad_buffer() : nullptr;
}

inline void check_same_dtype(const Var& a, const Var& b, const char* op) {
  if (a.dtype() != b.dtype())
    throw ValueError(std::string(op) + ": mixed dtypes " + dtype_name(a.dtype()) + " and " + dtype_name(b.dtype()));
}

inline void check_rank_at_least(const Var& x, int rank, const char* op, const char* what) {
  if (x.rank() < rank)
    throw ShapeError(std::string(op) + ": " + what + " needs rank >= " + std::to_string(rank) + ", got shape " +
                     to_string(x.shape()));
}

}  // namespace rotor::detail
