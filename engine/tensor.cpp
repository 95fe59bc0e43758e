#include "engine/tensor.h"

#include <cstring>

#include "engine/parallel.h"
#include "engine/tensor_buffer.h"

namespace rotor {

Tensor Tensor::empty(const Shape& shape, DType dtype) {
  for (int64_t d : shape)
    if (d < 0) throw ShapeError("Tensor: negative extent in shape " + to_string(shape));
  Tensor t;
  t.shape_ = shape;
  t.dtype_ = dtype;
  t.storage_ = acquire_buffer(static_cast<size_t>(rotor::numel(shape)) * dtype_size(dtype));
  return t;
}

Tensor Tensor::zeros(const Shape& shape, DType dtype) { return full(shape, dtype, 0.0); }

Tensor Tensor::full(const Shape& shape, DType dtype, double value) {
  Tensor t = empty(shape, dtype);
  t.fill(value);
  return t;
}

Tensor Tensor::from_doubles(const Shape& shape, DType dtype, const std::vector<double>& values) {
  if (static_cast<int64_t>(values.size()) != rotor::numel(shape))
    throw ShapeError("Tensor::from_doubles: " + std::to_string(values.size()) + " values for shape " +
                     to_string(shape));
  Tensor t = empty(shape, dtype);
  dispatch(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* p = t.data<T>();
    for (size_t i = 0; i < values.size(); ++i) p[i] = static_cast<T>(values[i]);
  });
  return t;
}

int64_t Tensor::size(int dim) const { return shape_[normalize_dim(dim, rank(), "Tensor::size")]; }

Tensor Tensor::reshape(const Shape& shape) const {
  Shape s = shape;
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == -1) {
      if (infer >= 0) throw ShapeError("reshape: more than one -1 in " + to_string(shape));
      infer = static_cast<int>(i);
    } else {
      known *= s[i];
    }
  }
  if (infer >= 0 && known > 0) s[infer] = numel() / known;
  if (rotor::numel(s) != numel())
    throw ShapeError("reshape: cannot view " + to_string(shape_) + " as " + to_string(shape));
  Tensor t = *this;
  t.shape_ = s;
  return t;
}

Tensor Tensor::view(int64_t offset, const Shape& shape) const {
  if (offset < 0 || offset + rotor::numel(shape) > numel())
    throw ShapeError("view: " + to_string(shape) + " at offset " + std::to_string(offset) + " does not fit in " +
                     to_string(shape_));
  Tensor t = *this;
  t.offset_ = offset_ + offset;
  t.shape_ = shape;
  return t;
}

Tensor Tensor::clone() const {
  Tensor t = empty(shape_, dtype_);
  std::memcpy(t.storage_.get(), storage_.get() + offset_ * dtype_size(dtype_),
              static_cast<size_t>(numel()) * dtype_size(dtype_));
  return t;
}

Tensor Tensor::to(DType dtype) const {
  if (dtype == dtype_) return clone();
  Tensor t = empty(shape_, dtype);
  t.copy_from(*this);
  return t;
}

void Tensor::copy_from(const Tensor& src) {
  if (src.numel() != numel()) throw ShapeError("copy_from: " + to_string(src.shape_) + " into " + to_string(shape_));
  dispatch(dtype_, [&](auto dst_tag) {
    using D = decltype(dst_tag);
    dispatch(src.dtype_, [&](auto src_tag) {
      using S = decltype(src_tag);
      D* d = data<D>();
      const S* s = src.data<S>();
      parallel_for(numel(), kElementwiseGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) d[i] = static_cast<D>(s[i]);
      });
    });
  });
}

void Tensor::fill(double value) {
  dispatch(dtype_, [&](auto tag) {
    using T = decltype(tag);
    T* p = data<T>();
    const T v = static_cast<T>(value);
    parallel_for(numel(), kElementwiseGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) p[i] = v;
    });
  });
}

double Tensor::at(int64_t i) const {
  if (i < 0 || i >= numel()) throw ShapeError("Tensor::at: index out of range");
  return dispatch(dtype_, [&](auto tag) { return static_cast<double>(data<decltype(tag)>()[i]); });
}

double Tensor::item() const {
  if (numel() != 1) throw ShapeError("item: tensor of shape " + to_string(shape_) + " has not one element");
  return at(0);
}

std::vector<double> Tensor::to_doubles() const {
  std::vector<double> out(static_cast<size_t>(numel()));
  dispatch(dtype_, [&](auto tag) {
    const auto* p = data<decltype(tag)>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(p[i]);
  });
  return out;
}

void Tensor::check_type(DType want) const {
  if (!storage_) throw ValueError("Tensor: access to an undefined or released tensor");
  if (want != dtype_)
    throw ValueError(std::string("Tensor: holds ") + dtype_name(dtype_) + ", accessed as " + dtype_name(want));
}

}  // namespace rotor
