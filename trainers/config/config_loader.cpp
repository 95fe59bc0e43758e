#include "trainers/config/config_loader.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/core.h>
#include <yaml-cpp/depthguard.h>

#include "datasets/tasks/sequence_task_data.h"
#include "engine/parallel.h"
#include "models/position_encoding.h"
#include "trainers/config/config_schema.h"
#include "trainers/config/did_you_mean.h"
#include "trainers/config/objective_table.h"
#include "trainers/config/stored_config_upgrade.h"

namespace rotor {
namespace fs = std::filesystem;
namespace {

// A leaf value and where it was written.
struct Leaf {
  YAML::Node value;
  std::string where;     // "configs/a.yaml:12" or "--set"
  std::string base_dir;  // absolute folder relative paths are resolved against; empty: leave them as written
};
using FlatConfig = std::map<std::string, Leaf>;

std::string location(const std::string& file, const YAML::Mark& mark) {
  return mark.line >= 0 ? file + ":" + std::to_string(mark.line + 1) : file;
}

std::string scalar_text(const YAML::Node& v) {
  if (v.IsScalar()) return "'" + v.Scalar() + "'";
  if (v.IsSequence()) return "a list";
  if (v.IsMap()) return "a mapping";
  return "nothing";
}

// True when `key` names a group of options ("model", "model.position").
bool is_section(const std::string& key) {
  for (const ConfigOption& o : config_options())
    if (o.key.size() > key.size() && o.key.compare(0, key.size() + 1, key + ".") == 0) return true;
  return false;
}

// base_dir: the folder relative paths in this document are resolved against.
void flatten(const YAML::Node& node, const std::string& prefix, const std::string& file, const std::string& base_dir,
             FlatConfig& out) {
  std::map<std::string, int> first_line;  // keys of this mapping: YAML forbids duplicates, yaml-cpp keeps both
  for (const auto& kv : node) {
    const std::string where = location(file, kv.first.Mark());
    if (!kv.first.IsScalar()) throw ConfigError(where + ": expected a key name, got " + scalar_text(kv.first));
    const std::string name = kv.first.Scalar();
    const std::string key = prefix.empty() ? name : prefix + "." + name;
    const auto [seen, fresh] = first_line.emplace(name, kv.first.Mark().line + 1);
    if (!fresh) {
      throw ConfigError(where + ": duplicate " + (is_section(key) ? "section" : "key") + " '" + key +
                        "' (first given at line " + std::to_string(seen->second) + "; give each key once)");
    }
    if (kv.second.IsMap() && !find_option(key)) {
      flatten(kv.second, key, file, base_dir, out);
    } else if (!find_option(key) && is_section(key)) {
      throw ConfigError(where + ": '" + key + "' is a section: expected a mapping of its keys, got " +
                        scalar_text(kv.second));
    } else {
      out[key] = {kv.second, where, base_dir};
    }
  }
}

// The top-level mapping of a config document (`load` reads it); an empty
// document is an empty mapping.
template <class Load>
YAML::Node parse_root(Load load, const std::string& origin) {
  YAML::Node root;
  try {
    root = load();
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's parser stops at this depth but names it "bad file".
    throw ConfigError(location(origin, e.mark) + ": invalid YAML: nested more than " + std::to_string(e.depth() - 1) +
                      " levels deep (a config needs 3)");
  } catch (const YAML::Exception& e) {
    throw ConfigError(location(origin, e.mark) + ": invalid YAML: " + e.msg);
  }
  if (root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  if (!root.IsMap()) throw ConfigError(origin + ": expected a mapping of sections (run, model, data, train)");
  return root;
}

FlatConfig load_flat(const std::string& path, std::set<std::string>& chain) {
  const std::string canonical = fs::weakly_canonical(fs::absolute(path)).string();
  if (!chain.insert(canonical).second) throw ConfigError(path + ": `extends` forms a cycle");
  if (!fs::exists(path)) throw ConfigError(path + ": config file not found");
  if (fs::is_directory(path)) throw ConfigError(path + ": is a directory, not a config file");
  YAML::Node root = parse_root([&] { return YAML::LoadFile(path); }, path);
  FlatConfig flat;
  if (const YAML::Node base = root["extends"]) {
    if (!base.IsScalar()) throw ConfigError(location(path, base.Mark()) + ": extends: expected a file name");
    const fs::path base_path = fs::path(path).parent_path() / base.as<std::string>();
    flat = load_flat(base_path.string(), chain);
    root.remove("extends");
  }
  FlatConfig own;
  // The real folder of the file (a bare "my.yaml" has no folder in its name), so that stored paths are absolute.
  flatten(root, "", path, fs::path(canonical).parent_path().string(), own);
  for (auto& [k, v] : own) flat[k] = v;  // the extending file wins
  chain.erase(canonical);
  return flat;
}

void apply_overrides(FlatConfig& flat, const std::vector<std::string>& overrides) {
  for (const std::string& o : overrides) {
    const size_t eq = o.find('=');
    if (eq == std::string::npos || eq == 0)
      throw ConfigError("--set " + o + ": expected key.path=value, e.g. --set train.lr=1e-3");
    YAML::Node value;
    try {
      value = YAML::Load(o.substr(eq + 1));
    } catch (const YAML::Exception& e) {
      throw ConfigError("--set " + o + ": invalid value: " + e.msg);
    }
    flat[o.substr(0, eq)] = {value, "--set", fs::current_path().string()};
  }
}

// Rules that depend on the machine that runs the config, not on the config
// alone: a stored config (a checkpoint's) read on another machine is not held
// to them.
void validate_for_this_machine(const Config& c) {
  const int64_t cores = machine_cores();
  const int64_t most = most_threads();
  if (c.run.threads > most) {
    throw ConfigError(
        fmt::format("run.threads: {} is more than {} x this machine's {} cores (at most {}; 0 uses "
                    "every core)",
                    c.run.threads, kThreadsPerCore, cores, most));
  }
}

// Sets one key of `config` from its YAML leaf: choices, type, finiteness, paths made absolute.
void set_leaf(Config& config, const std::string& key, const Leaf& leaf, const std::vector<std::string>& keys) {
  const ConfigOption* opt = find_option(key);
  if (key == "model.vocab_size" || key == "model.num_classes") {
    throw ConfigError(leaf.where + ": " + key + " is derived from the data (" +
                      (key == "model.vocab_size" ? "the tokenizer's vocabulary" : "the training labels") +
                      "), not a key to set");
  }
  if (!opt) throw ConfigError(leaf.where + ": unknown key '" + key + "'" + did_you_mean_key(key, keys));
  // Choices first: an enum option can only be set to one of them.
  if (!opt->choices.empty() && leaf.value.IsScalar()) {
    const std::string v = leaf.value.Scalar();
    if (std::find(opt->choices.begin(), opt->choices.end(), v) == opt->choices.end()) {
      std::string list;
      for (const std::string& c : opt->choices) list += (list.empty() ? "" : ", ") + (c.empty() ? "\"\"" : c);
      throw ConfigError(leaf.where + ": " + key + ": unknown value '" + v + "' (expected one of: " + list + ")" +
                        did_you_mean(v, opt->choices));
    }
  }
  const bool wants_list = opt->type.rfind("list of ", 0) == 0;
  try {
    if (!wants_list && !leaf.value.IsScalar()) throw YAML::BadConversion(leaf.value.Mark());
    opt->set(config, leaf.value);
  } catch (const YAML::Exception&) {
    throw ConfigError(leaf.where + ": " + key + " expects " + (opt->type == "integer" ? "an " : "a ") + opt->type +
                      ", got " + scalar_text(leaf.value));
  }
  if (opt->type == "number" && !std::isfinite(leaf.value.as<double>())) {
    throw ConfigError(leaf.where + ": " + key + " expects a finite number, got " + scalar_text(leaf.value));
  }
  if (opt->is_path && !leaf.base_dir.empty() && leaf.value.IsScalar()) {
    const std::string v = leaf.value.as<std::string>();
    // Absolute, so that the dumped config (run/config.yaml, checkpoints) means the same from anywhere.
    if (!v.empty() && fs::path(v).is_relative())
      opt->set(config, YAML::Node(fs::absolute(fs::path(leaf.base_dir) / v).lexically_normal().string()));
  }
}

// Keys that mean nothing to the run's objective are refused where they are set;
// unset, the best metric is the objective's default (validate() checks a set one).
void apply_objective(Config& config, const FlatConfig& flat) {
  const ObjectiveKind objective = config.train.objective;
  for (const auto& [key, leaf] : flat) {
    const ConfigOption* o = find_option(key);
    if (o != nullptr && !applies_to(*o, objective))
      throw ConfigError(leaf.where + ": " + key + " applies to train.objective " + applicable_objectives(*o) +
                        " only; this config trains " + option_name(objective));
  }
  const auto task = flat.count("data.task") ? flat.find("data.task") : flat.find("train.objective");
  if (const std::string why = data_mismatch(config, is_sequence_task(config.data.task)); !why.empty())
    throw ConfigError((task != flat.end() ? task->second.where + ": " : "") + why);
  const ObjectiveSpec& spec = objective_spec(objective);
  config.data.labelled = spec.data == ObjectiveData::labelled_documents;
  if (spec.layout) config.data.sequence_layout = *spec.layout;
  if (!flat.count("train.best_metric")) config.train.best_metric = spec.default_best_metric;
}

// Keys such as YaRN's training length are the run's unless given (a stored config always gives them).
void default_to_train_length(PositionConfig& position, const std::string& prefix, const FlatConfig& flat,
                             int64_t max_len) {
  for (const PositionOption& p : position_encoding(position.type).options)
    if (p.defaults_to_train_length && !flat.count(prefix + p.key)) position.set(p.key, max_len);
}

// `for_this_machine`: also apply validate_for_this_machine().
Config build_config(const FlatConfig& flat, const std::string& origin, bool for_this_machine) {
  std::vector<std::string> keys;
  for (const ConfigOption& o : config_options()) keys.push_back(o.key);
  Config config;
  for (const auto& [key, leaf] : flat) set_leaf(config, key, leaf, keys);
  apply_objective(config, flat);
  default_to_train_length(config.model.position, "model.position.", flat, config.data.max_len);
  if (config.model.interleaved_position.active())
    default_to_train_length(config.model.interleaved_position.position, "model.interleaved_position.", flat,
                            config.data.max_len);
  for (const ConfigOption& o : config_options()) {
    if (!o.range.bounded()) continue;
    const std::string why = o.range.violation(o.get(config).as<double>());
    const auto it = flat.find(o.key);
    if (!why.empty()) throw ConfigError((it != flat.end() ? it->second.where : origin) + ": " + o.key + ": " + why);
  }
  try {
    validate(config);
    if (for_this_machine) validate_for_this_machine(config);
  } catch (const Error& e) {
    // Messages start with the key ("train.lr: ..."): point at where it was set.
    const std::string msg = e.what();
    const auto it = flat.find(msg.substr(0, msg.find(':')));
    throw ConfigError((it != flat.end() ? it->second.where : origin) + ": " + msg);
  }
  return config;
}

void require(bool ok, const std::string& key, const std::string& what) {
  if (!ok) throw ConfigError(key + ": " + what);
}

}  // namespace

void validate(const Config& c) {
  require(!c.run.name.empty(), "run.name", "must not be empty");
  c.model.validate();
  c.data.validate();
  // Windows of data.max_len / data.eval_max_len tokens must fit the position table.
  c.model.validate_training_length(c.data.max_len, "data.max_len");
  if (c.data.eval_max_len > 0) c.model.validate_length(c.data.eval_max_len, "data.eval_max_len");
  // A training sample's coupled positions reach its window length plus its offset.
  if (c.data.generated.position_offset > 0)
    c.model.validate_length(c.data.max_len + c.data.generated.position_offset,
                            "data.max_len + data.generated.position_offset");
  const bool data_positions = c.data.generated.positions == TokenPositions::coupled || !c.data.positions_field.empty();
  require(!data_positions || !c.model.position.flag("randomized"), "model.position.randomized",
          "the data gives each token its position (data.generated.positions: coupled, or data.positions_field); "
          "randomized positions would replace them. Turn one of them off");
  const TrainConfig& t = c.train;
  best_metric_declaration(t);  // one the objective declares
  require(t.max_steps > 0 || t.max_epochs > 0, "train.max_steps", "set train.max_steps or train.max_epochs (> 0)");
  require(t.min_lr <= t.lr, "train.min_lr", "must be in [0, train.lr]");
  require(t.schedule != LrSchedule::Kind::inverse_sqrt || t.warmup_steps >= 1, "train.warmup_steps",
          "inverse_sqrt needs warmup_steps >= 1");
  if (t.max_steps > 0) check_warmup_fits(t, t.max_steps, 0);
}

void check_warmup_fits(const TrainConfig& t, int64_t run_steps, int64_t steps_per_epoch) {
  if (t.warmup_steps <= run_steps) return;
  const bool by_epochs = steps_per_epoch > 0 && run_steps == steps_per_epoch * t.max_epochs;
  const std::string length = by_epochs
                                 ? fmt::format("train.max_epochs {} x {} steps an epoch", t.max_epochs, steps_per_epoch)
                                 : "train.max_steps";
  throw ConfigError(fmt::format(
      "train.warmup_steps: {} warm-up steps are longer than the whole run of {} steps ({}), so the learning rate "
      "would never decay; set train.warmup_steps to about a tenth of the run ({})",
      t.warmup_steps, run_steps, length, std::max<int64_t>(1, run_steps / 10)));
}

namespace {

FlatConfig flatten_text(const std::string& yaml, const std::string& origin) {
  YAML::Node root = parse_root([&] { return YAML::Load(yaml); }, origin);
  if (root["extends"]) throw ConfigError(origin + ": a resolved config cannot use `extends`");
  FlatConfig flat;
  flatten(root, "", origin, "", flat);
  return flat;
}

}  // namespace

Config parse_config_text(const std::string& yaml, const std::string& origin,
                         const std::vector<std::string>& overrides) {
  FlatConfig flat = flatten_text(yaml, origin);
  apply_overrides(flat, overrides);
  return build_config(flat, origin, /*for_this_machine=*/false);
}

StoredConfig parse_stored_config(const std::string& yaml, const std::string& origin,
                                 const std::vector<std::string>& overrides) {
  FlatConfig flat;
  StoredConfig s;
  try {
    flat = flatten_text(upgrade_stored_config(yaml), origin);
    s.trained = build_config(flat, origin, /*for_this_machine=*/false);
  } catch (const ConfigError& e) {
    throw StoredConfigError(e.what());
  }
  if (overrides.empty()) {
    s.config = s.trained;
    return s;
  }
  apply_overrides(flat, overrides);
  s.config = build_config(flat, origin, /*for_this_machine=*/false);
  return s;
}

Config load_recorded_config(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path + ": cannot read it");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_stored_config(text.str(), path, {}).trained;
}

Config load_config(const std::string& path, const std::vector<std::string>& overrides) {
  std::set<std::string> chain;
  FlatConfig flat = load_flat(path, chain);
  apply_overrides(flat, overrides);
  return build_config(flat, path, /*for_this_machine=*/true);
}

std::string dump_config(const Config& config) {
  // Options are declared grouped by section, so a stack of open maps suffices.
  YAML::Emitter out;
  out.SetDoublePrecision(17);
  out << YAML::BeginMap;
  std::vector<std::string> open;
  for (const ConfigOption& o : config_options()) {
    if (!is_read_by(o, config)) continue;
    std::vector<std::string> parts;
    std::stringstream ss(o.key);
    for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
    const std::string leaf = parts.back();
    parts.pop_back();
    size_t common = 0;
    while (common < open.size() && common < parts.size() && open[common] == parts[common]) ++common;
    for (; open.size() > common; open.pop_back()) out << YAML::EndMap;
    for (; open.size() < parts.size(); open.push_back(parts[open.size()]))
      out << YAML::Key << parts[open.size()] << YAML::Value << YAML::BeginMap;
    out << YAML::Key << leaf << YAML::Value << o.get(config);
  }
  for (; !open.empty(); open.pop_back()) out << YAML::EndMap;
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

namespace {

// Two spellings of one file ("../data/x.jsonl" from the working directory,
// "/abs/data/x.jsonl", a symlink to it) are the same path.
bool same_file(const std::string& a, const std::string& b) {
  if (a == b) return true;
  if (a.empty() || b.empty()) return false;
  std::error_code ea, eb;
  const fs::path ca = fs::weakly_canonical(a, ea), cb = fs::weakly_canonical(b, eb);
  return !ea && !eb && ca == cb;
}

}  // namespace

std::vector<std::string> differing_keys(const Config& a, const Config& b) {
  std::vector<std::string> keys;
  for (const ConfigOption& o : config_options()) {
    if (!is_read_by(o, a) && !is_read_by(o, b)) continue;  // e.g. another encoding's key, recorded by older builds
    if (o.is_path) {
      if (!same_file(o.get(a).as<std::string>(), o.get(b).as<std::string>())) keys.push_back(o.key);
      continue;
    }
    YAML::Emitter ea, eb;
    ea.SetDoublePrecision(17);
    eb.SetDoublePrecision(17);
    ea << o.get(a);
    eb << o.get(b);
    if (std::string(ea.c_str()) != eb.c_str()) keys.push_back(o.key);
  }
  return keys;
}

}  // namespace rotor
