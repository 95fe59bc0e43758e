#pragma once
// RUN/frequencies.json: a rotary run's frequency use (measured by
// study/frequency_measurement.h on a variant's first seed, in the shape
// `rotor analyze frequencies` writes, so one plotter draws both):
//   {"available": true, "split", "windows", "pairs", "layers": [...]}  (diagnostics/frequency_use.h)
//   {"available": false, "reason"}
#include <string>

#include <nlohmann/json.hpp>

namespace rotor {

struct FrequencyUseRecord {
  bool available = false;
  std::string reason;       // why not, when !available
  nlohmann::json measured;  // FrequencyUse::to_json() and "split", when available
};

void to_json(nlohmann::json& j, const FrequencyUseRecord& r);
void from_json(const nlohmann::json& j, FrequencyUseRecord& r);

// The record at `path`; not available with reason "not measured" when the
// file does not exist; RunFileError naming the file when it is not one.
FrequencyUseRecord read_frequency_use_file(const std::string& path);
void write_frequency_use_file(const std::string& path, const FrequencyUseRecord& record);

}  // namespace rotor
