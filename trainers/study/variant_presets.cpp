#include "trainers/study/variant_presets.h"

#include <algorithm>

#include "models/position_encoding.h"

namespace rotor {
namespace {

std::string hyphenated(std::string name) {
  std::replace(name.begin(), name.end(), '_', '-');
  return name;
}

}  // namespace

std::vector<std::string> variant_preset_names() {
  std::vector<std::string> names;
  for (const std::string& type : position_encoding_names()) {
    names.push_back(hyphenated(type));
    if (type == "rope") names.push_back("rope-half");
  }
  names.push_back("linear-rope");
  names.push_back("linear-rope-code");
  return names;
}

std::optional<std::vector<std::string>> variant_preset(const std::string& given, const Config& base) {
  const std::string name = hyphenated(given);  // t5_bias, the position type's spelling, is t5-bias
  if (name == "rope") return {{"model.position.type=rope", "model.position.layout=interleaved"}};
  if (name == "rope-half") return {{"model.position.type=rope", "model.position.layout=half"}};
  if (name == "linear-rope") return {{"model.attention=linear", "model.position.type=rope"}};  // eq. 19
  if (name == "linear-rope-code")  // RoPE before the feature map, as RoFormer's released code
    return {{"model.attention=linear", "model.position.type=rope", "model.linear_rotation=before_feature_map"}};
  if (name == "learned") {
    // One row per position of a training window (and the CLS vector's), or of
    // an evaluation window where the base sets longer ones (data.eval_max_len):
    // the rows past the training length are never trained, which is what
    // learned absolute positions do beyond it.
    const int64_t rows = base.model.positions_for(std::max(base.data.max_len, base.data.eval_max_len));
    return {{"model.position.type=learned", "model.position.max_len=" + std::to_string(rows)}};
  }
  for (const std::string& type : position_encoding_names()) {  // every other encoding: its type, its defaults
    if (name != hyphenated(type)) continue;
    if (position_encoding(type).needs_composed_attention)  // its bias reads every logit (CoPE)
      return {{"model.position.type=" + type, "model.attention_kernel=composed"}};
    return {{"model.position.type=" + type}};
  }
  return std::nullopt;
}

}  // namespace rotor
