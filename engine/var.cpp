#include "engine/var.h"

#include <unordered_map>
#include <unordered_set>

#include "engine/error.h"

namespace rotor {
namespace {
thread_local bool g_grad_enabled = true;
}

NoGradGuard::NoGradGuard() : previous_(g_grad_enabled) { g_grad_enabled = false; }
NoGradGuard::~NoGradGuard() { g_grad_enabled = previous_; }

Tensor& Node::grad_buffer() {
  if (!grad.defined()) grad = Tensor::zeros(value.shape(), value.dtype());
  return grad;
}

void Node::release_unread_value() {
  // Leaves and constants keep their values; so does a node whose backward has run.
  if (requires_grad && backward && value_readers == 0) value.release();
}

ValueReads ValueReads::only_inputs(std::initializer_list<int> which) {
  ValueReads r{0, false};
  for (int i : which) r.inputs |= uint64_t{1} << i;
  return r;
}

Var::Var(Tensor value, bool requires_grad) : node_(std::make_shared<Node>()) {
  node_->value = std::move(value);
  node_->requires_grad = requires_grad;
  node_->handles = 1;
}

Var::Var(const Var& other) : node_(other.node_) {
  if (node_) ++node_->handles;
}

Var& Var::operator=(const Var& other) {
  if (node_ == other.node_) return *this;
  if (other.node_) ++other.node_->handles;
  drop_handle();
  node_ = other.node_;
  return *this;
}

Var& Var::operator=(Var&& other) noexcept {
  if (this != &other) {
    drop_handle();
    node_ = std::move(other.node_);
  }
  return *this;
}

Var::~Var() { drop_handle(); }

void Var::drop_handle() {
  if (node_ && node_->handles.fetch_sub(1) == 1) node_->release_unread_value();
  node_.reset();
}

Var Var::parameter(Tensor value, Tensor grad) {
  if (value.shape() != grad.shape() || value.dtype() != grad.dtype())
    throw ShapeError("Var::parameter: value and gradient buffers differ");
  Var v(std::move(value), true);
  v.node_->grad = std::move(grad);
  return v;
}

Var make_result(OpKind op, Tensor value, std::vector<Var> inputs, ValueReads reads,
                std::function<void(Node&)> backward) {
  Var out(std::move(value));
  out.node_->op = op;
  if (!g_grad_enabled) return out;
  bool needs = false;
  for (const Var& in : inputs) needs = needs || in.requires_grad();
  if (!needs) return out;
  out.node_->requires_grad = true;
  out.node_->backward = std::move(backward);
  out.node_->parents.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    out.node_->parents.push_back(inputs[i].node_);
    if (reads.reads_input(i)) ++inputs[i].node_->value_readers;
  }
  if (reads.output) ++out.node_->value_readers;
  return out;
}

std::vector<Var> make_results(OpKind op, std::vector<Tensor> values, std::vector<Var> inputs, ValueReads reads,
                              MultiBackward backward) {
  // The hub's value is a one-element placeholder: backward() runs a closure only once its node has a gradient,
  // which each output's closure gives the hub by touching that placeholder's gradient.
  auto output_grads = std::make_shared<std::vector<Tensor>>(values.size());
  Var hub = make_result(op, Tensor::zeros({}, values.empty() ? DType::F32 : values[0].dtype()), std::move(inputs),
                        ValueReads{reads.inputs, false}, [output_grads, backward = std::move(backward)](Node& n) {
                          backward(n, *output_grads);
                          output_grads->assign(output_grads->size(), Tensor());
                        });
  std::vector<Var> outputs;
  outputs.reserve(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    outputs.push_back(make_result(op, std::move(values[i]), {hub}, ValueReads::none(), [output_grads, i](Node& n) {
      (*output_grads)[i] = n.grad;  // shared, not copied: the node drops its own handle after this closure
      n.parents[0]->grad_buffer();
    }));
  return outputs;
}

std::vector<std::shared_ptr<Node>> topological_order(const Var& root) {
  // Iterative DFS (graphs of deep models overflow a recursive one).
  std::vector<std::shared_ptr<Node>> order;
  std::unordered_set<Node*> seen;
  std::vector<std::pair<std::shared_ptr<Node>, size_t>> stack{{root.node(), 0}};
  seen.insert(root.node().get());
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (next < node->parents.size()) {
      const std::shared_ptr<Node>& parent = node->parents[next++];
      if (seen.insert(parent.get()).second) stack.push_back({parent, 0});
    } else {
      order.push_back(node);
      stack.pop_back();
    }
  }
  return order;
}

void backward(const Var& loss) { backward(loss, {}); }

void backward(const Var& loss, const std::function<void(const Node& leaf)>& on_leaf_final) {
  if (loss.numel() != 1)
    throw ShapeError("backward: the loss must have one element, got shape " + to_string(loss.shape()));
  if (!loss.requires_grad()) throw ValueError("backward: the loss does not depend on any parameter");
  std::vector<std::shared_ptr<Node>> order = topological_order(loss);
  // Closures still to run that accumulate into each leaf (counted per edge).
  std::unordered_map<const Node*, int64_t> pending_consumers;
  if (on_leaf_final)
    for (const std::shared_ptr<Node>& node : order)
      for (const std::shared_ptr<Node>& parent : node->parents)
        if (!parent->backward && parent->requires_grad) ++pending_consumers[parent.get()];
  loss.node()->grad_buffer().fill(1.0);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    std::shared_ptr<Node> node = std::move(*it);      // dropped at the end of this iteration
    if (!node->backward) continue;                    // leaf
    if (node->grad.defined()) node->backward(*node);  // closures allocate parents' gradients on first use
    if (on_leaf_final)
      for (const std::shared_ptr<Node>& parent : node->parents) {
        auto pending = pending_consumers.find(parent.get());
        if (pending != pending_consumers.end() && --pending->second == 0) on_leaf_final(*parent);
      }
    // Interior node done: release its edges, closure and gradient.
    node->backward = nullptr;
    node->parents.clear();
    node->grad = Tensor();
  }
}

}  // namespace rotor
