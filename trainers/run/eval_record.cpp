#include "trainers/run/eval_record.h"

#include <filesystem>
#include <fstream>

#include "trainers/run/output_file.h"

namespace rotor {
namespace {

namespace fs = std::filesystem;

std::string file_safe(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const bool keep =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_';
    out += keep ? c : '_';
  }
  return out;
}

// Whether `path` is free to (re)write with the record of `s`: absent, or the
// record of the same evaluation.
bool free_for(const std::string& path, const EvalSetting& s) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return true;
  std::ifstream in(path);
  const JsonFields old = JsonFields::parse(in, nullptr, /*allow_exceptions=*/false);
  return old.is_object() && old.contains("evaluation") && old["evaluation"] == JsonFields(s);
}

}  // namespace

std::string eval_file_name(const EvalSetting& s, int64_t default_len) {
  std::string name = "eval-" + file_safe(s.split);
  if (s.eval_max_len != default_len) name += "-L" + std::to_string(s.eval_max_len);
  if (s.eval_windows.rfind("stride", 0) == 0) name += "-" + s.eval_windows;
  std::string previous_key;
  for (const std::string& o : s.overrides) {
    const size_t eq = o.find('=');
    const std::string key = o.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : o.substr(eq + 1);
    const bool extends = !previous_key.empty() && key.size() > previous_key.size() && key.rfind(previous_key, 0) == 0;
    name += (extends ? "" : "-") + file_safe(value);
    previous_key = key;
  }
  return name + ".json";
}

void to_json(JsonFields& j, const EvalSetting& s) {
  j = {{"checkpoint", s.checkpoint}, {"split", s.split}};
  if (!s.data.empty()) j["data"] = s.data;
  j["eval_max_len"] = s.eval_max_len;
  j["eval_windows"] = s.eval_windows;
  j["overrides"] = s.overrides;
}

void from_json(const JsonFields& j, EvalSetting& s) {
  s.checkpoint = j.at("checkpoint").get<std::string>();
  s.split = j.at("split").get<std::string>();
  s.data = j.value("data", "");
  s.eval_max_len = j.at("eval_max_len").get<int64_t>();
  s.eval_windows = j.at("eval_windows").get<std::string>();
  s.overrides = j.at("overrides").get<std::vector<std::string>>();
}

void to_json(JsonFields& j, const EvalRecord& r) {
  j = {{"evaluation", r.evaluation}, {"step", r.step}, {"documents", r.documents}};
  j["metrics"] = scores_json(r.scores);
}

void from_json(const JsonFields& j, EvalRecord& r) {
  r.evaluation = j.at("evaluation").get<EvalSetting>();
  r.step = j.at("step").get<int64_t>();
  r.documents = j.at("documents").get<int64_t>();
  r.scores = record_scores(j, "metrics", "");
}

std::string eval_output_path(const std::string& dir, const EvalSetting& s, int64_t default_len) {
  const std::string name = eval_file_name(s, default_len);
  const std::string stem = name.substr(0, name.size() - 5);  // without ".json"
  std::string path = (fs::path(dir) / name).string();
  for (int n = 2; !free_for(path, s); ++n) path = (fs::path(dir) / (stem + "-" + std::to_string(n) + ".json")).string();
  return path;
}

void write_eval_record(const std::string& path, const EvalRecord& record) {
  write_output_file(path, compact_json(record) + "\n");
}

}  // namespace rotor
