#pragma once
// RUN/attention.json: how far a finished run's attention is from uniform,
// layer by layer (measured by study/attention_usage.h):
//   {"available": true, "split", "windows", "layer_entropy": [per layer]}
//   {"available": false, "reason"}
// written with sorted keys and an indent of 2.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rotor {

constexpr double kUniformEntropy = 0.98;

struct AttentionUsage {
  bool available = false;
  std::string reason;  // why not, when !available
  std::string split;
  int64_t windows = 0;                // evaluation windows seen (a long document may give several)
  std::vector<double> layer_entropy;  // per layer, relative to uniform

  // Every layer at or above kUniformEntropy: attention never left uniform.
  bool near_uniform() const;
};

void to_json(nlohmann::json& j, const AttentionUsage& u);
void from_json(const nlohmann::json& j, AttentionUsage& u);

// The usage at `path`; not available with reason "not measured" when the file
// does not exist; RunFileError naming the file when it is not one.
AttentionUsage read_attention_file(const std::string& path);
void write_attention_file(const std::string& path, const AttentionUsage& usage);

}  // namespace rotor
