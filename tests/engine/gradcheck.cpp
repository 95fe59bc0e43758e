#include "gradcheck.h"

#include <algorithm>
#include <cmath>

#include "engine/ops.h"
#include "engine/random.h"

namespace rotor::test {

std::set<OpKind>& checked_ops() {
  static std::set<OpKind> ops;
  return ops;
}

bool register_gradcheck(OpKind op) {
  checked_ops().insert(op);
  return true;
}

Tensor randn(const Shape& shape, uint64_t seed, double scale) {
  Tensor t = Tensor::empty(shape, DType::F64);
  const RandomKey key{seed, stream_id("test"), 0};
  double* p = t.data<double>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = scale * key.normal(static_cast<uint64_t>(i));
  return t;
}

Tensor rand_positive(const Shape& shape, uint64_t seed) {
  Tensor t = Tensor::empty(shape, DType::F64);
  const RandomKey key{seed, stream_id("positive"), 0};
  double* p = t.data<double>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = 0.5 + 1.5 * key.uniform_double(static_cast<uint64_t>(i));
  return t;
}

namespace {

double weighted_sum(const Tensor& y, const Tensor& w) {
  const double* a = y.data<double>();
  const double* b = w.data<double>();
  double s = 0.0;
  for (int64_t i = 0; i < y.numel(); ++i) s += a[i] * b[i];
  return s;
}

}  // namespace

GradCheckReport check_gradients(OpKind op, const GraphFn& f, const std::vector<Tensor>& inputs, double eps) {
  GradCheckReport report;
  std::vector<Var> leaves;
  for (const Tensor& t : inputs) leaves.emplace_back(t.clone(), true);
  Var y = f(leaves);
  for (const auto& node : topological_order(y)) report.op_found = report.op_found || node->op == op;
  const Tensor weights = randn(y.shape(), 977);
  Var loss = sum_all(mul(y, Var(weights)));
  backward(loss);

  NoGradGuard no_grad;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::vector<Var> probe;
    for (const Tensor& t : inputs) probe.emplace_back(t.clone());
    double* x = probe[i].value().data<double>();
    const Tensor& grad = leaves[i].grad();
    for (int64_t j = 0; j < inputs[i].numel(); ++j) {
      const double orig = x[j];
      x[j] = orig + eps;
      const double up = weighted_sum(f(probe).value(), weights);
      x[j] = orig - eps;
      const double down = weighted_sum(f(probe).value(), weights);
      x[j] = orig;
      const double numeric = (up - down) / (2 * eps);
      const double analytic = grad.defined() ? grad.at(j) : 0.0;
      report.max_error = std::max(report.max_error, std::abs(analytic - numeric) / std::max(1.0, std::abs(numeric)));
      ++report.elements;
    }
  }
  return report;
}

}  // namespace rotor::test
