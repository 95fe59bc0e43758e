#pragma once
// Optimizer buffers holding one value per parameter element (momentum, Adam's
// moments). Each slot is a flat tensor laid out exactly like the store's value
// and gradient buffers, so an update walks parameter, gradient and state with
// one offset; checkpoints address the slots per parameter as
// "<slot>/<parameter name>".
#include <string>
#include <vector>

#include "engine/optim/optimizer.h"
#include "engine/parameters.h"

namespace rotor {

class SlotBuffers {
 public:
  // Zero-initialised slots named `slots` for the (allocated) store. `owner`
  // prefixes error messages, e.g. "AdamW".
  SlotBuffers(const ParameterStore& params, std::vector<std::string> slots, std::string owner);

  // The flat buffer of slot i (in constructor order).
  Tensor& flat(size_t i) { return buffers_[i]; }

  // Adds a copy of every slot, split per parameter, to `state`.
  void export_to(OptimizerState& state) const;
  // Checks that `state` holds exactly this optimizer's entries: every
  // "<slot>/<name>" tensor with the parameter's shape and dtype, the scalars
  // named in `scalars`, and nothing else; then copies the tensors in. Throws
  // ValueError naming the first bad entry before copying anything.
  void import_from(const OptimizerState& state, const std::vector<std::string>& scalars);

  const std::string& owner() const { return owner_; }

 private:
  const ParameterStore& params_;
  std::vector<std::string> slots_;
  std::vector<Tensor> buffers_;
  std::string owner_;
};

// Reads a step counter from `state`: a finite, non-negative whole number.
// Throws ValueError naming `owner` and the key otherwise.
int64_t read_counter(const OptimizerState& state, const std::string& key, const std::string& owner);

}  // namespace rotor
