#include "trainers/run/length_sweep_record.h"

#include <filesystem>

#include "trainers/run/json_file.h"

namespace rotor {

void to_json(nlohmann::json& j, const SweepCell& c) {
  j = {{"split", c.split}, {"length", c.length}, {"scaling", c.scaling}, {"available", c.available}};
  if (c.available) {
    j["accuracy"] = c.accuracy;
    j["macro_f1"] = c.macro_f1;
    j["loss"] = c.loss;
    j["documents"] = c.documents;
    j["predictions"] = c.predictions;
    j["labels"] = c.labels;
  } else {
    j["reason"] = c.reason;
  }
}

void from_json(const nlohmann::json& j, SweepCell& c) {
  c.split = j.at("split").get<std::string>();
  c.length = j.at("length").get<int64_t>();
  c.scaling = j.at("scaling").get<std::string>();
  c.available = j.at("available").get<bool>();
  if (!c.available) {
    c.reason = j.at("reason").get<std::string>();
    return;
  }
  c.accuracy = j.at("accuracy").get<double>();
  c.macro_f1 = j.at("macro_f1").get<double>();
  c.loss = j.at("loss").get<double>();
  c.documents = j.at("documents").get<int64_t>();
  if (j.contains("predictions")) {
    c.predictions = j.at("predictions").get<std::vector<int32_t>>();
    c.labels = j.at("labels").get<std::vector<int32_t>>();
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
