#include "trainers/study/variant_presets.h"

#include <algorithm>

namespace rotor {

std::vector<std::string> variant_preset_names() {
  return {"rope", "rope-half", "sinusoidal", "t5-bias", "alibi", "learned", "none", "linear-rope"};
}

std::optional<std::vector<std::string>> variant_preset(const std::string& given, const Config& base) {
  std::string name = given;
  std::replace(name.begin(), name.end(), '_', '-');  // t5_bias, the position type's spelling, is t5-bias
  if (name == "rope") return {{"model.position.type=rope", "model.position.layout=interleaved"}};
  if (name == "rope-half") return {{"model.position.type=rope", "model.position.layout=half"}};
  if (name == "linear-rope") return {{"model.attention=linear", "model.position.type=rope"}};
  if (name == "learned") {
    // One row per position of a training window (and the CLS vector's), or of
    // an evaluation window where the base sets longer ones (data.eval_max_len):
    // the rows past the training length are never trained, which is what
    // learned absolute positions do beyond it.
    const int64_t rows = base.model.positions_for(std::max(base.data.max_len, base.data.eval_max_len));
    return {{"model.position.type=learned", "model.position.max_len=" + std::to_string(rows)}};
  }
  if (name == "t5-bias") return {{"model.position.type=t5_bias"}};
  for (const char* type : {"sinusoidal", "alibi", "none"})
    if (name == type) return {{std::string("model.position.type=") + type}};
  return std::nullopt;
}

}  // namespace rotor
