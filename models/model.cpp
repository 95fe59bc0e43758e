#include "models/model.h"

namespace rotor {

Model::Model(const ModelConfig& config, DType dtype, bool cls_slot)
    : config_(config),
      dtype_(dtype),
      params_(dtype),
      encoder_(params_, config_, dtype, cls_slot),
      encoder_parameter_count_(params_.infos().size()) {}

void Model::initialize(uint64_t seed) {
  params_.allocate(seed);
  encoder_.initialize(params_, seed);
}

std::vector<std::string> Model::encoder_parameters() const {
  std::vector<std::string> names;
  for (size_t i = 0; i < encoder_parameter_count_; ++i) names.push_back(params_.infos()[i].name);
  return names;
}

}  // namespace rotor
