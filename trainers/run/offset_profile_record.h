#pragma once
// RUN/offsets.json: a finished run's attention against the signed distance
// j - i, per layer and head (measured by study/offset_usage.h on its first
// seed, in the shape `rotor analyze offsets` writes, so one plotter draws both):
//   {"available": true, "split", ["query",] "windows", "max_offset", "offsets",
//    "layers": [{"layer", "heads": [{"head", "profile", "mean_distance"}]}]}
//   {"available": false, "reason"}
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rotor {

struct HeadOffsetProfile {
  int64_t head = 0;
  std::vector<double> profile;  // mean mass at distances -max_offset .. max_offset
  double mean_distance = 0.0;
};

struct OffsetProfileRecord {
  bool available = false;
  std::string reason;  // why not, when !available
  std::string split;
  std::string query;  // the token whose query rows were profiled ("query" in the file); empty: every row
  int64_t windows = 0, max_offset = 0;
  std::vector<std::vector<HeadOffsetProfile>> layers;  // [layer][head]

  // The mean mass of a head at distance d; 0 beyond max_offset.
  double mass(const HeadOffsetProfile& head, int64_t d) const;
};

void to_json(nlohmann::json& j, const OffsetProfileRecord& r);
void from_json(const nlohmann::json& j, OffsetProfileRecord& r);

// The record at `path`; not available with reason "not measured" when the
// file does not exist; RunFileError naming the file when it is not one.
OffsetProfileRecord read_offset_profile_file(const std::string& path);
void write_offset_profile_file(const std::string& path, const OffsetProfileRecord& record);

}  // namespace rotor
