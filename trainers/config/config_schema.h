#pragma once
// Every configuration key, declared once: its dotted path, type, help text,
// allowed values and how to read and write it in a Config. The loader, the
// resolved-config dump and `rotor config --reference` are all driven by this.
#include <functional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "trainers/config/config.h"

namespace rotor {

struct ConfigOption {
  std::string key;   // "model.position.base"
  std::string type;  // integer | number | boolean | string | list of strings
  std::string help;
  std::vector<std::string> choices;  // non-empty for enumerations
  // Sets the field from a YAML value; throws YAML::Exception when the value
  // is not of the option's type.
  std::function<void(Config&, const YAML::Node&)> set;
  std::function<YAML::Node(const Config&)> get;
};

const std::vector<ConfigOption>& config_options();
const ConfigOption* find_option(const std::string& key);

// Keys that may differ when resuming a run (run length and logging).
bool resumable_change(const std::string& key);

}  // namespace rotor
