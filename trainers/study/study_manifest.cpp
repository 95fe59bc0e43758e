#include "trainers/study/study_manifest.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "trainers/config/config_loader.h"
#include "trainers/run/json_file.h"

namespace rotor {
namespace fs = std::filesystem;
using nlohmann::json;

void write_study_manifest(const std::string& study_dir, const StudyManifest& m) {
  const StudySpec& s = m.spec;
  json variants = json::array();
  for (const StudyVariant& v : s.variants)
    variants.push_back({{"name", v.name}, {"overrides", v.overrides}, {"config", dump_config(v.config)}});
  const json out{{"command", m.command},
                 {"task", s.task},
                 {"spec_path", s.path},
                 {"spec_file", fs::weakly_canonical(fs::absolute(s.path)).string()},
                 {"spec_text", s.text},
                 {"base", s.base},
                 {"out_dir", s.out_dir},
                 {"overrides", s.overrides},
                 {"seeds", s.seeds},
                 {"variants", variants},
                 {"comparisons_against", s.comparisons_against},
                 {"evaluation",
                  {{"splits", s.evaluation.splits},
                   {"lengths", s.evaluation.lengths},
                   {"scalings", s.evaluation.scalings},
                   {"stride", s.evaluation.stride},
                   {"max_tokens", s.evaluation.max_tokens},
                   {"thresholds", s.evaluation.thresholds}}}};
  write_json_file((fs::path(study_dir) / "study.json").string(), out);
}

void require_same_spec(const std::string& study_dir, const StudySpec& spec) {
  const std::string path = (fs::path(study_dir) / "study.json").string();
  if (!fs::exists(path)) return;
  const json j = read_json_file(path);
  const std::string text = j.value("spec_text", "");
  const std::string stored = j.value("spec_file", j.value("spec_path", ""));
  std::error_code stored_ec, given_ec;
  const fs::path stored_file = fs::weakly_canonical(stored, stored_ec);
  const fs::path given_file = fs::weakly_canonical(fs::absolute(spec.path), given_ec);
  const bool same_file = !stored.empty() && !stored_ec && !given_ec && stored_file == given_file;
  // The same file (perhaps edited: each run's config is checked on its own) or a copy of it resumes the study.
  if (same_file || text == spec.text) return;
  throw ConfigError("study directory " + study_dir + " holds the study of another spec, " +
                    j.value("spec_path", stored) + " (see " + path + "), not " + spec.path +
                    ": give this spec another --out (or out_dir), or delete " + study_dir +
                    " to start over; rerunning " + j.value("spec_path", stored) + " resumes that study");
}

StudyManifest read_study_manifest(const std::string& study_dir) {
  const std::string path = (fs::path(study_dir) / "study.json").string();
  if (!fs::exists(path))
    throw ConfigError(path + " not found: " + study_dir + " is not a study directory (rotor compare writes it)");
  const json j = read_json_file(path);
  StudyManifest m;
  StudySpec& s = m.spec;
  try {
    m.command = j.at("command").get<std::string>();
    s.task = j.value("task", "");
    s.path = j.at("spec_path").get<std::string>();
    s.text = j.at("spec_text").get<std::string>();
    s.base = j.at("base").get<std::string>();
    s.out_dir = j.at("out_dir").get<std::string>();
    s.overrides = j.at("overrides").get<std::vector<std::string>>();
    s.seeds = j.at("seeds").get<std::vector<uint64_t>>();
    for (const json& v : j.at("variants"))
      s.variants.push_back(
          {v.at("name").get<std::string>(), v.at("overrides").get<std::vector<std::string>>(),
           parse_stored_config(v.at("config").get<std::string>(), path + " (variant config)", {}).trained});
    s.comparisons_against = j.value("comparisons_against", "");  // absent before planned comparisons
    const json& ev = j.at("evaluation");
    s.evaluation.splits = ev.at("splits").get<std::vector<std::string>>();
    s.evaluation.lengths = ev.at("lengths").get<std::vector<int64_t>>();
    s.evaluation.scalings = ev.at("scalings").get<std::vector<std::string>>();
    s.evaluation.stride = ev.value("stride", int64_t{0});  // these three absent from manifests written before them
    s.evaluation.max_tokens = ev.value("max_tokens", int64_t{0});
    s.evaluation.thresholds = ev.value("thresholds", std::vector<double>{});
  } catch (const json::exception& e) {
    throw ConfigError(path + ": not a study manifest (" + e.what() + ")");
  }
  return m;
}

}  // namespace rotor
