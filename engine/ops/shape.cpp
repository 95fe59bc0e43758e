// reshape, permute/transpose, concat, slice/split.
#include <numeric>
#include <string>

#include "engine/kernels/elementwise.h"
#include "engine/kernels/layout.h"
#include "engine/ops.h"
#include "engine/ops/op_util.h"

namespace rotor {
namespace {

Var permute_as(OpKind kind, const Var& x, const std::vector<int>& perm) {
  Shape ys(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) ys[i] = x.shape()[perm[i]];
  Tensor y = Tensor::empty(ys, x.dtype());
  dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::permute<T>(x.value().data<T>(), x.shape(), perm, y.data<T>(), false);
  });
  return make_result(kind, y, {x}, ValueReads::none(), [perm](Node& n) {
    std::vector<int> inverse(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<int>(i);
    dispatch(n.value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if (Tensor* gx = detail::input_grad(n, 0))
        kernels::permute<T>(n.grad.data<T>(), n.value.shape(), inverse, gx->data<T>(), true);
    });
  });
}

// Sizes of a tensor around `dim`: rows before it and elements per step after it.
struct Around {
  int64_t outer = 1, inner = 1;
};
Around around(const Shape& s, int dim) {
  Around a;
  for (int i = 0; i < dim; ++i) a.outer *= s[i];
  for (size_t i = dim + 1; i < s.size(); ++i) a.inner *= s[i];
  return a;
}

}  // namespace

Var reshape(const Var& x, const Shape& shape) {
  Tensor y = x.value().reshape(shape);
  return make_result(OpKind::reshape, y, {x}, ValueReads::none(), [](Node& n) {
    dispatch(n.value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if (Tensor* gx = detail::input_grad(n, 0))
        kernels::axpy<T>(n.grad.data<T>(), gx->data<T>(), n.value.numel(), 1.0);
    });
  });
}

Var permute(const Var& x, const std::vector<int>& dims) {
  std::vector<int> perm(dims.size());
  std::vector<bool> used(dims.size(), false);
  if (static_cast<int>(dims.size()) != x.rank())
    throw ShapeError("permute: " + std::to_string(dims.size()) + " dims for a tensor of rank " +
                     std::to_string(x.rank()));
  for (size_t i = 0; i < dims.size(); ++i) {
    perm[i] = normalize_dim(dims[i], x.rank(), "permute");
    if (used[perm[i]]) throw ShapeError("permute: dim " + std::to_string(dims[i]) + " repeated");
    used[perm[i]] = true;
  }
  return permute_as(OpKind::permute, x, perm);
}

Var transpose(const Var& x, int dim0, int dim1) {
  std::vector<int> perm(x.rank());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[normalize_dim(dim0, x.rank(), "transpose")], perm[normalize_dim(dim1, x.rank(), "transpose")]);
  return permute_as(OpKind::transpose, x, perm);
}

Var concat(const std::vector<Var>& xs, int dim) {
  if (xs.empty()) throw ShapeError("concat: no inputs");
  const int d = normalize_dim(dim, xs[0].rank(), "concat");
  Shape os = xs[0].shape();
  os[d] = 0;
  for (const Var& x : xs) {
    Shape probe = x.shape();
    if (x.rank() != xs[0].rank()) throw ShapeError("concat: inputs of different rank");
    probe[d] = xs[0].shape()[d];
    if (probe != xs[0].shape())
      throw ShapeError("concat: " + to_string(x.shape()) + " does not match " + to_string(xs[0].shape()) +
                       " outside dim " + std::to_string(dim));
    detail::check_same_dtype(x, xs[0], "concat");
    os[d] += x.shape()[d];
  }
  Tensor y = Tensor::empty(os, xs[0].dtype());
  const Around ar = around(os, d);
  const int64_t out_row = os[d] * ar.inner;
  dispatch(y.dtype(), [&](auto tag) {
    using T = decltype(tag);
    int64_t offset = 0;
    for (const Var& x : xs) {
      const int64_t len = x.shape()[d] * ar.inner;
      kernels::copy_rows<T>(x.value().data<T>(), len, y.data<T>() + offset, out_row, ar.outer, len, false);
      offset += len;
    }
  });
  return make_result(OpKind::concat, y, xs, ValueReads::none(), [d, ar, out_row](Node& n) {
    dispatch(n.value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      int64_t offset = 0;
      for (size_t i = 0; i < n.parents.size(); ++i) {
        const int64_t len = n.parents[i]->value.shape()[d] * ar.inner;
        if (Tensor* g = detail::input_grad(n, i))
          kernels::copy_rows<T>(n.grad.data<T>() + offset, out_row, g->data<T>(), len, ar.outer, len, true);
        offset += len;
      }
    });
  });
}

Var slice(const Var& x, int dim, int64_t start, int64_t end) {
  const int d = normalize_dim(dim, x.rank(), "slice");
  if (start < 0 || end > x.shape()[d] || start > end)
    throw ShapeError("slice: [" + std::to_string(start) + ", " + std::to_string(end) + ") is outside dim " +
                     std::to_string(dim) + " of " + to_string(x.shape()));
  Shape os = x.shape();
  os[d] = end - start;
  const Around ar = around(x.shape(), d);
  const int64_t in_row = x.shape()[d] * ar.inner, len = os[d] * ar.inner, skip = start * ar.inner;
  Tensor y = Tensor::empty(os, x.dtype());
  dispatch(y.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::copy_rows<T>(x.value().data<T>() + skip, in_row, y.data<T>(), len, ar.outer, len, false);
  });
  return make_result(OpKind::slice, y, {x}, ValueReads::none(), [=](Node& n) {
    dispatch(n.value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if (Tensor* g = detail::input_grad(n, 0))
        kernels::copy_rows<T>(n.grad.data<T>(), len, g->data<T>() + skip, in_row, ar.outer, len, true);
    });
  });
}

std::vector<Var> split(const Var& x, int dim, const std::vector<int64_t>& sizes) {
  const int d = normalize_dim(dim, x.rank(), "split");
  int64_t total = 0;
  for (int64_t s : sizes) total += s;
  if (total != x.shape()[d])
    throw ShapeError("split: sizes add up to " + std::to_string(total) + " but dim " + std::to_string(dim) + " has " +
                     std::to_string(x.shape()[d]));
  std::vector<Var> parts;
  int64_t start = 0;
  for (int64_t s : sizes) {
    parts.push_back(slice(x, d, start, start + s));
    start += s;
  }
  return parts;
}

}  // namespace rotor
