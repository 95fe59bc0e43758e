#include "trainers/study/study_spec.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "datasets/tasks/builtin_tasks.h"
#include "models/model_options.h"
#include "trainers/config/config_loader.h"
#include "trainers/config/config_schema.h"
#include "trainers/config/did_you_mean.h"
#include "trainers/config/objective_table.h"
#include "trainers/study/variant_presets.h"

namespace rotor {
namespace fs = std::filesystem;
namespace {

constexpr size_t kMostRunsPerStudy = 1000;
constexpr int64_t kLongestEvaluationWindow = 1 << 16;  // 2^32 attention scores, 16 GiB in fp32

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

std::vector<std::string> config_keys() {
  std::vector<std::string> keys;
  for (const ConfigOption& o : config_options()) keys.push_back(o.key);
  return keys;
}

// Reads one spec file; every error names the file and line.
class SpecReader {
 public:
  explicit SpecReader(std::string path)
      : path_(std::move(path)), folder_(fs::weakly_canonical(fs::absolute(path_)).parent_path()) {}

  // A path written in the spec, relative to the spec's real folder (as in a
  // config file), made absolute so that it means the same from anywhere.
  std::string resolve_path(const std::string& written) const {
    if (written.empty() || fs::path(written).is_absolute()) return written;
    return (folder_ / written).lexically_normal().string();
  }

  [[noreturn]] void fail(const YAML::Node& at, const std::string& what) const {
    const YAML::Mark m = at.Mark();
    throw ConfigError(path_ + (m.line >= 0 ? ":" + std::to_string(m.line + 1) : "") + ": " + what);
  }

