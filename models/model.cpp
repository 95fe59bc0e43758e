#include "models/model.h"

namespace rotor {

Model::Model(const ModelConfig& config, DType dtype, bool cls_slot)
    : config_(config), dtype_(dtype), params_(dtype), encoder_(params_, config_, dtype, cls_slot) {}

void Model::initialize(uint64_t seed) {
  params_.allocate(seed);
  encoder_.initialize(params_, seed);
}

}  // namespace rotor
