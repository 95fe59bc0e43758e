#include "trainers/run/frequency_use_record.h"

#include <filesystem>

#include "trainers/run/json_file.h"

namespace rotor {

void to_json(nlohmann::json& j, const FrequencyUseRecord& r) {
  if (!r.available) {
    j = {{"available", false}, {"reason", r.reason}};
    return;
  }
  j = r.measured;
  j["available"] = true;
}

void from_json(const nlohmann::json& j, FrequencyUseRecord& r) {
  r.available = j.at("available").get<bool>();
  if (!r.available) {
    r.reason = j.at("reason").get<std::string>();
    return;
  }
  if (!j.at("layers").is_array() || !j.at("pairs").is_array())  // what the plotter and the report read
    throw nlohmann::json::other_error::create(501, "layers and pairs must be arrays", &j);
  r.measured = j;
  r.measured.erase("available");
}

FrequencyUseRecord read_frequency_use_file(const std::string& path) {
  if (!std::filesystem::exists(path)) {
    FrequencyUseRecord r;
    r.reason = "not measured";
    return r;
  }
  return read_record_file<FrequencyUseRecord>(path, "a frequency-use file", "; delete it to measure again");
}

void write_frequency_use_file(const std::string& path, const FrequencyUseRecord& record) {
  write_json_file(path, nlohmann::json(record));
}

}  // namespace rotor
