#include "trainers/training/eval_result.h"

#include <filesystem>
#include <fstream>

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

JsonFields evaluation_fields(const EvalSetting& s) {
  JsonFields e = {{"checkpoint", s.checkpoint}, {"split", s.split}};
  if (!s.data.empty()) e["data"] = s.data;
  e["eval_max_len"] = s.eval_max_len;
  e["eval_windows"] = s.eval_windows;
  e["overrides"] = s.overrides;
  return e;
}

// Whether `path` is free to (re)write with the record of `s`: absent, or the
// record of the same evaluation.
bool free_for(const std::string& path, const EvalSetting& s) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return true;
  std::ifstream in(path);
  const JsonFields old = JsonFields::parse(in, nullptr, /*allow_exceptions=*/false);
  return old.is_object() && old.contains("evaluation") && old["evaluation"] == evaluation_fields(s);
}

}  // namespace

std::string eval_file_name(const EvalSetting& s, int64_t default_len) {
  std::string name = "eval-" + file_safe(s.split);
  if (s.eval_max_len != default_len) name += "-L" + std::to_string(s.eval_max_len);
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

JsonFields eval_record(const EvalSetting& s, int64_t step, const ClassificationMetrics& m) {
  return {{"evaluation", evaluation_fields(s)},
          {"step", step},
          {"documents", m.count},
          {"accuracy", m.accuracy},
          {"macro_f1", m.macro_f1},
          {"loss", m.loss}};
}

std::string eval_output_path(const std::string& dir, const EvalSetting& s, int64_t default_len) {
  const std::string name = eval_file_name(s, default_len);
  const std::string stem = name.substr(0, name.size() - 5);  // without ".json"
  std::string path = (fs::path(dir) / name).string();
  for (int n = 2; !free_for(path, s); ++n) path = (fs::path(dir) / (stem + "-" + std::to_string(n) + ".json")).string();
  return path;
}

}  // namespace rotor
