// project_heads: attention's q/k/v projections as one product written in head
// layout. One GEMM against the weights' rows concatenated packs x once instead
// of once per projection, and one pass writes every output in [B, H, N, dh]
// with its bias added, instead of a bias pass and a permute copy per output.
#include <algorithm>
#include <cstring>
#include <string>

#include "engine/kernels/elementwise.h"
#include "engine/ops.h"
#include "engine/ops/op_util.h"
#include "engine/ops/product.h"
#include "engine/parallel.h"

namespace rotor {

namespace {

// x [batch, length, din]; P weights [d, din]; each output [batch, heads, length, dh].
struct HeadLayout {
  int64_t batch, length, din, d, heads, dh, projections;
  int64_t rows() const { return batch * length; }
  int64_t width() const { return projections * d; }  // columns of the packed product
};

std::string shapes_of(const std::vector<Var>& vs) {
  std::string s;
  for (const Var& v : vs) s += (s.empty() ? "" : ", ") + (v.defined() ? to_string(v.shape()) : std::string("none"));
  return "{" + s + "}";
}

HeadLayout check_layout(const Var& x, const std::vector<Var>& weights, const std::vector<Var>& biases, int64_t heads) {
  const std::string where = "head_projection: x " + to_string(x.shape()) + ", weights " + shapes_of(weights) +
                            ", biases " + shapes_of(biases) + ", heads " + std::to_string(heads) + ": ";
  if (x.rank() != 3) throw ShapeError(where + "x must be [B, N, din]");
  if (weights.empty()) throw ShapeError(where + "needs at least one weight");
  const int64_t d = weights[0].rank() == 2 ? weights[0].size(0) : -1;
  for (const Var& w : weights) {
    detail::check_same_dtype(x, w, "head_projection");
    if (w.rank() != 2 || w.size(0) != d || w.size(1) != x.size(2))
      throw ShapeError(where + "every weight must be [d, " + std::to_string(x.size(2)) + "] with the same d");
  }
  if (heads < 1 || d % heads != 0) throw ShapeError(where + "d = " + std::to_string(d) + " is not split by heads");
  const bool with_bias = !biases.empty() && biases[0].defined();
  if (!biases.empty() && biases.size() != weights.size())
    throw ShapeError(where + "needs one bias per weight (or none)");
  for (const Var& b : biases) {
    if (b.defined() != with_bias) throw ShapeError(where + "biases must be all defined or all undefined");
    if (b.defined()) detail::check_same_dtype(x, b, "head_projection");
    if (b.defined() && (b.rank() != 1 || b.size(0) != d)) throw ShapeError(where + "every bias must be [d]");
  }
  return {x.size(0), x.size(1), x.size(2), d, heads, d / heads, static_cast<int64_t>(weights.size())};
}

// `parts` (same shape [n, ...]) stacked along dim 0.
Tensor stacked(const std::vector<Tensor>& parts) {
  Shape shape = parts[0].shape();
  shape[0] *= static_cast<int64_t>(parts.size());
  Tensor out = Tensor::empty(shape, parts[0].dtype());
  dispatch(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (size_t i = 0; i < parts.size(); ++i)
      std::copy_n(parts[i].data<T>(), parts[i].numel(), out.data<T>() + i * parts[i].numel());
  });
  return out;
}

// Row r = (b, n) of the packed [rows, P*d] matrix is, for projection p and
// head h, the dh elements at out_p[b, h, n, :]: where that run starts.
int64_t head_offset(const HeadLayout& s, int64_t r, int64_t h) {
  return ((r / s.length * s.heads + h) * s.length + r % s.length) * s.dh;
}

// out_p[b, h, n, :] = y[(b, n), p*d + h*dh + :] + bias_p[h*dh + :]; row by row, no reduction.
template <class T>
void scatter_heads(const HeadLayout& s, const T* y, const T* bias, const std::vector<T*>& out) {
  parallel_for(s.rows(), grain_for(s.width()), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t p = 0; p < s.projections; ++p)
        for (int64_t h = 0; h < s.heads; ++h) {
          const int64_t col = p * s.d + h * s.dh;
          const T* src = y + r * s.width() + col;
          T* dst = out[p] + head_offset(s, r, h);
          if (bias)
            for (int64_t e = 0; e < s.dh; ++e) dst[e] = src[e] + bias[col + e];
          else
            std::copy_n(src, s.dh, dst);
        }
  });
}

// dy[(b, n), p*d + h*dh + :] = grad_p[b, h, n, :], zeros where grad_p is undefined.
template <class T>
void gather_heads(const HeadLayout& s, const std::vector<Tensor>& grads, T* dy) {
  parallel_for(s.rows(), grain_for(s.width()), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t p = 0; p < s.projections; ++p)
        for (int64_t h = 0; h < s.heads; ++h) {
          T* dst = dy + r * s.width() + p * s.d + h * s.dh;
          if (grads[p].defined())
            std::copy_n(grads[p].data<T>() + head_offset(s, r, h), s.dh, dst);
          else
            std::fill_n(dst, s.dh, T(0));
        }
  });
}

