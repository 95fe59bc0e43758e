#include "engine/optim/slot_buffers.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "engine/error.h"

namespace rotor {

SlotBuffers::SlotBuffers(const ParameterStore& params, std::vector<std::string> slots, std::string owner)
    : params_(params), slots_(std::move(slots)), owner_(std::move(owner)) {
  if (!params.allocated()) throw ValueError(owner_ + ": the parameter store must be allocated first");
  for (size_t i = 0; i < slots_.size(); ++i) buffers_.push_back(Tensor::zeros({params.total_size()}, params.dtype()));
}

void SlotBuffers::export_to(OptimizerState& state) const {
  for (size_t s = 0; s < slots_.size(); ++s)
    for (const ParameterInfo& p : params_.infos())
      state.tensors[slots_[s] + "/" + p.name] = buffers_[s].view(p.offset, p.shape).clone();
}

void SlotBuffers::import_from(const OptimizerState& state, const std::vector<std::string>& scalars) {
  const std::string where = owner_ + ".import_state: ";
  std::set<std::string> expected;
  for (const std::string& slot : slots_)
    for (const ParameterInfo& p : params_.infos()) {
      const std::string key = slot + "/" + p.name;
      expected.insert(key);
      auto it = state.tensors.find(key);
      if (it == state.tensors.end()) throw ValueError(where + "missing tensor '" + key + "'");
      const Tensor& t = it->second;
      if (!t.defined() || t.shape() != p.shape || t.dtype() != params_.dtype())
        throw ValueError(where + "tensor '" + key + "' is " +
                         (t.defined() ? to_string(t.shape()) + " " + dtype_name(t.dtype()) : "undefined") +
                         ", expected " + to_string(p.shape) + " " + dtype_name(params_.dtype()));
    }
  for (const auto& [key, tensor] : state.tensors)
    if (!expected.count(key)) throw ValueError(where + "unexpected tensor '" + key + "'");
  for (const std::string& key : scalars)
    if (!state.scalars.count(key)) throw ValueError(where + "missing scalar '" + key + "'");
  for (const auto& [key, value] : state.scalars)
    if (std::find(scalars.begin(), scalars.end(), key) == scalars.end())
      throw ValueError(where + "unexpected scalar '" + key + "'");

  for (size_t s = 0; s < slots_.size(); ++s)
    for (const ParameterInfo& p : params_.infos())
      buffers_[s].view(p.offset, p.shape).copy_from(state.tensors.at(slots_[s] + "/" + p.name));
}

int64_t read_counter(const OptimizerState& state, const std::string& key, const std::string& owner) {
  auto it = state.scalars.find(key);
  if (it == state.scalars.end()) throw ValueError(owner + ".import_state: missing scalar '" + key + "'");
  const double v = it->second;
  if (!std::isfinite(v) || v < 0 || v != std::floor(v) || v > 9007199254740992.0)
    throw ValueError(owner + ".import_state: scalar '" + key + "' must be a non-negative whole number, got " +
                     std::to_string(v));
  return static_cast<int64_t>(v);
}

}  // namespace rotor
