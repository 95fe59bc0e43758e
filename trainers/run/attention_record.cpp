#include "trainers/run/attention_record.h"

#include <algorithm>
#include <filesystem>

#include "trainers/run/json_file.h"

namespace rotor {

bool AttentionUsage::near_uniform() const {
  return available && !layer_entropy.empty() &&
         std::all_of(layer_entropy.begin(), layer_entropy.end(), [](double e) { return e >= kUniformEntropy; });
}

void to_json(nlohmann::json& j, const AttentionUsage& u) {
  if (!u.available) {
    j = {{"available", false}, {"reason", u.reason}};
    return;
  }
  j = {{"available", true}, {"split", u.split}, {"windows", u.windows}, {"layer_entropy", u.layer_entropy}};
}

void from_json(const nlohmann::json& j, AttentionUsage& u) {
  u = AttentionUsage();
  u.available = j.at("available").get<bool>();
  if (!u.available) {
    u.reason = j.at("reason").get<std::string>();
    return;
  }
  u.split = j.at("split").get<std::string>();
  u.windows = j.at("windows").get<int64_t>();
  u.layer_entropy = j.at("layer_entropy").get<std::vector<double>>();
}

AttentionUsage read_attention_file(const std::string& path) {
  if (!std::filesystem::exists(path)) {
    AttentionUsage u;
    u.reason = "not measured";
    return u;
  }
  return read_record_file<AttentionUsage>(path, "an attention-usage file", "; delete it to measure again");
}

void write_attention_file(const std::string& path, const AttentionUsage& usage) {
  write_json_file(path, nlohmann::json(usage));
}

}  // namespace rotor