// Runs add(acc) on the gradients of parents first .. first + count - 1 (each
// `block` elements) stacked in one buffer: each gets the bits its own
// accumulation would give, while the product behind `add` runs once.
template <class T, class Add>
void accumulate_stacked(Node& hub, size_t first, int64_t count, int64_t block, Add&& add) {
  std::vector<Tensor*> grads;
  for (int64_t i = 0; i < count; ++i) grads.push_back(detail::input_grad(hub, first + i));
  if (std::none_of(grads.begin(), grads.end(), [](Tensor* g) { return g != nullptr; })) return;
  std::vector<T> acc(static_cast<size_t>(count * block), T(0));
  for (int64_t i = 0; i < count; ++i)
    if (grads[i]) std::copy_n(grads[i]->data<T>(), block, acc.data() + i * block);
  add(acc.data());
  for (int64_t i = 0; i < count; ++i)
    if (grads[i]) std::copy_n(acc.data() + i * block, block, grads[i]->data<T>());
}

// The values of parents first .. first + count - 1.
std::vector<Tensor> parent_values(const Node& hub, size_t first, int64_t count) {
  std::vector<Tensor> values;
  for (int64_t i = 0; i < count; ++i) values.push_back(hub.parents[first + i]->value);
  return values;
}

// The hub's backward: parents are x, the P weights, then the P biases if any.
struct HeadProjectionBackward {
  HeadLayout s;
  Precision p;
  bool with_bias;

  void operator()(Node& hub, const std::vector<Tensor>& grads) const {
    dispatch(hub.parents[0]->value.dtype(), [&](auto tag) { run<decltype(tag)>(hub, grads); });
  }

  template <class T>
  void run(Node& hub, const std::vector<Tensor>& grads) const {
    const int64_t rows = s.rows(), width = s.width(), din = s.din;
    Tensor dy = Tensor::empty({rows, width}, hub.parents[0]->value.dtype());
    gather_heads<T>(s, grads, dy.data<T>());
    const T* g = dy.data<T>();
    if (Tensor* gx = detail::input_grad(hub, 0)) {
      // dx = dY Wcat, one product over K = P*d; Wcat stacked anew rather than held from the forward.
      const Tensor wcat = stacked(parent_values(hub, 1, s.projections));
      detail::product<T>(p, false, false, rows, din, width, g, wcat.data<T>(), T(1), gx->data<T>());
    }
    const T* x = hub.parents[0]->value.data<T>();
    accumulate_stacked<T>(hub, 1, s.projections, s.d * din, [&](T* dw) {  // dWcat = dY^T x
      detail::product<T>(p, true, false, width, din, rows, g, x, T(1), dw);
    });
    if (with_bias)  // db = column sums of dY
      accumulate_stacked<T>(hub, 1 + s.projections, s.projections, s.d, [&](T* db) {
        kernels::sum_to_shape<T>(g, {rows, width}, db, {width});
      });
  }
};

}  // namespace

std::vector<Var> project_heads(const Var& x, const std::vector<Var>& weights, const std::vector<Var>& biases,
                               int64_t heads) {
  const HeadLayout s = check_layout(x, weights, biases, heads);
  const bool with_bias = !biases.empty() && biases[0].defined();
  const Precision p = detail::product_precision(x.dtype());
  std::vector<Tensor> w, b;
  for (const Var& v : weights) w.push_back(v.value());
  for (size_t i = 0; with_bias && i < biases.size(); ++i) b.push_back(biases[i].value());
  const Tensor wcat = stacked(w);  // [P*d, din]
  std::vector<Tensor> outs;
  for (int64_t i = 0; i < s.projections; ++i)
    outs.push_back(Tensor::empty({s.batch, s.heads, s.length, s.dh}, x.dtype()));
  dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    Tensor y = Tensor::empty({s.rows(), s.width()}, x.dtype());
    detail::product<T>(p, false, true, s.rows(), s.width(), s.din, x.value().data<T>(), wcat.data<T>(), T(0),
                       y.data<T>());
    std::vector<T*> out;
    for (Tensor& o : outs) out.push_back(o.data<T>());
    const Tensor bias = with_bias ? stacked(b) : Tensor();
    scatter_heads<T>(s, y.data<T>(), with_bias ? bias.data<T>() : nullptr, out);
  });
  std::vector<Var> inputs{x};
  inputs.insert(inputs.end(), weights.begin(), weights.end());
  if (with_bias) inputs.insert(inputs.end(), biases.begin(), biases.end());
  const ValueReads reads{(uint64_t{2} << s.projections) - 1, false};  // x and the weights
  return make_results(OpKind::head_projection, outs, inputs, reads, HeadProjectionBackward{s, p, with_bias});
}

}  // namespace rotor
