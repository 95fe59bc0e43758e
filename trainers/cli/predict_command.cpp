// `rotor predict`: the label and class probabilities of every document of a
// file, as JSONL on standard output or in a file; for a sequence-task run
// (train.objective transduction or completion), the output of every sample of
// a split of its task (--split) with the expected one.
#include <cerrno>
#include <cstring>
#include <iostream>

#include <fmt/core.h>

#include "datasets/dataset.h"
#include "engine/argmax.h"
#include "trainers/cli/checkpoint_argument.h"
#include "trainers/cli/command.h"
#include "trainers/diagnostics/sequence_predictions.h"
#include "trainers/distributed/communicator.h"
#include "trainers/run/json_text.h"
#include "trainers/run/output_file.h"
#include "trainers/training/evaluator.h"
#include "trainers/training/restored_evaluation.h"
#include "trainers/training/run_compute_scope.h"

namespace rotor {
namespace {

struct PredictRequest {
  std::string checkpoint;
  std::string input;   // JSONL/CSV/TSV (data.format) with the text field of the run's config
  std::string split;   // a sequence-task run: the split of its task (test, test_<L>, ...)
  std::string output;  // JSONL; empty: stdout
  int64_t max_len = 0;
  std::vector<std::string> overrides;  // --set, as for eval (e.g. rope scaling at longer lengths)
};

// The lines to standard output, or to --output saying how many were written.
int write_predictions(const std::string& out, const PredictRequest& req, size_t count) {
  if (req.output.empty()) {
    errno = 0;
    std::cout << out << std::flush;
    if (!std::cout)
      throw Error(std::string("standard output: cannot write the predictions: ") +
                  (errno != 0 ? std::strerror(errno) : "a write failed"));
    return 0;
  }
  write_output_file(req.output, out);
  fmt::print(stderr, "{} predictions written to {}\n", count, req.output);
  return 0;
}

// A sequence-task run: each sample of split --split as
// {"index","input","expected","predicted","right"}, symbols space-separated.
int predict_split(const RestoredModel& r, const PredictRequest& req) {
  const Config& config = r.header.config;
  if (req.split.empty() || !req.input.empty())
    throw ConfigError(std::string("rotor predict: a run of train.objective ") + option_name(config.train.objective) +
                      " predicts a split of its task (data.task '" + config.data.task +
                      "'): give --split test (or val, test_<L>) instead of --input");
  LoadOptions load;
  load.tokenizer = r.header.tokenizer;
  load.warn = print_warning;
  const Dataset data = load_dataset(config.data, load);
  const TokenizedSplit& split = data.split(req.split);
  const SequenceLayout layout = *objective_spec(config.train.objective).layout;
  const int32_t end = layout == SequenceLayout::prompt_answer ? end_mark_token(*r.tokenizer) : -1;  // ends answers
  const RunComputeScope compute(config.run);
  const std::vector<SequencePrediction> predictions =
      predict_sequences(r.language_model(), split, layout, end, eval_max_len(config.data));
  if (!world().is_root()) return 0;
  std::string out;
  int64_t right = 0;
  for (size_t i = 0; i < predictions.size(); ++i) {
    const SequencePrediction& p = predictions[i];
    right += p.right();
    out += compact_json(JsonFields{{"index", i},
                                   {"input", r.tokenizer->decode(p.input)},
                                   {"expected", r.tokenizer->decode(p.expected)},
                                   {"predicted", r.tokenizer->decode(p.predicted)},
                                   {"right", p.right()}}) +
           "\n";
  }
  fmt::print(stderr, "split {}: {} of {} samples right\n", req.split, right, predictions.size());
  return write_predictions(out, req, predictions.size());
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
  if (objective_spec(config.train.objective).data == ObjectiveData::per_token_targets) return predict_split(r, req);
  if (req.input.empty())
    throw ConfigError("rotor predict: --input is required (a JSONL, CSV or TSV file with the run's text field)");
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
  return write_predictions(out, req, docs.size());
}

}  // namespace

Command add_predict_command(CLI::App& app) {
  auto predict = std::make_shared<PredictRequest>();
  auto* p =
      app.add_subcommand("predict",
                         "Label and class probabilities for every document of a JSONL, CSV or TSV file (with its id: "
                         "data.key_field, or an id field where present); for a sequence-task run (transduction, "
                         "completion), every sample of a split of its task with the expected output");
  add_checkpoint_argument(p, predict->checkpoint);
  p->add_option("--input", predict->input, "JSONL/CSV/TSV file with the run's text field (a classifier's run)")
      ->check(CLI::ExistingFile);
  p->add_option("--split", predict->split,
                "A sequence-task run: the split of its task to predict (val, test, test_<L>); a completion run "
                "decodes greedily after each prompt, a transduction run reads its outputs at the query positions");
  p->add_option("--output", predict->output, "JSONL output (default: stdout)");
  p->add_option("--max-len", predict->max_len, "Window length in tokens")->check(positive_number());
  p->add_option("--set", predict->overrides, "Override a config key, e.g. --set model.position.scaling=ntk");
  return {p, [predict] { return predict_command(*predict); }};
}

}  // namespace rotor
