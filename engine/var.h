#pragma once
// Reverse-mode autograd, micrograd-style: a Var is a handle to a Node that
// holds a value, an accumulated gradient, its parents and the closure that
// pushes its gradient to them. Ops record nodes as the forward runs;
// backward(loss) runs the closures in reverse topological order.
//
// Invariants: backward closures accumulate (+=) into parents' gradients; the
// trainer zeroes them. After backward, interior nodes drop their parents and
// closures so the graph's buffers are freed as soon as the Vars go away.
#include <functional>
#include <memory>
#include <vector>

#include "engine/op_kind.h"
#include "engine/tensor.h"

namespace rotor {

struct Node {
  Tensor value;
  Tensor grad;  // undefined until something accumulates into it
  std::vector<std::shared_ptr<Node>> parents;
  std::function<void(Node&)> backward;  // reads this->grad, accumulates into parents
  OpKind op = OpKind::leaf;
  bool requires_grad = false;

  // The gradient buffer, allocated as zeros on first use.
  Tensor& grad_buffer();
};

class Var {
 public:
  Var() = default;
  explicit Var(Tensor value, bool requires_grad = false);
  // A leaf whose gradient accumulates into an existing buffer (parameters).
  static Var parameter(Tensor value, Tensor grad);

  bool defined() const { return node_ != nullptr; }
  const Tensor& value() const { return node_->value; }
  Tensor& value() { return node_->value; }
  const Tensor& grad() const { return node_->grad; }
  const Shape& shape() const { return node_->value.shape(); }
  int rank() const { return node_->value.rank(); }
  int64_t size(int dim) const { return node_->value.size(dim); }
  int64_t numel() const { return node_->value.numel(); }
  DType dtype() const { return node_->value.dtype(); }
  bool requires_grad() const { return node_->requires_grad; }
  OpKind op() const { return node_->op; }
  const std::shared_ptr<Node>& node() const { return node_; }

 private:
  friend Var make_result(OpKind, Tensor, std::vector<Var>, std::function<void(Node&)>);
  std::shared_ptr<Node> node_;
};

// Records an op's output. The closure is kept only when gradients are enabled
// and some input requires them; otherwise the result is a plain constant.
Var make_result(OpKind op, Tensor value, std::vector<Var> inputs, std::function<void(Node&)> backward);

// Runs the backward pass from a one-element loss (seeded with 1).
void backward(const Var& loss);
// The same, calling `on_leaf_final(leaf)` as soon as a leaf's gradient can no
// longer change (its last consumer's closure has run), so data-parallel
// training can start reducing those gradients while the pass goes on.
void backward(const Var& loss, const std::function<void(const Node& leaf)>& on_leaf_final);

// Every node reachable from `root`, parents before children.
std::vector<std::shared_ptr<Node>> topological_order(const Var& root);

// Disables graph recording in its scope (evaluation, optimizer updates).
class NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

}  // namespace rotor
