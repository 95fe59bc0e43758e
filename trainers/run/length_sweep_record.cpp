#include "trainers/run/length_sweep_record.h"

#include <filesystem>

#include "trainers/run/json_file.h"

namespace rotor {

namespace {

// The cell's scores under "metrics" (a split that scored no token: null, read
// back as NaN); a cell written before "metrics" has them as fields of its own.
void scores_to_json(nlohmann::json& j, const SplitScores& s) { j["metrics"] = nlohmann::json(scores_json(s)); }
SplitScores scores_of(const nlohmann::json& j) { return record_scores(JsonFields(j), "metrics", ""); }

void stream_windows_to_json(nlohmann::json& j, const SweepCell& c) {
  j["language_model"] = true;
  j["stride"] = c.stride;
  j["max_tokens"] = c.max_tokens;
  if (!c.available) return;
  scores_to_json(j, c.scores);
  j["documents"] = c.documents;
  j["window_nats"] = c.window_nats;
  j["window_tokens"] = c.window_tokens;
}

void stream_windows_from_json(const nlohmann::json& j, SweepCell& c) {
  c.stream_windows = true;
  c.stride = j.at("stride").get<int64_t>();
  c.max_tokens = j.value("max_tokens", int64_t{0});  // absent from sweeps written before it
  if (!c.available) return;
  c.scores = scores_of(j);
  c.documents = j.at("documents").get<int64_t>();
  c.window_nats = j.at("window_nats").get<std::vector<double>>();
  c.window_tokens = j.at("window_tokens").get<std::vector<int64_t>>();
}

}  // namespace

void to_json(nlohmann::json& j, const SweepCell& c) {
  j = {{"split", c.split}, {"length", c.length}, {"scaling", c.scaling}, {"available", c.available}};
  if (c.stream_windows) {
    stream_windows_to_json(j, c);
    if (!c.available) j["reason"] = c.reason;
  } else if (c.available) {
    scores_to_json(j, c.scores);
    j["documents"] = c.documents;
    j["predictions"] = c.predictions;
    j["labels"] = c.labels;
    if (c.sample_numerators.empty()) return;
    j["sample_numerators"] = c.sample_numerators;
    j["sample_denominators"] = c.sample_denominators;
  } else {
    j["reason"] = c.reason;
  }
}

void from_json(const nlohmann::json& j, SweepCell& c) {
  c.split = j.at("split").get<std::string>();
  c.length = j.at("length").get<int64_t>();
  c.scaling = j.at("scaling").get<std::string>();
  c.available = j.at("available").get<bool>();
  if (!c.available) c.reason = j.at("reason").get<std::string>();
  if (j.value("language_model", false)) return stream_windows_from_json(j, c);
  if (!c.available) return;
  c.scores = scores_of(j);
  c.documents = j.at("documents").get<int64_t>();
  if (j.contains("predictions")) {
    c.predictions = j.at("predictions").get<std::vector<int32_t>>();
    c.labels = j.at("labels").get<std::vector<int32_t>>();
  }
  if (j.contains("sample_numerators")) {
    c.sample_numerators = j.at("sample_numerators").get<std::vector<double>>();
    c.sample_denominators = j.at("sample_denominators").get<std::vector<double>>();
  }
}

void to_json(nlohmann::json& j, const LengthSweep& s) { j = {{"checkpoint", s.checkpoint}, {"cells", s.cells}}; }

void from_json(const nlohmann::json& j, LengthSweep& s) {
  s.checkpoint = j.value("checkpoint", "");
  s.cells = j.at("cells").get<std::vector<SweepCell>>();
}

LengthSweep read_length_sweep_file(const std::string& path) {
  if (!std::filesystem::exists(path)) return {};
  return read_record_file<LengthSweep>(path, "a length sweep file", "; delete it to evaluate again");
}

void write_length_sweep_file(const std::string& path, const LengthSweep& sweep) {
  write_json_file(path, nlohmann::json(sweep));
}

}  // namespace rotor
