#include "trainers/study/study_spec.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "datasets/builtin_tasks.h"
#include "models/model_options.h"
#include "trainers/config/config_loader.h"
#include "trainers/study/variant_presets.h"

namespace rotor {
namespace fs = std::filesystem;
namespace {

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

// Reads one spec file; every error names the file and line.
class SpecReader {
 public:
  explicit SpecReader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const YAML::Node& at, const std::string& what) const {
    const YAML::Mark m = at.Mark();
    throw ConfigError(path_ + (m.line >= 0 ? ":" + std::to_string(m.line + 1) : "") + ": " + what);
  }

  void require_keys(const YAML::Node& map, const std::string& section, const std::vector<std::string>& allowed) const {
    if (!map.IsMap()) fail(map, section + ": expected a mapping");
    for (const auto& kv : map) {
      const std::string key = kv.first.as<std::string>();
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
        fail(kv.first, "unknown key '" + key + "' in " + section + " (expected one of: " + joined(allowed) + ")");
    }
  }

  std::string scalar(const YAML::Node& node, const std::string& key) const {
    if (!node.IsScalar()) fail(node, key + ": expected a single value");
    return node.Scalar();
  }

  int64_t integer(const YAML::Node& node, const std::string& key) const {
    try {
      if (node.IsScalar()) return node.as<int64_t>();
    } catch (const YAML::Exception&) {
    }
    fail(node, key + ": expected an integer, got " + (node.IsScalar() ? "'" + node.Scalar() + "'" : "a collection"));
  }

  YAML::Node sequence(const YAML::Node& node, const std::string& key) const {
    if (!node.IsSequence() || node.size() == 0) fail(node, key + ": expected a non-empty list");
    return node;
  }

  // `set:` as "key=value" overrides; nested mappings become dotted keys.
  void overrides(const YAML::Node& node, const std::string& prefix, std::vector<std::string>& out) const {
    if (!node.IsMap()) fail(node, (prefix.empty() ? "set" : prefix) + ": expected a mapping of config keys");
    for (const auto& kv : node) {
      const std::string key = (prefix.empty() ? "" : prefix + ".") + kv.first.as<std::string>();
      if (kv.second.IsMap()) {
        overrides(kv.second, key, out);
        continue;
      }
      YAML::Emitter e;
      e << YAML::Flow << kv.second;
      out.push_back(key + "=" + e.c_str());
    }
  }

  // load_config() of the base with `overrides`; its errors point at `at`.
  Config resolve(const std::string& base, const std::vector<std::string>& overrides, const YAML::Node& at,
                 const std::string& context) const {
    try {
      return load_config(base, overrides);
    } catch (const Error& e) {
      fail(at, context + ": " + e.what());
    }
  }

 private:
  std::string path_;
};

std::vector<uint64_t> read_seeds(const SpecReader& r, const YAML::Node& node) {
  std::vector<uint64_t> seeds;
  for (const YAML::Node& s : r.sequence(node, "seeds")) {
    const int64_t v = r.integer(s, "seeds");
    if (v < 0) r.fail(s, "seeds: expected non-negative integers, got " + std::to_string(v));
    if (std::find(seeds.begin(), seeds.end(), static_cast<uint64_t>(v)) != seeds.end())
      r.fail(s, "seeds: " + std::to_string(v) + " is listed twice");
    seeds.push_back(static_cast<uint64_t>(v));
  }
  return seeds;
}

StudyEvaluation read_evaluation(const SpecReader& r, const YAML::Node& node, const Config& base) {
  StudyEvaluation ev;
  r.require_keys(node, "evaluation", {"splits", "lengths", "scalings"});
  if (const YAML::Node splits = node["splits"]) {
    const std::vector<std::string> known = held_out_split_names(base.data);
    ev.splits.clear();
    for (const YAML::Node& s : r.sequence(splits, "evaluation.splits")) {
      const std::string name = r.scalar(s, "evaluation.splits");
      if (std::find(known.begin(), known.end(), name) == known.end())
        r.fail(s, "evaluation.splits: unknown split '" + name + "' of task '" + base.data.task +
                      "' (expected one of: " + joined(known) + ")");
      if (std::find(ev.splits.begin(), ev.splits.end(), name) != ev.splits.end())
        r.fail(s, "evaluation.splits: '" + name + "' is listed twice");
      ev.splits.push_back(name);
    }
  }
  if (const YAML::Node lengths = node["lengths"]) {
    for (const YAML::Node& l : r.sequence(lengths, "evaluation.lengths")) {
      const int64_t v = r.integer(l, "evaluation.lengths");
      if (v < 2) r.fail(l, "evaluation.lengths: a window needs at least 2 tokens, got " + std::to_string(v));
      if (!ev.lengths.empty() && v <= ev.lengths.back())
        r.fail(l, "evaluation.lengths: expected distinct lengths in ascending order, got " + std::to_string(v) +
                      " after " + std::to_string(ev.lengths.back()));
      ev.lengths.push_back(v);
    }
  }
  if (const YAML::Node scalings = node["scalings"]) {
    const std::vector<std::string> known = option_names<RopeScaling>();
    for (const YAML::Node& s : r.sequence(scalings, "evaluation.scalings")) {
      const std::string name = r.scalar(s, "evaluation.scalings");
      if (std::find(known.begin(), known.end(), name) == known.end())
        r.fail(s, "evaluation.scalings: unknown scaling '" + name + "' (expected one of: " + joined(known) + ")");
      if (name != "none" && std::find(ev.scalings.begin(), ev.scalings.end(), name) != ev.scalings.end())
        r.fail(s, "evaluation.scalings: '" + name + "' is listed twice");
      if (name != "none") ev.scalings.push_back(name);
    }
  }
  return ev;
}

bool valid_variant_name(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  }) && name[0] != '.';
}

