#pragma once
// Named parameters in one flat buffer. A model declares each parameter (name,
// shape, init), then allocate() lays them out contiguously in declaration
// order; each parameter is a view into the flat value buffer and its gradient
// a view into the flat gradient buffer. Optimizer updates, gradient clipping,
// all-reduce and checkpoints then act on two flat tensors, and address state
// by parameter name.
#include <map>
#include <string>
#include <vector>

#include "engine/tensor.h"
#include "engine/var.h"

namespace rotor {

struct ParameterInit {
  enum class Kind { normal, uniform, constant, zeros, ones } kind = Kind::normal;
  double scale = 0.02;  // normal: the std; uniform: half the width of [low, high); constant: the value
  double centre = 0.0;  // uniform: (low + high) / 2
  static ParameterInit normal(double std) { return {Kind::normal, std}; }
  // U[low, high), drawn as centre + scale (2u - 1). PyTorch's nn.Linear default is
  // uniform(-1 / sqrt(fan_in), 1 / sqrt(fan_in)) for weight and bias.
  static ParameterInit uniform(double low, double high) { return {Kind::uniform, (high - low) / 2, (low + high) / 2}; }
  static ParameterInit constant(double value) { return {Kind::constant, value}; }
  static ParameterInit zeros() { return {Kind::zeros, 0.0}; }
  static ParameterInit ones() { return {Kind::ones, 0.0}; }
};

struct ParameterInfo {
  std::string name;
  Shape shape;
  int64_t offset = 0;  // elements into the flat buffers
  ParameterInit init;
  bool weight_decay = true;  // AdamW decays weights, not biases and norm gains
};

using ParameterId = int;

class ParameterStore {
 public:
  explicit ParameterStore(DType dtype = DType::F32) : dtype_(dtype) {}

  // Declaration phase (before allocate). Names must be unique.
  ParameterId declare(const std::string& name, const Shape& shape, ParameterInit init, bool weight_decay = true);
  // Lays out the buffers and initialises every parameter; a normal init of
  // parameter p draws from RandomKey{seed, stream_id(p.name)}, so values do not
  // depend on declaration order or thread count.
  void allocate(uint64_t seed);
  bool allocated() const { return values_.defined(); }

  Var var(ParameterId id) const;  // the leaf Var for autograd
  const Var& var(const std::string& name) const;
  ParameterId id(const std::string& name) const;  // throws ValueError naming unknown parameters
  bool contains(const std::string& name) const { return index_.count(name) > 0; }

  Tensor& values() { return values_; }
  const Tensor& values() const { return values_; }
  Tensor& grads() { return grads_; }
  const Tensor& grads() const { return grads_; }
  Tensor value(ParameterId id) const;  // view
  Tensor grad(ParameterId id) const;   // view

  const std::vector<ParameterInfo>& infos() const { return infos_; }
  int64_t total_size() const { return total_; }
  DType dtype() const { return dtype_; }
  void zero_grad() { grads_.zero(); }

 private:
  void check_allocated(const char* what) const;

  DType dtype_;
  std::vector<ParameterInfo> infos_;
  std::map<std::string, ParameterId> index_;
  std::vector<Var> vars_;
  Tensor values_, grads_;
  int64_t total_ = 0;
};

}  // namespace rotor
