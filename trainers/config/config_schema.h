#pragma once
// Every configuration key, declared once: its dotted path, type, default (the
// Config member initialiser), allowed values or range, help text, whether it
// may change on resume, and how to read and write it in a Config. The loader,
// its validation, the resolved-config dump, the resume check and
// `rotor config --reference` are all driven by this table.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "models/value_range.h"
#include "trainers/config/config.h"

namespace rotor {

// One row per key. Checks of a single key (allowed values, range) live in its
// row and run once, when a config is loaded; rules that tie several keys
// together are in validate() (config_loader.h).
struct ConfigOption {
  std::string key;   // "model.position.base"
  std::string type;  // integer | number | boolean | string | list of strings | list of integers
  std::string help;
  // Allowed values of an enumeration; a layer that names its own values
  // (e.g. models' position encodings) passes its list of names here.
  std::vector<std::string> choices;
  // Bounds of a number; unset: unbounded.
  ValueRange range;
  // A file or folder: relative values in a config file are resolved against
  // that file's folder; values from --set against the working directory.
  bool is_path = false;
  // May differ when resuming a run (run length, frequencies, logging).
  bool may_change_on_resume = false;
  // The objectives it means something to (empty: all). A config training
  // another may not set it, and its dumped config leaves it out.
  std::vector<ObjectiveKind> objectives;
  // A model.position.* key ("base"): read only by the encodings declaring it, so a
  // run of another encoding leaves it out of its dumped config. Empty for other keys.
  std::string position_key;
  // Under model.interleaved_position, read only while it is on (every > 0).
  bool interleaved = false;
  // Sets the field from a YAML value; throws YAML::Exception when the value
  // is not of the option's type.
  std::function<void(Config&, const YAML::Node&)> set;
  std::function<YAML::Node(const Config&)> get;

  ConfigOption& one_of(std::vector<std::string> values);
  ConfigOption& at_least(double bound) {
    range.at_least(bound);
    return *this;
  }
  ConfigOption& above(double bound) {
    range.above(bound);
    return *this;
  }
  ConfigOption& at_most(double bound) {
    range.at_most(bound);
    return *this;
  }
  ConfigOption& below(double bound) {
    range.below(bound);
    return *this;
  }
  ConfigOption& path();
  ConfigOption& on_resume();
  ConfigOption& interleaving() {
    interleaved = true;
    return *this;
  }
  ConfigOption& classification() { return only_for(ObjectiveKind::classify); }  // labels, pooling, document windows
  ConfigOption& only_for(ObjectiveKind objective);
};

// Whether option `o` means something to a run training `objective`.
bool applies_to(const ConfigOption& o, ObjectiveKind objective);
// Whether option `o` is read by the run `config` describes: it applies to the
// objective, a model.interleaved_position key is on, and a position key is
// declared by the run's encoding (or the interleaved one).
bool is_read_by(const ConfigOption& o, const Config& config);
// The objectives `o` is limited to, for people: "classify", "clm or mlm".
std::string applicable_objectives(const ConfigOption& o);

const std::vector<ConfigOption>& config_options();
const ConfigOption* find_option(const std::string& key);

// Whether `key` may differ when resuming a run.
bool resumable_change(const std::string& key);

// `rotor config --reference`: every key with type, default and meaning.
std::string config_reference(bool markdown);

}  // namespace rotor
