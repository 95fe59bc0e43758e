#pragma once
// Reverse-mode autograd, micrograd-style: a Var is a handle to a Node that
// holds a value, an accumulated gradient, its parents and the closure that
// pushes its gradient to them. Ops record nodes as the forward runs;
// backward(loss) runs the closures in reverse topological order.
//
// Invariants: backward closures accumulate (+=) into parents' gradients; the
// trainer zeroes them. After backward, interior nodes drop their parents and
// closures so the graph's buffers are freed as soon as the Vars go away.
//
// Memory: a graph keeps an interior value only while something may read it.
// Each op says which values its backward reads (ValueReads); a value that no
// recorded backward reads is released (shape and dtype kept) when its last Var
// goes away, so a forward holds what its backward needs, not every
// intermediate (a permute's input, a dropout's input, a residual's operands).
#include <atomic>
#include <cstdint>
#include <functional>
#include <initializer_list>
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
  int value_readers = 0;        // recorded backward closures (its own included) that read `value`
  std::atomic<int> handles{0};  // Vars pointing here (parameters' Vars may be copied on any thread)

  // The gradient buffer, allocated as zeros on first use.
  Tensor& grad_buffer();
  // Called when the last Var goes: drops an interior value no backward reads.
  void release_unread_value();
};

// What an op's backward reads besides its gradient: bit i of `inputs` for
// input i's value, `output` for its own. all() is always safe; an op that
// declares less lets the graph free what it does not read.
struct ValueReads {
  uint64_t inputs = ~uint64_t{0};
  bool output = true;

  static ValueReads all() { return {}; }
  static ValueReads none() { return {0, false}; }
  static ValueReads only_output() { return {0, true}; }
  static ValueReads only_inputs(std::initializer_list<int> which);
  bool reads_input(size_t i) const { return i < 64 ? ((inputs >> i) & 1u) != 0 : true; }
};

// A fused op's backward over all its outputs' gradients (make_results).
using MultiBackward = std::function<void(Node& hub, const std::vector<Tensor>& output_grads)>;

class Var {
 public:
  Var() = default;
  explicit Var(Tensor value, bool requires_grad = false);
  Var(const Var& other);
  Var(Var&& other) noexcept = default;
  Var& operator=(const Var& other);
  Var& operator=(Var&& other) noexcept;
  ~Var();
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
  friend Var make_result(OpKind, Tensor, std::vector<Var>, ValueReads, std::function<void(Node&)>);
  friend std::vector<Var> make_results(OpKind, std::vector<Tensor>, std::vector<Var>, ValueReads, MultiBackward);
  void drop_handle();
  std::shared_ptr<Node> node_;
};

// Records an op's output. The closure is kept only when gradients are enabled
// and some input requires them; otherwise the result is a plain constant.
// `reads` says which values the closure reads (see ValueReads).
Var make_result(OpKind op, Tensor value, std::vector<Var> inputs, ValueReads reads,
                std::function<void(Node&)> backward);

// Records a fused op with several outputs. One hidden node (the hub) has the
// inputs as parents and each output as a child; each output's backward hands
// its gradient to the hub, whose closure runs once, after all of them, with
// output_grads[i] the gradient of output i (undefined: nothing reached it, read
// as zeros). `reads` says which input values that closure reads; a value of an
// output it reads is kept by capturing the Tensor in the closure.
std::vector<Var> make_results(OpKind op, std::vector<Tensor> values, std::vector<Var> inputs, ValueReads reads,
                              MultiBackward backward);

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
