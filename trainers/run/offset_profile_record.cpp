#include "trainers/run/offset_profile_record.h"

#include <cstdlib>
#include <filesystem>

#include "trainers/run/json_file.h"

namespace rotor {

double OffsetProfileRecord::mass(const HeadOffsetProfile& head, int64_t d) const {
  if (std::abs(d) > max_offset) return 0.0;
  return head.profile.at(static_cast<size_t>(d + max_offset));
}

void to_json(nlohmann::json& j, const OffsetProfileRecord& r) {
  if (!r.available) {
    j = {{"available", false}, {"reason", r.reason}};
    return;
  }
  nlohmann::json offsets = nlohmann::json::array();
  for (int64_t d = -r.max_offset; d <= r.max_offset; ++d) offsets.push_back(d);
  j = {{"available", true},          {"split", r.split},   {"windows", r.windows},
       {"max_offset", r.max_offset}, {"offsets", offsets}, {"layers", nlohmann::json::array()}};
  for (size_t l = 0; l < r.layers.size(); ++l) {
    nlohmann::json heads = nlohmann::json::array();
    for (const HeadOffsetProfile& h : r.layers[l])
      heads.push_back({{"head", h.head}, {"profile", h.profile}, {"mean_distance", h.mean_distance}});
    j["layers"].push_back({{"layer", l}, {"heads", heads}});
  }
  if (!r.query.empty()) j["query"] = r.query;
}

void from_json(const nlohmann::json& j, OffsetProfileRecord& r) {
  r = OffsetProfileRecord();
  r.available = j.at("available").get<bool>();
  if (!r.available) {
    r.reason = j.at("reason").get<std::string>();
    return;
  }
  r.split = j.at("split").get<std::string>();
  r.query = j.value("query", std::string());  // absent before queries could be chosen: every row
  r.windows = j.at("windows").get<int64_t>();
  r.max_offset = j.at("max_offset").get<int64_t>();
  for (const nlohmann::json& layer : j.at("layers")) {
    std::vector<HeadOffsetProfile> heads;
    for (const nlohmann::json& h : layer.at("heads")) {
      HeadOffsetProfile head{h.at("head").get<int64_t>(), h.at("profile").get<std::vector<double>>(),
                             h.at("mean_distance").get<double>()};
      if (static_cast<int64_t>(head.profile.size()) != 2 * r.max_offset + 1)
        throw nlohmann::json::other_error::create(501, "a profile's length is not 2 max_offset + 1", &h);
      heads.push_back(head);
    }
    r.layers.push_back(heads);
  }
}

OffsetProfileRecord read_offset_profile_file(const std::string& path) {
  if (!std::filesystem::exists(path)) {
    OffsetProfileRecord r;
    r.reason = "not measured";
    return r;
  }
  return read_record_file<OffsetProfileRecord>(path, "an offset-profile file", "; delete it to measure again");
}

void write_offset_profile_file(const std::string& path, const OffsetProfileRecord& record) {
  write_json_file(path, nlohmann::json(record));
}

}  // namespace rotor
