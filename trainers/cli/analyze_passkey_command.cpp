// `rotor analyze passkey CKPT`: a causal language model's passkey retrieval
// (diagnostics/passkey.h) over a depth x length grid, printed as a table, and
// written as OUT/passkey.json with its heatmap OUT/passkey.png and .svg.
#include <fmt/format.h>

#include "trainers/cli/analysis_target.h"
#include "trainers/cli/analyze_commands.h"
#include "trainers/cli/checkpoint_argument.h"
#include "trainers/config/objective_table.h"
#include "trainers/diagnostics/passkey.h"
#include "trainers/training/run_compute_scope.h"

namespace rotor {
namespace {

struct PasskeyRequest {
  AnalysisRequest target;
  std::vector<int64_t> lengths;  // empty: the training length x 1, 2 and 4
  std::vector<double> depths{0, 0.25, 0.5, 0.75, 1};
  int64_t trials = 10;
  uint64_t seed = 0;
};

// A length the model cannot read (a position table too short): its reason, else empty.
std::string unavailable_reason(const ModelConfig& model, int64_t length) {
  try {
    check_trained_length(model, length, "--lengths");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

nlohmann::json cell_json(const PasskeyCell& c) {
  return {{"length", c.length},
          {"depth", c.depth},
          {"mean_depth", c.mean_depth},
          {"trials", c.trials},
          {"exact", c.exact},
          {"accuracy", static_cast<double>(c.exact) / static_cast<double>(c.trials)},
          {"token_accuracy", c.token_accuracy}};
}

// Rows of depths, columns of lengths: the accuracy, or n/a.
void print_grid(const nlohmann::json& data) {
  std::string header = fmt::format("{:>8}", "depth");
  for (const auto& length : data["lengths"]) header += fmt::format(" {:>8}", length.get<int64_t>());
  fmt::print("passkey accuracy (exact match of the key's digits, {} trials per cell)\n{}\n",
             data["trials"].get<int64_t>(), header);
  const size_t lengths = data["lengths"].size();
  for (size_t d = 0; d < data["depths"].size(); ++d) {
    std::string line = fmt::format("{:>8.3g}", data["depths"][d].get<double>());
    for (size_t l = 0; l < lengths; ++l) {
      const nlohmann::json& cell = data["cells"][d * lengths + l];
      line += cell.contains("accuracy") ? fmt::format(" {:>8.2f}", cell["accuracy"].get<double>())
                                        : fmt::format(" {:>8}", "n/a");
    }
    fmt::print("{}\n", line);
  }
  for (const auto& na : data["unavailable"])
    fmt::print("n/a at {} tokens: {}\n", na["length"].get<int64_t>(), na["reason"].get<std::string>());
}

// The key hides in English filler text, which a causal model trained on its task's symbols alone
// (train.objective completion) has never read: only a model of a text stream can answer.
void require_text_model(const Config& config, const std::string& checkpoint) {
  const ObjectiveSpec& objective = objective_spec(config.train.objective);
  if (objective.data == ObjectiveData::token_stream) return;
  std::string text_models;
  for (const ObjectiveSpec& s : objectives())
    if (s.causal && s.data == ObjectiveData::token_stream)
      text_models += (text_models.empty() ? "" : " or ") + s.name();
  throw ConfigError(fmt::format(
      "{}: rotor analyze passkey hides the key in English filler text, so it needs a causal language model "
      "trained on text (train.objective {}); this checkpoint's objective is {}, trained on data.task '{}' alone",
      checkpoint, text_models, objective.name(), config.data.task));
}

int analyze_passkey(const PasskeyRequest& req) {
  AnalysisTarget t = open_analysis_target(req.target);
  const Config& config = t.restored.header.config;
  LanguageModel& model = t.restored.causal_language_model("rotor analyze passkey", t.checkpoint);
  require_text_model(config, t.checkpoint);
  const int64_t trained = config.data.max_len;
  const std::vector<int64_t> lengths =
      req.lengths.empty() ? std::vector<int64_t>{trained, 2 * trained, 4 * trained} : req.lengths;
  const PasskeyPromptBuilder builder(*t.restored.tokenizer);
  for (const int64_t length : lengths) check_passkey_window(builder, length, req.trials, req.seed);  // before work
  const RunComputeScope compute(config.run);
  nlohmann::json data{{"checkpoint", t.checkpoint},
                      {"position", config.model.position.type},
                      {"precision", option_name(config.run.precision)},
                      {"training_length", trained},
                      {"seed", req.seed},
                      {"trials", req.trials},
                      {"lengths", lengths},
                      {"depths", req.depths},
                      {"cells", nlohmann::json::array()},
                      {"unavailable", nlohmann::json::array()}};
  std::vector<std::string> reasons;
  for (const int64_t length : lengths) {
    reasons.push_back(unavailable_reason(config.model, length));
    if (!reasons.back().empty()) data["unavailable"].push_back({{"length", length}, {"reason", reasons.back()}});
  }
  for (const double depth : req.depths)
    for (size_t l = 0; l < lengths.size(); ++l)
      data["cells"].push_back(reasons[l].empty()
                                  ? cell_json(passkey_cell(model, builder, lengths[l], depth, req.trials, req.seed))
                                  : nlohmann::json{{"length", lengths[l]}, {"depth", depth}});
  print_grid(data);
  write_analysis(t, "passkey", "passkey", data);
  return 0;
}

}  // namespace

Command add_analyze_passkey_command(CLI::App& analyze) {
  auto req = std::make_shared<PasskeyRequest>();
  auto* p = analyze.add_subcommand(
      "passkey", "A causal language model's passkey retrieval: accuracy over key depth x window length");
  add_checkpoint_argument(p, req->target.checkpoint);
  p->add_option("--lengths", req->lengths, "Window lengths in tokens (default the training length x 1, 2, 4)")
      ->delimiter(',')
      ->check(positive_number());
  p->add_option("--depths", req->depths, "Depths of the key in the filler, 0 (start) to 1 (end); default 0,0.25,..,1")
      ->delimiter(',')
      ->check(CLI::Range(0.0, 1.0));
  p->add_option("--trials", req->trials, "Keys per cell (default 10)")->check(positive_number());
  p->add_option("--seed", req->seed, "Seed of the keys (default 0); every cell sees the same keys");
  p->add_option("--set", req->target.overrides, "Override a config key, e.g. --set run.precision=fp32");
  p->add_option("--out", req->target.out, "Folder for passkey.json and its plots (default RUN/analysis)");
  return {p, [req] { return analyze_passkey(*req); }};
}

}  // namespace rotor