  void require_keys(const YAML::Node& map, const std::string& section, const std::vector<std::string>& allowed) const {
    if (!map.IsMap()) fail(map, section + ": expected a mapping");
    for (const auto& kv : map) {
      const std::string key = kv.first.as<std::string>();
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
        fail(kv.first, "unknown key '" + key + "' in " + section + " (expected one of: " + joined(allowed) + ")" +
                           did_you_mean(key, allowed));
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

  double number(const YAML::Node& node, const std::string& key) const {
    try {
      if (node.IsScalar()) return node.as<double>();
    } catch (const YAML::Exception&) {
    }
    fail(node, key + ": expected a number, got " + (node.IsScalar() ? "'" + node.Scalar() + "'" : "a collection"));
  }

  YAML::Node sequence(const YAML::Node& node, const std::string& key) const {
    if (!node.IsSequence() || node.size() == 0) fail(node, key + ": expected a non-empty list");
    return node;
  }

  // `set:` as "key=value" overrides; nested mappings become dotted keys. An
  // unknown key is named at its own line (the loader only knows `--set`).
  void overrides(const YAML::Node& node, const std::string& prefix, std::vector<std::string>& out) const {
    if (!node.IsMap()) fail(node, (prefix.empty() ? "set" : prefix) + ": expected a mapping of config keys");
    for (const auto& kv : node) {
      const std::string key = (prefix.empty() ? "" : prefix + ".") + kv.first.as<std::string>();
      const ConfigOption* option = find_option(key);
      if (kv.second.IsMap() && !option) {
        overrides(kv.second, key, out);
        continue;
      }
      const std::vector<std::string> keys = config_keys();
      const bool section =
          std::any_of(keys.begin(), keys.end(), [&](const std::string& k) { return k.rfind(key + ".", 0) == 0; });
      if (!option && !section) fail(kv.first, "set: unknown key '" + key + "'" + did_you_mean(key, keys));
      YAML::Emitter e;
      if (option && option->is_path && kv.second.IsScalar())
        e << YAML::Flow << resolve_path(kv.second.Scalar());
      else
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
  fs::path folder_;
};

std::vector<uint64_t> read_seeds(const SpecReader& r, const YAML::Node& node) {
  const YAML::Node list = r.sequence(node, "seeds");
  if (list.size() > kMostRunsPerStudy)
    r.fail(node, fmt::format("seeds: {} seeds; a study runs at most {} runs (split it into several studies)",
                             list.size(), kMostRunsPerStudy));
  std::vector<uint64_t> seeds;
  std::set<uint64_t> seen;
  for (const YAML::Node& s : list) {
    const int64_t v = r.integer(s, "seeds");
    if (v < 0) r.fail(s, "seeds: expected non-negative integers, got " + std::to_string(v));
    if (!seen.insert(static_cast<uint64_t>(v)).second) r.fail(s, "seeds: " + std::to_string(v) + " is listed twice");
    seeds.push_back(static_cast<uint64_t>(v));
  }
  return seeds;
}

// evaluation.splits: held-out splits of the task, or `all`: test and every longer test split it has.
std::vector<std::string> read_splits(const SpecReader& r, const YAML::Node& splits, const Config& base) {
  const std::vector<std::string> known = held_out_split_names(base.data);
  std::vector<std::string> out;
  if (splits.IsScalar() && splits.Scalar() == "all") {
    std::copy_if(known.begin(), known.end(), std::back_inserter(out), [](const std::string& n) { return n != "val"; });
    return out;
  }
  for (const YAML::Node& s : r.sequence(splits, "evaluation.splits")) {
    const std::string name = r.scalar(s, "evaluation.splits");
    if (std::find(known.begin(), known.end(), name) == known.end())
      r.fail(s, "evaluation.splits: unknown split '" + name + "' of task '" + base.data.task +
                    "' (expected `all` or a list of: " + joined(known) + ")" + did_you_mean(name, known));
    if (std::find(out.begin(), out.end(), name) != out.end())
      r.fail(s, "evaluation.splits: '" + name + "' is listed twice");
    out.push_back(name);
  }
  return out;
}

// A positive count of tokens that only a language model's evaluation takes (`what` is it).
int64_t language_model_count(const SpecReader& r, const YAML::Node& node, const std::string& key,
                             const std::string& what, const Config& base) {
  if (objective_spec(base.train.objective).evidence != EvidenceUnit::window)
    r.fail(node, key + ": " + what + " is for a language model (train.objective clm or mlm) only");
  const int64_t v = r.integer(node, key);
  if (v < 1) r.fail(node, key + ": expected at least 1, got " + std::to_string(v));
  return v;
}

StudyEvaluation read_evaluation(const SpecReader& r, const YAML::Node& node, const Config& base) {
  StudyEvaluation ev;
  r.require_keys(node, "evaluation", {"splits", "lengths", "scalings", "stride", "max_tokens", "thresholds"});
  if (const YAML::Node splits = node["splits"]) ev.splits = read_splits(r, splits, base);
  if (const YAML::Node lengths = node["lengths"]) {
    for (const YAML::Node& l : r.sequence(lengths, "evaluation.lengths")) {
      const int64_t v = r.integer(l, "evaluation.lengths");
      if (v < 2) r.fail(l, "evaluation.lengths: a window needs at least 2 tokens, got " + std::to_string(v));
      if (v > kLongestEvaluationWindow)  // checked here: the sweep runs only after every run has trained
        r.fail(l, fmt::format("evaluation.lengths: {} tokens is longer than the longest window rotor evaluates ({}; "
                              "its attention scores alone take 16 GiB a head)",
                              v, kLongestEvaluationWindow));
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
        r.fail(s, "evaluation.scalings: unknown scaling '" + name + "' (expected one of: " + joined(known) + ")" +
                      did_you_mean(name, known));
      if (name != unscaled() && std::find(ev.scalings.begin(), ev.scalings.end(), name) != ev.scalings.end())
        r.fail(s, "evaluation.scalings: '" + name + "' is listed twice");
      if (name != unscaled()) ev.scalings.push_back(name);
    }
  }
  if (const YAML::Node stride = node["stride"])
    ev.stride = language_model_count(r, stride, "evaluation.stride", "a sliding window", base);
  if (const YAML::Node max_tokens = node["max_tokens"])
    ev.max_tokens = language_model_count(r, max_tokens, "evaluation.max_tokens", "a token budget", base);
  if (const YAML::Node thresholds = node["thresholds"])
    for (const YAML::Node& t : r.sequence(thresholds, "evaluation.thresholds")) {
      ev.thresholds.push_back(r.number(t, "evaluation.thresholds"));
      if (!std::isfinite(ev.thresholds.back())) r.fail(t, "evaluation.thresholds: expected a finite number");
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
                       "; or give `name:` and `set:` overrides)" + did_you_mean(v.name, variant_preset_names()));
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

namespace {

// The study of one base config: the spec's seeds, variants and evaluation on
// the base at `base_at` (a suite's task entry, or `base:`).
StudySpec read_study(const SpecReader& r, const YAML::Node& root, const YAML::Node& entry, const std::string& task) {
  StudySpec spec;
  spec.task = task;
  // A task is `name: base.yaml`, or `name: {base: base.yaml, set: {...}}` with overrides of its own.
  const bool own_set = !task.empty() && entry.IsMap();
  if (own_set) {
    r.require_keys(entry, "task " + task, {"base", "set"});
    if (!entry["base"]) r.fail(entry, "tasks." + task + ": missing `base:`");
  }
  const YAML::Node base_at = own_set ? entry["base"] : entry;
  spec.base = r.resolve_path(r.scalar(base_at, task.empty() ? "base" : "tasks." + task));
  if (!fs::exists(spec.base)) r.fail(base_at, "base: config file " + spec.base + " not found");
  if (root["out_dir"]) {
    spec.out_dir = r.resolve_path(r.scalar(root["out_dir"], "out_dir"));
    if (!task.empty()) spec.out_dir = (fs::path(spec.out_dir) / task).string();
  }
  if (root["set"]) r.overrides(root["set"], "", spec.overrides);
  if (own_set && entry["set"]) r.overrides(entry["set"], "", spec.overrides);
  const YAML::Node set_at = own_set && entry["set"] ? entry["set"] : root["set"] ? root["set"] : base_at;
  const Config base = r.resolve(spec.base, spec.overrides, set_at, "base with set");
  spec.seeds = read_seeds(r, root["seeds"]);
  if (root["evaluation"]) spec.evaluation = read_evaluation(r, root["evaluation"], base);
  const YAML::Node variants = r.sequence(root["variants"], "variants");
  if (variants.size() * spec.seeds.size() > kMostRunsPerStudy)  // before resolving each variant's config
    r.fail(root["variants"],
           fmt::format("variants: {} variants x {} seeds is {} runs; a study runs at most {} (split "
                       "it into several studies)",
                       variants.size(), spec.seeds.size(), variants.size() * spec.seeds.size(), kMostRunsPerStudy));
  std::set<std::string> names;
  for (const YAML::Node& v : variants) {
    spec.variants.push_back(read_variant(r, v, spec, base));
    if (!names.insert(spec.variants.back().name).second)
      r.fail(v, "variants: '" + spec.variants.back().name + "' is listed twice");
  }
  if (const YAML::Node c = root["comparisons"]) {
    r.require_keys(c, "comparisons", {"against"});
    spec.comparisons_against = r.scalar(c["against"] ? c["against"] : c, "comparisons.against");
    if (!names.count(spec.comparisons_against))
      r.fail(c, "comparisons.against: '" + spec.comparisons_against +
                    "' is not a variant of the study (variants: " + joined({names.begin(), names.end()}) + ")");
  }
  return spec;
}

}  // namespace

StudySuite parse_study_suite(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(path + ": study spec not found");
  std::stringstream text;
  text << in.rdbuf();
  StudySuite suite;
  suite.path = path;
  suite.text = text.str();
  const SpecReader r(path);
  YAML::Node root;
  try {
    root = YAML::Load(suite.text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(path + ":" + std::to_string(e.mark.line + 1) + ": invalid YAML: " + e.msg);
  }
  if (!root.IsMap()) throw ConfigError(path + ": expected a study: base (or tasks), seeds, variants, evaluation");
  r.require_keys(root, "the study",
                 {"base", "tasks", "out_dir", "set", "seeds", "variants", "evaluation", "comparisons"});
  if (root["base"] && root["tasks"]) r.fail(root["tasks"], "tasks: give either `base:` (one study) or `tasks:`");
  if (!root["base"] && !root["tasks"]) throw ConfigError(path + ": missing `base:` (or `tasks:`)");
  for (const char* key : {"seeds", "variants"})
    if (!root[key]) throw ConfigError(path + ": missing `" + key + ":`");
  if (root["out_dir"]) suite.out_dir = r.resolve_path(r.scalar(root["out_dir"], "out_dir"));
  if (root["base"]) {
    suite.studies.push_back(read_study(r, root, root["base"], ""));
  } else {
    if (!root["tasks"].IsMap() || root["tasks"].size() == 0)
      r.fail(root["tasks"], "tasks: expected a mapping of task names to base configs");
    for (const auto& kv : root["tasks"]) {
      const std::string name = kv.first.as<std::string>();
      if (!valid_variant_name(name))
        r.fail(kv.first, "tasks: name '" + name + "' must be letters, digits, '-', '_' or '.' (it names a folder)");
      suite.studies.push_back(read_study(r, root, kv.second, name));
    }
  }
  for (StudySpec& s : suite.studies) {
    s.path = suite.path;
    s.text = suite.text;
  }
  return suite;
}

StudySpec parse_study_spec(const std::string& path) {
  StudySuite suite = parse_study_suite(path);
  if (suite.has_tasks())
    throw ConfigError(path + ": a suite of tasks (`tasks:`), not a single study: run it with `rotor compare " + path +
                      "`, or one task with --task NAME");
  return std::move(suite.studies.front());
}

const StudySpec& StudySuite::study(const std::string& task) const {
  std::vector<std::string> known;
  for (const StudySpec& s : studies) {
    if (s.task == task) return s;
    known.push_back(s.task);
  }
  throw ConfigError("--task " + task + ": no such task in " + path + " (tasks: " + joined(known) + ")" +
                    did_you_mean(task, known));
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

}  // namespace rotor