StudyVariant read_variant(const SpecReader& r, const YAML::Node& node, const StudySpec& spec, const Config& base) {
  StudyVariant v;
  if (node.IsScalar()) {
    v.name = node.Scalar();
    const auto preset = variant_preset(v.name, base);
    if (!preset)
      r.fail(node, "variants: unknown variant '" + v.name + "' (presets: " + joined(variant_preset_names()) +
                       "; or give `name:` and `set:` overrides)");
    v.overrides = *preset;
  } else {
    r.require_keys(node, "a variant", {"name", "set"});
    if (!node["name"]) r.fail(node, "variants: a variant needs a `name:`");
    if (!node["set"]) r.fail(node, "variants: variant needs `set:` overrides (or name a preset alone)");
    v.name = r.scalar(node["name"], "name");
    r.overrides(node["set"], "", v.overrides);
  }
  if (!valid_variant_name(v.name))
    r.fail(node, "variants: name '" + v.name + "' must be letters, digits, '-', '_' or '.' (it names directories)");
  std::vector<std::string> all = spec.overrides;
  all.insert(all.end(), v.overrides.begin(), v.overrides.end());
  v.config = r.resolve(spec.base, all, node, "variant '" + v.name + "'");
  return v;
}

}  // namespace

StudySpec parse_study_spec(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(path + ": study spec not found");
  std::stringstream text;
  text << in.rdbuf();
  StudySpec spec;
  spec.path = path;
  spec.text = text.str();
  const SpecReader r(path);
  YAML::Node root;
  try {
    root = YAML::Load(spec.text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(path + ":" + std::to_string(e.mark.line + 1) + ": invalid YAML: " + e.msg);
  }
  if (!root.IsMap()) throw ConfigError(path + ": expected a study: base, seeds, variants, evaluation");
  r.require_keys(root, "the study", {"base", "out_dir", "set", "seeds", "variants", "evaluation"});
  for (const char* key : {"base", "seeds", "variants"})
    if (!root[key]) throw ConfigError(path + ": missing `" + key + ":`");
  spec.base = (fs::path(path).parent_path() / r.scalar(root["base"], "base")).lexically_normal().string();
  if (!fs::exists(spec.base)) r.fail(root["base"], "base: config file " + spec.base + " not found");
  if (root["out_dir"]) spec.out_dir = r.scalar(root["out_dir"], "out_dir");
  if (root["set"]) r.overrides(root["set"], "", spec.overrides);
  const Config base = r.resolve(spec.base, spec.overrides, root["set"] ? root["set"] : root["base"], "base with set");
  spec.seeds = read_seeds(r, root["seeds"]);
  if (root["evaluation"]) spec.evaluation = read_evaluation(r, root["evaluation"], base);
  std::set<std::string> names;
  for (const YAML::Node& v : r.sequence(root["variants"], "variants")) {
    spec.variants.push_back(read_variant(r, v, spec, base));
    if (!names.insert(spec.variants.back().name).second)
      r.fail(v, "variants: '" + spec.variants.back().name + "' is listed twice");
  }
  return spec;
}

std::vector<StudyRun> StudySpec::runs() const {
  std::vector<StudyRun> out;
  for (const StudyVariant& v : variants)
    for (uint64_t seed : seeds) out.push_back({v.name, seed, v.name + "-seed" + std::to_string(seed)});
  return out;
}

const StudyVariant& StudySpec::variant(const std::string& name) const {
  for (const StudyVariant& v : variants)
    if (v.name == name) return v;
  std::vector<std::string> known;
  for (const StudyVariant& v : variants) known.push_back(v.name);
  throw ConfigError(path + ": no variant '" + name + "' (variants: " + joined(known) + ")");
}

std::vector<std::string> StudySpec::run_overrides(const StudyRun& run) const {
  std::vector<std::string> out = overrides;
  const std::vector<std::string>& own = variant(run.variant).overrides;
  out.insert(out.end(), own.begin(), own.end());
  out.push_back("run.seed=" + std::to_string(run.seed));
  out.push_back("data.seed=" + std::to_string(run.seed));
  out.push_back("run.name=" + run.id);
  return out;
}

std::vector<SweepCell> sweep_plan(const StudySpec& spec, const Config& config) {
  const std::vector<int64_t> lengths =
      spec.evaluation.lengths.empty() ? std::vector<int64_t>{config.data.max_len} : spec.evaluation.lengths;
  const bool rope = config.model.position.type == "rope";
  std::vector<SweepCell> plan;
  for (const std::string& split : spec.evaluation.splits)
    for (int64_t length : lengths)
      for (const std::string& scaling : spec.evaluation.scalings) {
        if (scaling != "none" && !(rope && length > config.data.max_len)) continue;
        SweepCell point;
        point.split = split;
        point.length = length;
        point.scaling = scaling;
        plan.push_back(point);
      }
  return plan;
}

}  // namespace rotor
