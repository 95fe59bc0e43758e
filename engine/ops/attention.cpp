// Fused softmax attention (kernels in engine/kernels/attention_*.cpp).
#include <string>

#include "engine/kernels/attention.h"
#include "engine/ops.h"
#include "engine/ops/op_util.h"
#include "engine/pair_bias.h"

namespace rotor {
namespace {

void check_attention_inputs(const Var& q, const Var& k, const Var& v, const AttentionOptions& opt) {
  if (q.rank() != 4) throw ShapeError("attention: q must be [B, H, N, dh], got " + to_string(q.shape()));
  if (k.shape() != q.shape() || v.shape() != q.shape())
    throw ShapeError("attention: q, k, v must have one shape, got " + to_string(q.shape()) + ", " +
                     to_string(k.shape()) + ", " + to_string(v.shape()));
  detail::check_same_dtype(q, k, "attention");
  detail::check_same_dtype(q, v, "attention");
  const int64_t B = q.size(0), H = q.size(1), N = q.size(2);
  if (opt.bias.defined()) {
    detail::check_same_dtype(q, opt.bias, "attention");
    if (opt.bias.shape() != Shape{H, 2 * N - 1})
      throw ShapeError("attention: bias must be [H, 2N - 1] = " + to_string(Shape{H, 2 * N - 1}) + ", got " +
                       to_string(opt.bias.shape()));
  }
  if (opt.pair_bias && opt.pair_bias->heads() != H)
    throw ShapeError("attention: the pair bias has " + std::to_string(opt.pair_bias->heads()) + " heads, q has " +
                     std::to_string(H));
  if (!opt.key_lengths.empty()) {
    if (static_cast<int64_t>(opt.key_lengths.size()) != B)
      throw ShapeError("attention: " + std::to_string(opt.key_lengths.size()) + " key lengths for a batch of " +
                       std::to_string(B));
    for (int32_t len : opt.key_lengths)
      if (len < 0 || len > N)
        throw ValueError("attention: key length " + std::to_string(len) + " is outside 0.." + std::to_string(N));
  }
  if (opt.dropout < 0.0 || opt.dropout >= 1.0)
    throw ValueError("attention: dropout must be in [0, 1), got " + std::to_string(opt.dropout));
}

// Adds the flat pair-bias gradient to its parameters (the node's parents from
// `first` on) that need a gradient, each in its own dtype.
void add_pair_gradients(Node& n, size_t first, const std::vector<double>& flat) {
  int64_t offset = 0;
  for (size_t i = first; i < n.parents.size(); ++i) {
    const int64_t size = n.parents[i]->value.numel();
    if (Tensor* g = detail::input_grad(n, i)) {
      dispatch(g->dtype(), [&](auto tag) {
        using T = decltype(tag);
        T* data = g->data<T>();
        for (int64_t e = 0; e < size; ++e) data[e] += static_cast<T>(flat[static_cast<size_t>(offset + e)]);
      });
    }
    offset += size;
  }
}

bool any_requires_grad(const Node& n, size_t first) {
  for (size_t i = first; i < n.parents.size(); ++i)
    if (n.parents[i]->requires_grad) return true;
  return false;
}

}  // namespace

Var attention(const Var& q, const Var& k, const Var& v, const AttentionOptions& opt) {
  check_attention_inputs(q, k, v, opt);
  const int64_t B = q.size(0), H = q.size(1), N = q.size(2);
  kernels::AttentionConfig config;
  config.B = B;
  config.H = H;
  config.N = N;
  config.dh = q.size(3);
  config.scale = opt.scale;
  config.dropout = opt.dropout;
  config.dropout_key = opt.dropout_key;
  config.causal = opt.causal;
  const std::vector<int32_t> lengths = opt.key_lengths;
  config.key_lengths = lengths.empty() ? nullptr : lengths.data();
  const std::shared_ptr<const PairBias> pair = opt.pair_bias;  // the backward's closure keeps it alive
  config.pair_bias = pair.get();
  config.pair_table_bytes = opt.pair_table_bytes;
  Tensor out = Tensor::empty(q.shape(), q.dtype());
  Tensor lse = Tensor::empty({B, H, N}, q.dtype());
  const Tensor bias = opt.bias.defined() ? opt.bias.value() : Tensor();
  // The caller's setting, kept for the backward (which may run on another thread); double ignores it.
  const Precision precision = q.dtype() == DType::F32 ? matmul_precision() : Precision::fp32;
  dispatch(q.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::attention_forward<T>(config, precision, q.value().data<T>(), k.value().data<T>(), v.value().data<T>(),
                                  bias.defined() ? bias.data<T>() : nullptr, out.data<T>(), lse.data<T>());
  });
  std::vector<Var> inputs{q, k, v};
  if (opt.bias.defined()) inputs.push_back(opt.bias);
  const size_t first_pair_input = inputs.size();
  if (pair)
    for (const Var& p : pair->parameters()) inputs.push_back(p);
  const Tensor qv = q.value(), kv = k.value(), vv = v.value();
  // The backward reads q, k, v and the bias from the closure's own tensors, and the output.
  return make_result(OpKind::attention, out, inputs, ValueReads::only_output(), [=](Node& n) mutable {
    config.key_lengths = lengths.empty() ? nullptr : lengths.data();  // the closure's own copy
    std::vector<double> dpair(pair && any_requires_grad(n, first_pair_input) ? pair->gradient_size() : 0, 0.0);
    dispatch(n.value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      auto grad = [&](size_t i) -> T* {
        Tensor* g = i < first_pair_input ? detail::input_grad(n, i) : nullptr;
        return g ? g->data<T>() : nullptr;
      };
      kernels::attention_backward<T>(config, precision, qv.data<T>(), kv.data<T>(), vv.data<T>(),
                                     bias.defined() ? bias.data<T>() : nullptr, n.value.data<T>(), lse.data<T>(),
                                     n.grad.data<T>(), grad(0), grad(1), grad(2), grad(3),
                                     dpair.empty() ? nullptr : dpair.data());
    });
    if (!dpair.empty()) add_pair_gradients(n, first_pair_input, dpair);
  });
}

}  // namespace rotor
