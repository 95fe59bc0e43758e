#pragma once
// Finite-difference gradient checking in float64 for the engine's ops.
//
// check_gradients(op, f, inputs) builds leaves from `inputs`, computes
// L = sum(f(x) * R) for a fixed random R, runs backward, and compares every
// input gradient with central differences of L. It also asserts that the
// graph built by f really contains `op`, and records `op` as checked so the
// coverage test can demand a check for every registered op.
#include <functional>
#include <set>
#include <vector>

#include "engine/op_kind.h"
#include "engine/tensor.h"
#include "engine/var.h"

namespace rotor::test {

using GraphFn = std::function<Var(const std::vector<Var>&)>;

struct GradCheckReport {
  double max_error = 0.0;  // max over elements of |analytic - numeric| / max(1, |numeric|)
  int64_t elements = 0;
  bool op_found = false;
};

GradCheckReport check_gradients(OpKind op, const GraphFn& f, const std::vector<Tensor>& inputs, double eps = 1e-6);

// Ops for which a gradient check case is registered.
std::set<OpKind>& checked_ops();
bool register_gradcheck(OpKind op);

// Deterministic float64 test data.
Tensor randn(const Shape& shape, uint64_t seed, double scale = 1.0);
Tensor rand_positive(const Shape& shape, uint64_t seed);  // in [0.5, 2)

}  // namespace rotor::test

#define ROTOR_CAT_(a, b) a##b
#define ROTOR_CAT(a, b) ROTOR_CAT_(a, b)
// Declares a gradient-check test case for an op and registers the op as covered.
#define GRADCHECK(op, description)                                                                       \
  static const bool ROTOR_CAT(gradcheck_registered_, __COUNTER__) = rotor::test::register_gradcheck(op); \
  TEST_CASE("gradcheck " description, "[gradcheck]")
