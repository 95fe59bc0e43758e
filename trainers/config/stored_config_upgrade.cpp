#include "trainers/config/stored_config_upgrade.h"

#include <cmath>

#include <fmt/core.h>
#include <yaml-cpp/yaml.h>

namespace rotor {

std::string upgrade_stored_config(const std::string& stored_yaml) {
  YAML::Node root;
  try {
    root = YAML::Load(stored_yaml);
  } catch (const YAML::Exception&) {
    return stored_yaml;  // the parser names what is wrong with it
  }
  YAML::Node model = root["model"];
  if (!model.IsMap() || model["embedding_scale"] || !model["position"].IsMap()) return stored_yaml;
  YAML::Node position = model["position"];
  if (!position["type"].IsScalar() || position["type"].Scalar() != "sinusoidal") return stored_yaml;
  model["embedding_scale"] = "sqrt_d";
  position["scale"] = fmt::format("{}", std::sqrt(0.5));  // shortest round trip: exactly sqrt(1/2)
  YAML::Emitter out;
  out << root;
  return out.c_str();
}

}  // namespace rotor
