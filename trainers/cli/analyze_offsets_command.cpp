// `rotor analyze offsets CKPT`: per layer and head, attention mass against the
// signed distance j - i over windows of a split (trainers/diagnostics/offset_profile.h).
#include <fmt/core.h>

#include "engine/precision.h"
#include "trainers/cli/analysis_target.h"
#include "trainers/cli/analyze_commands.h"
#include "trainers/diagnostics/offset_profile.h"

namespace rotor {
namespace {

struct OffsetsRequest {
  AnalysisRequest target;
  int64_t windows = 256;
};

int analyze_offsets(const OffsetsRequest& req) {
  AnalysisTarget t = open_analysis_target(req.target);
  const TokenizedSplit& split = t.split(req.target.split);
  const Model& model = *t.restored.model;
  const Precision precision = t.restored.header.config.run.precision;
  const PrecisionScope scope(precision);
  nlohmann::json data = measure_offset_profiles(model, split, t.max_len, req.windows, precision).to_json();
  data["checkpoint"] = t.checkpoint;
  data["split"] = split.name;
  data["precision"] = option_name(precision);
  data["position"] = model.config().position.type;
  fmt::print("mean attention distance over {} windows of {} (at most {} tokens)\n", data["windows"].get<int64_t>(),
             split.name, t.max_len);
  for (const auto& layer : data["layers"])
    for (const auto& head : layer["heads"])
      fmt::print("  layer {} head {}: {:.3f}\n", layer["layer"].get<int64_t>(), head["head"].get<int64_t>(),
                 head["mean_distance"].get<double>());
  write_analysis(t, "offsets", "offsets", data);
  return 0;
}

}  // namespace

Command add_analyze_offsets_command(CLI::App& analyze) {
  auto req = std::make_shared<OffsetsRequest>();
  auto* o = analyze.add_subcommand(
      "offsets", "Per layer and head: attention mass against the distance j - i over a split, and mean distances");
  add_analysis_options(o, req->target, "val");
  o->add_option("--windows", req->windows, "At most this many windows (one per document; default 256)")
      ->check(positive_number());
  return {o, [req] { return analyze_offsets(*req); }};
}

}  // namespace rotor
