// `rotor analyze offsets CKPT`: per layer and head, attention mass against the
// signed distance j - i over windows of a split (trainers/diagnostics/offset_profile.h).
#include <fmt/format.h>

#include <optional>
#include <string>

#include "engine/precision.h"
#include "trainers/cli/analysis_target.h"
#include "trainers/cli/analyze_commands.h"
#include "trainers/diagnostics/offset_profile.h"
#include "trainers/training/run_compute_scope.h"

namespace rotor {
namespace {

struct OffsetsRequest {
  AnalysisRequest target;
  int64_t windows = 256;
  std::string query;  // --query: only rows whose query is this token
};

// --query TEXT as one token id of the run's tokenizer.
std::optional<int32_t> query_token(const std::string& query, const Tokenizer& tokenizer) {
  if (query.empty()) return std::nullopt;
  const std::vector<int32_t> ids = tokenizer.encode(query);
  if (ids.size() != 1 || ids[0] == tokenizer.unk_id())
    throw ConfigError(fmt::format(
        "--query '{}': the run's {} tokenizer makes {} of it; give the text of one token "
        "it knows",
        query, tokenizer.name(), ids.size() == 1 ? std::string("[UNK]") : fmt::format("{} tokens", ids.size())));
  return ids[0];
}

int analyze_offsets(const OffsetsRequest& req) {
  AnalysisTarget t = open_analysis_target(req.target);
  const TokenizedSplit& split = t.split(req.target.split);
  const Model& model = *t.restored.model;
  const Precision precision = t.restored.header.config.run.precision;
  const RunComputeScope compute(t.restored.header.config.run);  // the run's precision and threads
  const std::optional<int32_t> token = query_token(req.query, *t.restored.tokenizer);
  nlohmann::json data = measure_offset_profiles(model, split, t.max_len, req.windows, precision, token).to_json();
  if (token) data["query"] = req.query;
  data["split"] = split.name;
  fmt::print("mean attention distance over {} windows of {} (at most {} tokens){}\n", data["windows"].get<int64_t>(),
             split.name, t.max_len, token ? fmt::format(", from the queries that are '{}'", req.query) : "");
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
  o->add_option("--query", req->query,
                "Only the rows whose query is this token (e.g. M, the offset task's marker): what a head does "
                "from one kind of position, which the mean over every row dilutes");
  return {o, [req] { return analyze_offsets(*req); }};
}

}  // namespace rotor
