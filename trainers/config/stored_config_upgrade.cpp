#include "trainers/config/stored_config_upgrade.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <yaml-cpp/yaml.h>

#include "models/interleaved_position.h"
#include "models/position_encoding.h"

namespace rotor {
namespace {

// Returns whether it changed `position`.
bool add_vaswani_scales(YAML::Node model, YAML::Node position) {
  if (model["embedding_scale"] || position["type"].Scalar() != "sinusoidal") return false;
  model["embedding_scale"] = "sqrt_d";
  position["scale"] = fmt::format("{}", std::sqrt(0.5));  // shortest round trip: exactly sqrt(1/2)
  return true;
}

// Position keys in `position` (model.position, or model.interleaved_position with `interleaved`) that no build
// reads: another encoding's, and under the interleaved block the whole model's.
bool drop_unread_position_keys(YAML::Node position, bool interleaved) {
  if (!position.IsMap() || !position["type"].IsScalar()) return false;
  const std::string type = position["type"].Scalar();
  const auto& names = position_encoding_names();
  if (std::find(names.begin(), names.end(), type) == names.end()) return false;  // the parser names it
  const PositionEncodingSpec& encoding = position_encoding(type);
  const std::vector<std::string> model_wide = interleaved ? model_wide_position_keys() : std::vector<std::string>{};
  std::vector<std::string> foreign;
  for (const auto& entry : position) {
    const std::string key = entry.first.Scalar();
    if (key == "type" || find_position_option(key) == nullptr) continue;  // every, first: the block's own
    if (!encoding.declares(key) || std::find(model_wide.begin(), model_wide.end(), key) != model_wide.end())
      foreign.push_back(key);
  }
  for (const std::string& key : foreign) position.remove(key);
  return !foreign.empty();
}

}  // namespace

std::string upgrade_stored_config(const std::string& stored_yaml) {
  YAML::Node root;
  try {
    root = YAML::Load(stored_yaml);
  } catch (const YAML::Exception&) {
    return stored_yaml;  // the parser names what is wrong with it
  }
  YAML::Node model = root["model"];
  if (!model.IsMap() || !model["position"].IsMap() || !model["position"]["type"].IsScalar()) return stored_yaml;
  YAML::Node position = model["position"];
  const bool scaled = add_vaswani_scales(model, position);
  const bool dropped = drop_unread_position_keys(position, false);
  const bool dropped_interleaved = drop_unread_position_keys(model["interleaved_position"], true);
  if (!scaled && !dropped && !dropped_interleaved) return stored_yaml;
  YAML::Emitter out;
  out << root;
  return out.c_str();
}

}  // namespace rotor
