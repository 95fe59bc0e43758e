#include "trainers/cli/commands.h"

#include <filesystem>
#include <iostream>
#include <optional>

#include <fmt/core.h>

#include "datasets/dataset.h"
#include "models/position_encoding.h"
#include "trainers/checkpoint/checkpoint_directory.h"
#include "trainers/config/config_loader.h"
#include "trainers/distributed/communicator.h"
#include "trainers/run/eval_record.h"
#include "trainers/run/json_text.h"
#include "trainers/run/output_file.h"
#include "trainers/run/run_directory.h"
#include "trainers/training/evaluator.h"
#include "trainers/training/progress.h"
#include "trainers/training/restored_model.h"

namespace rotor {
namespace fs = std::filesystem;
namespace {

void print_warning(const std::string& w) { fmt::print(stderr, "warning: {}\n", w); }

// A checkpoint file, RUN/checkpoints/latest or best, or a run directory -> the
// file, and how it was chosen ("" for a file named directly).
ResolvedCheckpoint checkpoint_file(const std::string& given) {
  std::vector<std::string> warnings;
  ResolvedCheckpoint r = resolve_checkpoint(given, &warnings);
  for (const std::string& w : warnings) print_warning(w);
  return r;
}

std::string describe(const ResolvedCheckpoint& r) { return r.how.empty() ? r.path : r.path + " (" + r.how + ")"; }

DocumentScores score(RestoredModel& r, const TokenizedSplit& split, const DataConfig& data) {
  Sampler sampler = make_eval_sampler(split, data);
  // Under mpirun every rank scores a share of the batches; rank 0 reports.
  const Progress::Style style =
      world().is_root() ? Progress::parse(r.header.config.run.progress) : Progress::Style::none;
  Progress progress("eval " + split.name, sampler.batches_in_epoch(), style);
  const auto start = std::chrono::steady_clock::now();
  DocumentScores s = score_documents(*r.model, sampler, split.num_docs(), [&](int64_t done, int64_t) {
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    progress.update(done, "", dt > 0 ? static_cast<double>(done) / dt : 0.0, "batches/s");
  });
  progress.finish("");
  return s;
}

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
    d.name = fs::path(req.data).stem().string();
    const std::vector<Document> docs = read_documents(req.data, r.header.config.data, Labelled::yes, print_warning);
    d.file = tokenize_documents(d.name, docs, *r.tokenizer, &r.labels);
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
  ClassificationMetrics metrics;
  std::string file;
};

// One length: the metrics one per line; several: a table, one row per length.
void print_results(const std::string& name, const std::string& windows, const std::vector<LengthResult>& results) {
  const ClassificationMetrics& first = results.front().metrics;
  if (results.size() == 1) {
    fmt::print("{}: {} documents, windows of {} tokens ({})\n  accuracy {:.4f}\n  macro-F1 {:.4f}\n  loss     {:.4f}\n",
               name, first.count, results[0].length, windows, first.accuracy, first.macro_f1, first.loss);
    if (!results[0].file.empty()) fmt::print("metrics written to {}\n", results[0].file);
    return;
  }
  fmt::print("{}: {} documents, windows: {}\n{:>8}  {:>8}  {:>8}  {:>8}  {}\n", name, first.count, windows, "length",
             "accuracy", "macro-F1", "loss", "metrics file");
  for (const LengthResult& r : results) {
    fmt::print("{:>8}  {:>8.4f}  {:>8.4f}  {:>8.4f}  {}\n", r.length, r.metrics.accuracy, r.metrics.macro_f1,
               r.metrics.loss, r.file.empty() ? "(not written)" : r.file);
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

}  // namespace

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
  const EvalData data = load_eval_data(req, r);
  std::vector<LengthResult> results;
  for (const int64_t len : lengths) {
    config.data.eval_max_len = len;
    const EvalSetting setting{fs::absolute(resolved.path).lexically_normal().string(),
                              data.name,
                              req.data,
                              len,
                              config.data.eval_windows,
                              req.overrides};
    const DocumentScores scores = score(r, data.split(), config.data);
    require_finite_scores(scores, resolved.path);
    const ClassificationMetrics m = metrics_of(scores, r.labels.size());
    if (!world().is_root()) continue;  // under mpirun, rank 0 reports
    const std::string out =
        req.output.empty() ? RunDirectory::of_checkpoint(resolved.path).eval_record_path(setting, own_len) : req.output;
    const EvalRecord record{setting, r.header.state.step, m.count, m.accuracy, m.macro_f1, m.loss};
    results.push_back({len, m, save_eval_record(out, record, !req.output.empty())});
  }
  if (!world().is_root()) return 0;
  print_results(data.name, config.data.eval_windows, results);
  return 0;
}

int predict_command(const PredictRequest& req) {
  const ResolvedCheckpoint resolved = checkpoint_file(req.checkpoint);
  fmt::print(stderr, "checkpoint {}\n", describe(resolved));
  RestoredModel r = restore_model(resolved.path, req.overrides);
  Config& config = r.header.config;
  if (req.max_len > 0) {
    check_trained_length(config.model, req.max_len, "--max-len");
    config.data.eval_max_len = req.max_len;
  }
  const std::vector<Document> docs = read_documents(req.input, config.data, Labelled::no, print_warning);
  const TokenizedSplit split = tokenize_documents(req.input, docs, *r.tokenizer, nullptr);
  const DocumentScores s = score(r, split, config.data);
  require_finite_scores(s, resolved.path);
  if (!world().is_root()) return 0;
  std::string out;
  for (size_t d = 0; d < docs.size(); ++d) {
    const std::vector<double> p = probabilities(s.logits[d]);
    size_t best = 0;
    JsonFields probs = JsonFields::object();
    for (size_t c = 0; c < p.size(); ++c) {
      probs[r.labels.name(static_cast<int32_t>(c))] = round_to_significant(p[c], 6);
      if (p[c] > p[best]) best = c;
    }
    JsonFields line = {{"index", d}};
    if (!docs[d].key.empty()) line["id"] = docs[d].key;
    line["label"] = r.labels.name(static_cast<int32_t>(best));
    line["probabilities"] = probs;
    out += compact_json(line) + "\n";
  }
  if (req.output.empty()) {
    std::cout << out << std::flush;
    if (!std::cout) throw Error("standard output: cannot write the predictions");
    return 0;
  }
  write_output_file(req.output, out);
  fmt::print(stderr, "{} predictions written to {}\n", docs.size(), req.output);
  return 0;
}

int inspect_command(const std::string& given) {
  const ResolvedCheckpoint resolved = checkpoint_file(given);
  const std::string& checkpoint = resolved.path;
  const CheckpointContents c = read_checkpoint(checkpoint);
  const CheckpointHeader h = read_header(c, checkpoint);
  const ModelConfig& m = h.config.model;
  fmt::print("checkpoint  {}\n", describe(resolved));
  fmt::print("step        {} (epoch {}, {} batches into it)\n", h.state.step, h.state.sampler.epoch,
             h.state.sampler.cursor);
  fmt::print("best        {} = {:.6g} at step {}\n", h.config.train.best_metric, h.state.best_metric,
             h.state.best_step);
  std::string pos = m.position.type, keys;
  for (const PositionOption& o : position_encoding(m.position.type).options)
    keys += fmt::format("{}{} {}", keys.empty() ? "" : ", ", o.key, position_value_text(m.position.value(o.key)));
  if (!keys.empty()) pos += " (" + keys + ")";
  fmt::print("model       d_model {}, {} layers, {} heads, d_ff {}, {}-LN, {} pooling, {} attention\n", m.d_model,
             m.layers, m.heads, m.d_ff, option_name(m.norm), option_name(m.pooling), option_name(m.attention));
  fmt::print("position    {}\n", pos);
  fmt::print("classes     {}:", h.labels.size());
  for (const std::string& l : h.labels) fmt::print(" {}", l);
  fmt::print("\ntraining    {:.0f} s so far, {} threads\n\n", h.state.elapsed_s, h.threads);
  fmt::print("{:<44} {:<16} {:>12}\n", "parameter", "shape", "count");
  int64_t total = 0;
  for (const auto& [key, t] : c.tensors) {
    if (key.rfind("model/", 0) != 0) continue;
    fmt::print("{:<44} {:<16} {:>12}\n", key.substr(6), to_string(t.shape()), t.numel());
    total += t.numel();
  }
  fmt::print("{:<44} {:<16} {:>12}\n\nconfig:\n{}", "total", "", total, c.texts.at("config"));
  return 0;
}

int config_command(const std::string& path, const std::vector<std::string>& overrides, bool reference, bool markdown) {
  if (reference) {
    fmt::print("{}", config_reference(markdown));
    return 0;
  }
  fmt::print("{}", dump_config(load_config(path, overrides)));
  return 0;
}

}  // namespace rotor
