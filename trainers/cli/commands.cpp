#include "trainers/cli/commands.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "datasets/csv_reader.h"
#include "datasets/data_error.h"
#include "datasets/dataset.h"
#include "datasets/json_line.h"
#include "datasets/jsonl_reader.h"
#include "trainers/config/config_loader.h"
#include "trainers/training/evaluator.h"
#include "trainers/training/json_writer.h"
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

std::vector<Document> read_labelled(const std::string& path, const DataConfig& c) {
  Utf8Repairs repairs;
  const FieldNames fields{c.text_field, c.label_field, c.key_field};
  const std::string ext = fs::path(path).extension().string();
  if (ext == ".csv") return read_csv(path, ',', fields, repairs);
  if (ext == ".tsv") return read_csv(path, '\t', fields, repairs);
  return read_jsonl(path, fields, repairs);
}

DocumentScores score(RestoredModel& r, const TokenizedSplit& split, const DataConfig& data) {
  Sampler sampler(split, window_config(data, "test"), batch_config(data), data.seed, SamplerMode::eval);
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
  RestoredModel r = restore_model(req.checkpoint, req.overrides);
  Config& config = r.header.config;
  if (req.max_len > 0) config.data.eval_max_len = req.max_len;
  TokenizedSplit custom;
  std::optional<Dataset> data;
  const TokenizedSplit* split = nullptr;
  std::string name = req.split;
  if (!req.data.empty()) {
    const std::vector<Document> docs = read_labelled(req.data, config.data);
    std::vector<std::string> texts;
    for (const Document& d : docs) texts.push_back(d.text);
    custom = tokenize_texts(req.data, texts, r.labels.encode(docs, req.data), *r.tokenizer);
    split = &custom;
    name = fs::path(req.data).stem().string();
  } else {
    LoadOptions opt;
    opt.tokenizer = r.header.tokenizer;
    opt.labels = r.header.labels;
    data = load_dataset(config.data, opt);
    split = &data->split(req.split);
  }
  const ClassificationMetrics m = metrics_of(score(r, *split, config.data), r.labels.size());
  const int64_t window = config.data.eval_max_len > 0 ? config.data.eval_max_len : config.data.max_len;
  std::printf("%s: %lld documents, windows of %lld tokens (%s)\n  accuracy %.4f\n  macro-F1 %.4f\n  loss     %.4f\n",
              name.c_str(), static_cast<long long>(m.count), static_cast<long long>(window),
              config.data.eval_windows.c_str(), m.accuracy, m.macro_f1, m.loss);
  const std::string out = req.output.empty() ? (run_dir_of(req.checkpoint) / ("eval-" + name + ".json")).string()
                                             : req.output;
  std::ofstream f(out, std::ios::trunc);
  f << JsonBuilder()
           .add("checkpoint", req.checkpoint)
           .add("split", name)
           .add("step", r.header.state.step)
           .add("eval_max_len", window)
           .add("documents", m.count)
           .add("accuracy", m.accuracy)
           .add("macro_f1", m.macro_f1)
           .add("loss", m.loss)
           .str()
    << "\n";
  if (!f) throw ConfigError(out + ": cannot write the metrics file");
  std::printf("metrics written to %s\n", out.c_str());
  return 0;
}

