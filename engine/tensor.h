#pragma once
// Tensor: contiguous row-major storage with a shape and a runtime dtype.
// Storage is shared, so reshape() and view() are cheap views; every other
// transformation (permute, slice, ...) is an op that writes a new tensor.
#include <cstddef>
#include <memory>
#include <vector>

#include "engine/dtype.h"
#include "engine/shape.h"

namespace rotor {

class Tensor {
 public:
  Tensor() = default;

  static Tensor empty(const Shape& shape, DType dtype);  // uninitialised
  static Tensor zeros(const Shape& shape, DType dtype);
  static Tensor full(const Shape& shape, DType dtype, double value);
  static Tensor from_doubles(const Shape& shape, DType dtype, const std::vector<double>& values);
  static Tensor scalar(DType dtype, double value) { return full({}, dtype, value); }

  bool defined() const { return storage_ != nullptr; }
  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  int64_t size(int dim) const;  // negative dims count from the end
  int64_t numel() const { return rotor::numel(shape_); }
  DType dtype() const { return dtype_; }

  template <class T>
  T* data() {
    check_type(dtype_of<T>());
    return reinterpret_cast<T*>(storage_.get()) + offset_;
  }
  template <class T>
  const T* data() const {
    check_type(dtype_of<T>());
    return reinterpret_cast<const T*>(storage_.get()) + offset_;
  }

  // Same storage, new shape (one extent may be -1).
  Tensor reshape(const Shape& shape) const;
  // Same storage: `shape` elements starting `offset` elements into this tensor.
  Tensor view(int64_t offset, const Shape& shape) const;
  bool shares_storage(const Tensor& other) const { return storage_ == other.storage_; }
  // Lets go of the storage (freed once no other tensor shares it) but keeps the shape and dtype:
  // what autograd does with a value no backward will read.
  void release() {
    storage_.reset();
    offset_ = 0;
  }

  Tensor clone() const;
  Tensor to(DType dtype) const;
  void copy_from(const Tensor& src);  // same numel, any dtype
  void fill(double value);
  void zero() { fill(0.0); }

  double item() const;  // a one-element tensor's value
  double at(int64_t flat_index) const;
  std::vector<double> to_doubles() const;

 private:
  void check_type(DType want) const;

  std::shared_ptr<std::byte> storage_;
  int64_t offset_ = 0;  // in elements
  Shape shape_;
  DType dtype_ = DType::F32;
};

}  // namespace rotor
