// `rotor analyze frequencies CKPT`: per layer, head and frequency pair of a
// rotary model, the q and k pair norms and the pair's share of the logit over
// windows of a split (trainers/diagnostics/frequency_use.h).
#include <fmt/core.h>

#include <algorithm>
#include <numeric>

#include "engine/precision.h"
#include "models/model_options.h"
#include "trainers/cli/analysis_target.h"
#include "trainers/cli/analyze_commands.h"
#include "trainers/diagnostics/frequency_use.h"
#include "trainers/training/run_compute_scope.h"

namespace rotor {
namespace {

constexpr size_t kPairsShown = 3;

struct FrequenciesRequest {
  AnalysisRequest target;
  int64_t windows = 32;
};

// Per head, the pairs with the largest mean |share| of the logit, with their frequencies.
void print_summary(const nlohmann::json& data, const std::string& split, int64_t max_len) {
  fmt::print("pairs carrying most of |q.k| over {} windows of {} (at most {} tokens); frequency in rad/token\n",
             data["windows"].get<int64_t>(), split, max_len);
  const auto& pairs = data["pairs"];
  for (const auto& layer : data["layers"])
    for (const auto& head : layer["heads"]) {
      const std::vector<double> share = head["mean_abs_share"];
      std::vector<size_t> order(share.size());
      std::iota(order.begin(), order.end(), size_t{0});
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return share[a] > share[b]; });
      fmt::print("  layer {} head {}:", layer["layer"].get<int64_t>(), head["head"].get<int64_t>());
      for (size_t r = 0; r < std::min(kPairsShown, order.size()); ++r)
        fmt::print(" pair {} (freq {:.3g}) {:.1f}%", order[r], pairs[order[r]]["frequency"].get<double>(),
                   100 * share[order[r]]);
      fmt::print("\n");
    }
}

int analyze_frequencies(const FrequenciesRequest& req) {
  AnalysisTarget t = open_analysis_target(req.target);
  const TokenizedSplit& split = t.split(req.target.split);
  const Model& model = *t.restored.model;
  const RunComputeScope compute(t.restored.header.config.run);  // the run's precision and threads
  nlohmann::json data = measure_frequency_use(model, split, t.max_len, req.windows).to_json();
  data["split"] = split.name;
  data["layout"] = option_name(model.position_encoding().rotation()->layout());
  print_summary(data, split.name, t.max_len);
  write_analysis(t, "frequencies", "frequencies", data);
  return 0;
}

}  // namespace

Command add_analyze_frequencies_command(CLI::App& analyze) {
  auto req = std::make_shared<FrequenciesRequest>();
  auto* f = analyze.add_subcommand("frequencies",
                                   "Rotary models: per layer, head and frequency pair, the q and k norms and the "
                                   "pair's share of the attention logit over a split");
  add_analysis_options(f, req->target, "val");
  f->add_option("--windows", req->windows, "At most this many windows (one per document; default 32)")
      ->check(positive_number());
  return {f, [req] { return analyze_frequencies(*req); }};
}

}  // namespace rotor