int predict_command(const PredictRequest& req) {
  RestoredModel r = restore_model(req.checkpoint);
  Config& config = r.header.config;
  if (req.max_len > 0) config.data.eval_max_len = req.max_len;
  std::ifstream in(req.input);
  if (!in) throw DataError(req.input + ": cannot open the input file");
  std::vector<std::string> texts;
  int64_t line_no = 0, replaced = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = req.input + ":" + std::to_string(line_no);
    const auto object = parse_json_object(line, where, replaced);
    const JsonValue* text = find_field(object, config.data.text_field);
    if (!text || text->kind != JsonValue::Kind::string)
      throw DataError(where + ": expected a string field \"" + config.data.text_field + "\" (data.text_field)");
    texts.push_back(text->text);
  }
  if (texts.empty()) throw DataError(req.input + ": no documents");
  const TokenizedSplit split =
      tokenize_texts(req.input, texts, std::vector<int32_t>(texts.size(), 0), *r.tokenizer);
  const DocumentScores s = score(r, split, config.data);
  std::ofstream file;
  if (!req.output.empty()) {
    file.open(req.output, std::ios::trunc);
    if (!file) throw DataError(req.output + ": cannot write");
  }
  std::ostream& out = req.output.empty() ? std::cout : file;
  for (size_t d = 0; d < texts.size(); ++d) {
    const std::vector<double> p = probabilities(s.logits[d]);
    size_t best = 0;
    JsonBuilder probs;
    for (size_t c = 0; c < p.size(); ++c) {
      probs.add(r.labels.name(static_cast<int32_t>(c)), p[c], 6);
      if (p[c] > p[best]) best = c;
    }
    out << JsonBuilder()
               .add("index", static_cast<int64_t>(d))
               .add("label", r.labels.name(static_cast<int32_t>(best)))
               .add_raw("probabilities", probs.str())
               .str()
        << "\n";
  }
  if (!req.output.empty()) std::fprintf(stderr, "%zu predictions written to %s\n", texts.size(), req.output.c_str());
  return 0;
}

int inspect_command(const std::string& checkpoint) {
  const CheckpointContents c = read_checkpoint(checkpoint);
  const CheckpointHeader h = read_header(c, checkpoint);
  const ModelConfig& m = h.config.model;
  std::printf("checkpoint  %s\n", checkpoint.c_str());
  std::printf("step        %lld (epoch %lld, %lld batches into it)\n", static_cast<long long>(h.state.step),
              static_cast<long long>(h.state.sampler.epoch), static_cast<long long>(h.state.sampler.cursor));
  std::printf("best        %s = %.6g at step %lld\n", h.config.train.best_metric.c_str(), h.state.best_metric,
              static_cast<long long>(h.state.best_step));
  std::string pos = m.position.type;
  if (pos == "rope") {
    char detail[128];
    std::snprintf(detail, sizeof detail, " (%s, base %g, fraction %g, scaling %s)", option_name(m.position.layout),
                  m.position.base, m.position.fraction, option_name(m.position.scaling));
    pos += detail;
  }
  std::printf("model       d_model %lld, %lld layers, %lld heads, d_ff %lld, %s-LN, %s pooling, %s attention\n",
              static_cast<long long>(m.d_model), static_cast<long long>(m.layers), static_cast<long long>(m.heads),
              static_cast<long long>(m.d_ff), option_name(m.norm), option_name(m.pooling), option_name(m.attention));
  std::printf("position    %s\n", pos.c_str());
  std::printf("classes     %zu:", h.labels.size());
  for (const std::string& l : h.labels) std::printf(" %s", l.c_str());
  std::printf("\ntraining    %.0f s so far, %lld threads\n\n", h.state.elapsed_s, static_cast<long long>(h.threads));
  std::printf("%-44s %-16s %12s\n", "parameter", "shape", "count");
  int64_t total = 0;
  for (const auto& [key, t] : c.tensors) {
    if (key.rfind("model/", 0) != 0) continue;
    std::printf("%-44s %-16s %12lld\n", key.substr(6).c_str(), to_string(t.shape()).c_str(),
                static_cast<long long>(t.numel()));
    total += t.numel();
  }
  std::printf("%-44s %-16s %12lld\n\nconfig:\n%s", "total", "", static_cast<long long>(total), c.texts.at("config").c_str());
  return 0;
}

int config_command(const std::string& path, const std::vector<std::string>& overrides, bool reference, bool markdown) {
  if (reference) {
    std::printf("%s", config_reference(markdown).c_str());
    return 0;
  }
  std::printf("%s", dump_config(load_config(path, overrides)).c_str());
  return 0;
}

}  // namespace rotor
