// `rotor predict`: the label and class probabilities of every document of a
// file, as JSONL on standard output or in a file.
#include <cerrno>
#include <cstring>
#include <iostream>

#include <fmt/core.h>

#include "datasets/dataset.h"
#include "engine/argmax.h"
#include "trainers/cli/checkpoint_argument.h"
#include "trainers/cli/command.h"
#include "trainers/distributed/communicator.h"
#include "trainers/run/json_text.h"
#include "trainers/run/output_file.h"
#include "trainers/training/evaluator.h"
#include "trainers/training/restored_evaluation.h"

namespace rotor {
namespace {

struct PredictRequest {
  std::string checkpoint;
  std::string input;   // JSONL/CSV/TSV (data.format) with the text field of the run's config
  std::string output;  // JSONL; empty: stdout
  int64_t max_len = 0;
  std::vector<std::string> overrides;  // --set, as for eval (e.g. rope scaling at longer lengths)
};

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
  const DocumentScores s = evaluate_classifier_at_length(r, split, config.data, "rotor predict", resolved.path,
                                                         Progress::style(config.run.progress))
                               .scores;
  if (!world().is_root()) return 0;
  std::string out;
  for (size_t d = 0; d < docs.size(); ++d) {
    const std::vector<double> p = probabilities(s.logits[d]);
    JsonFields probs = JsonFields::object();
    for (size_t c = 0; c < p.size(); ++c) probs[r.labels.name(static_cast<int32_t>(c))] = round_to_significant(p[c], 6);
    JsonFields line = {{"index", d}};
    if (!docs[d].key.empty()) line["id"] = docs[d].key;
    line["label"] = r.labels.name(static_cast<int32_t>(argmax(p.data(), p.size())));
    line["probabilities"] = probs;
    out += compact_json(line) + "\n";
  }
  if (req.output.empty()) {
    errno = 0;
    std::cout << out << std::flush;
    if (!std::cout)
      throw Error(std::string("standard output: cannot write the predictions: ") +
                  (errno != 0 ? std::strerror(errno) : "a write failed"));
    return 0;
  }
  write_output_file(req.output, out);
  fmt::print(stderr, "{} predictions written to {}\n", docs.size(), req.output);
  return 0;
}

}  // namespace

Command add_predict_command(CLI::App& app) {
  auto predict = std::make_shared<PredictRequest>();
  auto* p =
      app.add_subcommand("predict",
                         "Label and class probabilities for every document of a JSONL, CSV or TSV file (with its id: "
                         "data.key_field, or an id field where present)");
  add_checkpoint_argument(p, predict->checkpoint);
  p->add_option("--input", predict->input, "JSONL/CSV/TSV file with the run's text field")
      ->required()
      ->check(CLI::ExistingFile);
  p->add_option("--output", predict->output, "JSONL output (default: stdout)");
  p->add_option("--max-len", predict->max_len, "Window length in tokens")->check(positive_number());
  p->add_option("--set", predict->overrides, "Override a config key, e.g. --set model.position.scaling=ntk");
  return {p, [predict] { return predict_command(*predict); }};
}

}  // namespace rotor
