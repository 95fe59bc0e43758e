// `rotor eval`: a checkpoint's metrics on a split of its task or a labelled
// file, at one or several window lengths, printed and written next to the run.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

#include <fmt/core.h>

#include "datasets/dataset.h"
#include "trainers/cli/checkpoint_argument.h"
#include "trainers/cli/command.h"
#include "trainers/config/config_loader.h"
#include "trainers/distributed/communicator.h"
#include "trainers/run/eval_record.h"
#include "trainers/run/run_directory.h"
#include "trainers/training/evaluator.h"
#include "trainers/training/restored_evaluation.h"
#include "trainers/training/restored_model.h"

namespace rotor {
namespace fs = std::filesystem;
namespace {

struct EvalRequest {
  std::string checkpoint;
  std::string split = "test";     // val | test | any extra split of the task
  std::string data;               // a JSONL/CSV/TSV file to evaluate instead of a split
  std::vector<int64_t> max_lens;  // evaluation window lengths, one evaluation each; empty: the run's own
  std::vector<std::string> overrides;
  std::string output;  // metrics JSON file (one length only); empty: RUN/<eval_file_name()>
  int64_t stride = 0;  // a language model: new targets per window (0: the length, windows do not overlap)
};

// What `rotor eval` evaluates: a split of the run's task, or a --data file.
struct EvalData {
  std::string name;
  std::optional<Dataset> dataset;  // the task's data, when evaluating one of its splits
  TokenizedSplit file;             // the --data file, tokenized
  const TokenizedSplit& split() const { return dataset ? dataset->split(name) : file; }
};

EvalData load_eval_data(const EvalRequest& req, const RestoredModel& r) {
  EvalData d;
  if (!req.data.empty()) {
    const fs::path path = fs::path(req.data).lexically_normal();  // "dir/" names the folder "dir"
    d.name = (path.has_filename() ? path : path.parent_path()).stem().string();
    const bool labelled = r.header.config.data.labelled;
    const std::vector<Document> docs =
        read_documents(req.data, r.header.config.data, labelled ? Labelled::yes : Labelled::no, print_warning);
    d.file = tokenize_documents(d.name, docs, *r.tokenizer, labelled ? &r.labels : nullptr);
    return d;
  }
  d.name = req.split;
  LoadOptions opt;
  opt.tokenizer = r.header.tokenizer;
  opt.labels = r.header.labels;
  opt.warn = print_warning;
  d.dataset = load_dataset(r.header.config.data, opt);
  d.split();  // an unknown split name fails here, before any scoring
  return d;
}

struct LengthResult {
  int64_t length;
  SplitScores scores;
  std::string file;
};

// The scores of one length as a list, or a table with one row per length:
// each metric the objective declares, in its order and number format.
void print_results(const ObjectiveSpec& objective, const std::string& name, int64_t documents,
                   const std::string& windows, const std::vector<LengthResult>& results) {
  if (results.size() == 1) {
    const SplitScores& m = results[0].scores;
    fmt::print("{}: {} documents, windows of {} tokens ({})\n", name, documents, results[0].length, windows);
    size_t width = 0;
    for (const MetricDeclaration& d : objective.metrics) width = std::max(width, d.shown_name().size());
    if (m.absent()) fmt::print("  {}\n", describe_scores(objective, m));
    for (const MetricDeclaration& d : objective.metrics)
      if (!m.absent()) fmt::print("  {:<{}} {}\n", d.shown_name(), width, d.format(m.get(d.name)));
    if (!results[0].file.empty()) fmt::print("metrics written to {}\n", results[0].file);
    return;
  }
  fmt::print("{}: {} documents, windows: {}\n{:>8}", name, documents, windows, "length");
  for (const MetricDeclaration& d : objective.metrics) fmt::print("  {:>10}", d.shown_name());
  fmt::print("  metrics file\n");
  for (const LengthResult& r : results) {
    fmt::print("{:>8}", r.length);
    for (const MetricDeclaration& d : objective.metrics) fmt::print("  {:>10}", d.format(r.scores.get(d.name)));
    fmt::print("  {}\n", r.file.empty() ? "(not written)" : r.file);
  }
}

// Writes one eval record; the file, or "" when it could not. A file the user
// named (--output) must be written; the default place, the run folder, may be
// read-only, and then the metrics are printed all the same, with a warning.
std::string save_eval_record(const std::string& file, const EvalRecord& record, bool named_by_user) {
  try {
    write_eval_record(file, record);
    return file;
  } catch (const Error& e) {
    if (named_by_user) throw;
    print_warning(std::string(e.what()) + "; the metrics are printed below only; give --output FILE to keep them");
    return "";
  }
}

int eval_command(const EvalRequest& req) {
  const ResolvedCheckpoint resolved = checkpoint_file(req.checkpoint);
  fmt::print("checkpoint {}\n", describe(resolved));
  RestoredModel r = restore_model(resolved.path, req.overrides);
  Config& config = r.header.config;
  const int64_t own_len = eval_max_len(config.data);
  const std::vector<int64_t> lengths = req.max_lens.empty() ? std::vector<int64_t>{own_len} : req.max_lens;
  for (const int64_t len : lengths) check_trained_length(config.model, len, "--max-len");
  if (!req.output.empty() && lengths.size() > 1) {
    throw ConfigError("--output names one file but --max-len gives " + std::to_string(lengths.size()) +
                      " lengths; leave --output out to get one file per length next to the run");
  }
  const ObjectiveSpec& objective = objective_spec(config.train.objective);
  const bool stream = objective.data == ObjectiveData::token_stream;  // scored in windows of the split's token stream
  if (!stream && req.stride > 0)
    throw ConfigError(
        "--stride applies to language models (train.objective clm or mlm); this checkpoint's objective "
        "is " +
        objective.name());
  for (const int64_t len : lengths)
    if (req.stride > len)
      throw ConfigError(fmt::format(
          "--stride {}: a window of {} tokens ({}) has at most {} new tokens to score; give --stride {} or less (or "
          "leave it out for non-overlapping windows)",
          req.stride, len, req.max_lens.empty() ? "the run's evaluation length; --max-len sets another" : "--max-len",
          len, len));
  const EvalData data = load_eval_data(req, r);
  std::vector<LengthResult> results;
  for (const int64_t len : lengths) {
    config.data.eval_max_len = len;
    const int64_t stride = req.stride > 0 ? req.stride : len;
    const std::string windows =
        stream ? (stride < len ? "stride" + std::to_string(stride) : "windows") : option_name(config.data.eval_windows);
    const EvalSetting setting{
        fs::absolute(resolved.path).lexically_normal().string(), data.name, req.data, len, windows, req.overrides};
    const SplitScores m = evaluate_at_length(r, data.split(), config.data, stride, resolved.path);
    if (!world().is_root()) continue;  // under mpirun, rank 0 reports
    const std::string out =
        req.output.empty() ? RunDirectory::of_checkpoint(resolved.path).eval_record_path(setting, own_len) : req.output;
    const EvalRecord record{setting, r.header.state.step, data.split().num_docs(), m};
    results.push_back({len, m, save_eval_record(out, record, !req.output.empty())});
  }
  if (!world().is_root()) return 0;
  const std::string windows = !stream          ? option_name(config.data.eval_windows)
                              : req.stride > 0 ? fmt::format("sliding, {} new tokens each", req.stride)
                                               : std::string("non-overlapping");
  print_results(objective, data.name, data.split().num_docs(), windows, results);
  return 0;
}

}  // namespace

Command add_eval_command(CLI::App& app) {
  auto eval = std::make_shared<EvalRequest>();
  auto* e = app.add_subcommand("eval", "Evaluate a checkpoint on a split or a file; prints and writes metrics");
  add_checkpoint_argument(e, eval->checkpoint);
  e->add_option("--split", eval->split, "Split of the run's task: val, test, or an extra split (default test)");
  // Whatever data.train_path reads (read_documents dispatches as for training): a file, or a folder.
  e->add_option("--data", eval->data,
                "Data to evaluate instead, read as data.train_path is: JSONL/CSV/TSV, a folder <dir>/<label>/*.txt, "
                "or a language model's text file or folder")
      ->check(CLI::ExistingPath);
  e->add_option("--max-len", eval->max_lens,
                "Evaluation window length(s) in tokens, e.g. 512,1024,2048 (length extrapolation; one model load, "
                "one metrics file per length)")
      ->delimiter(',')
      ->check(positive_number());
  e->add_option("--stride", eval->stride,
                "Language models: score each window's last STRIDE tokens only, sliding by STRIDE (every token once, "
                "with at least max-len - STRIDE tokens of context); default: non-overlapping windows")
      ->check(positive_number());
  e->add_option("--set", eval->overrides, "Override a config key, e.g. --set model.position.scaling=ntk");
  e->add_option("--output", eval->output,
                "Metrics JSON file (default RUN/eval-<split>[-L<length>][-<--set values>].json, e.g. "
                "eval-test-L2048-ntk4.json)");
  return {e, [eval] { return eval_command(*eval); }};
}

}  // namespace rotor
