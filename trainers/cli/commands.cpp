#include "trainers/cli/commands.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include <fmt/core.h>

#include "datasets/dataset.h"
#include "trainers/checkpoint/checkpoint_directory.h"
#include "trainers/config/config_loader.h"
#include "trainers/training/evaluator.h"
#include "trainers/training/json_output.h"
#include "trainers/training/progress.h"
#include "trainers/training/restored_model.h"

namespace rotor {
namespace fs = std::filesystem;
namespace {

// The run directory of RUN/checkpoints/step-N.h5; for a checkpoint kept
// anywhere else, the directory it is in.
fs::path run_dir_of(const std::string& checkpoint) {
  const fs::path dir = fs::absolute(checkpoint).parent_path();
  return dir.filename() == "checkpoints" ? dir.parent_path() : dir;
}

void print_warning(const std::string& w) { fmt::print(stderr, "warning: {}\n", w); }

// A checkpoint file, RUN/checkpoints/latest or a run directory -> the file.
std::string checkpoint_file(const std::string& given) {
  std::vector<std::string> warnings;
  const std::string path = resolve_checkpoint(given, &warnings);
  for (const std::string& w : warnings) print_warning(w);
  return path;
}

DocumentScores score(RestoredModel& r, const TokenizedSplit& split, const DataConfig& data) {
  Sampler sampler = make_eval_sampler(split, data);
  Progress progress("eval " + split.name, sampler.batches_in_epoch(), Progress::parse(r.header.config.run.progress));
  const auto start = std::chrono::steady_clock::now();
  DocumentScores s = score_documents(*r.model, sampler, split.num_docs(), [&](int64_t done, int64_t) {
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    progress.update(done, "", dt > 0 ? static_cast<double>(done) / dt : 0.0, "batches/s");
  });
  progress.finish("");
  return s;
}

}  // namespace

int eval_command(const EvalRequest& req) {
  const std::string checkpoint = checkpoint_file(req.checkpoint);
  RestoredModel r = restore_model(checkpoint, req.overrides);
  Config& config = r.header.config;
  if (req.max_len > 0) config.data.eval_max_len = req.max_len;
  TokenizedSplit custom;
  std::optional<Dataset> data;
  const TokenizedSplit* split = nullptr;
  std::string name = req.split;
  if (!req.data.empty()) {
    name = fs::path(req.data).stem().string();
    const std::vector<Document> docs = read_documents(req.data, config.data, Labelled::yes, print_warning);
    custom = tokenize_documents(name, docs, *r.tokenizer, &r.labels);
    split = &custom;
  } else {
    LoadOptions opt;
    opt.tokenizer = r.header.tokenizer;
    opt.labels = r.header.labels;
    opt.warn = print_warning;
    data = load_dataset(config.data, opt);
    split = &data->split(req.split);
  }
  const ClassificationMetrics m = metrics_of(score(r, *split, config.data), r.labels.size());
  const int64_t window = eval_max_len(config.data);
  fmt::print("{}: {} documents, windows of {} tokens ({})\n  accuracy {:.4f}\n  macro-F1 {:.4f}\n  loss     {:.4f}\n",
             name, m.count, window, config.data.eval_windows, m.accuracy, m.macro_f1, m.loss);
  const std::string out =
      req.output.empty() ? (run_dir_of(checkpoint) / ("eval-" + name + ".json")).string() : req.output;
  std::ofstream f(out, std::ios::trunc);
  f << json_line({{"checkpoint", checkpoint},
                  {"split", name},
                  {"step", r.header.state.step},
                  {"eval_max_len", window},
                  {"documents", m.count},
                  {"accuracy", m.accuracy},
                  {"macro_f1", m.macro_f1},
                  {"loss", m.loss}})
    << "\n";
  if (!f) throw ConfigError(out + ": cannot write the metrics file");
  fmt::print("metrics written to {}\n", out);
  return 0;
}

int predict_command(const PredictRequest& req) {
  RestoredModel r = restore_model(checkpoint_file(req.checkpoint), req.overrides);
  Config& config = r.header.config;
  if (req.max_len > 0) config.data.eval_max_len = req.max_len;
  const std::vector<Document> docs = read_documents(req.input, config.data, Labelled::no, print_warning);
  const TokenizedSplit split = tokenize_documents(req.input, docs, *r.tokenizer, nullptr);
  const DocumentScores s = score(r, split, config.data);
  std::ofstream file;
  if (!req.output.empty()) {
    file.open(req.output, std::ios::trunc);
    if (!file) throw DataError(req.output + ": cannot write");
  }
  std::ostream& out = req.output.empty() ? std::cout : file;
  for (size_t d = 0; d < docs.size(); ++d) {
    const std::vector<double> p = probabilities(s.logits[d]);
    size_t best = 0;
    JsonFields probs = JsonFields::object();
    for (size_t c = 0; c < p.size(); ++c) {
      probs[r.labels.name(static_cast<int32_t>(c))] = round_to_significant(p[c], 6);
      if (p[c] > p[best]) best = c;
    }
    out << json_line({{"index", d}, {"label", r.labels.name(static_cast<int32_t>(best))}, {"probabilities", probs}})
        << "\n";
  }
  if (!req.output.empty()) fmt::print(stderr, "{} predictions written to {}\n", docs.size(), req.output);
  return 0;
}

int inspect_command(const std::string& given) {
  const std::string checkpoint = checkpoint_file(given);
  const CheckpointContents c = read_checkpoint(checkpoint);
  const CheckpointHeader h = read_header(c, checkpoint);
  const ModelConfig& m = h.config.model;
  fmt::print("checkpoint  {}\n", checkpoint);
  fmt::print("step        {} (epoch {}, {} batches into it)\n", h.state.step, h.state.sampler.epoch,
             h.state.sampler.cursor);
  fmt::print("best        {} = {:.6g} at step {}\n", h.config.train.best_metric, h.state.best_metric,
             h.state.best_step);
  std::string pos = m.position.type;
  if (pos == "rope") {
    pos += fmt::format(" ({}, base {:g}, fraction {:g}, scaling {})", option_name(m.position.layout), m.position.base,
                       m.position.fraction, option_name(m.position.scaling));
  }
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
