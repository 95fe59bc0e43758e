// `rotor analyze attention CKPT (--input TEXT | --doc N)`: the attention maps
// of chosen layers and heads for one input (trainers/diagnostics/attention_map.h).
#include <algorithm>

#include <fmt/core.h>

#include "engine/precision.h"
#include "trainers/cli/analysis_target.h"
#include "trainers/cli/analyze_commands.h"
#include "trainers/config/config.h"
#include "trainers/config/objective_table.h"
#include "trainers/diagnostics/attention_map.h"
#include "trainers/diagnostics/model_forward.h"
#include "trainers/training/run_compute_scope.h"

namespace rotor {
namespace {

struct AttentionRequest {
  AnalysisRequest target;
  std::string input;  // text to tokenize, or
  int64_t doc = -1;   // a document of the split
  std::vector<int64_t> layers, heads;
};

// A sequence-task run reads its task's symbols as its layout renders a sample (sequence_layout.h): --input must
// be one, or the map shows what the model never read (a transduction encoder always read its queries).
void check_rendered_sample(const std::string& text, const std::vector<int32_t>& tokens, const AnalysisTarget& t) {
  const Config& config = t.restored.header.config;
  const std::optional<SequenceLayout> layout = objective_spec(config.train.objective).layout;
  if (!layout) return;
  const Tokenizer& tokenizer = *t.restored.tokenizer;
  const std::string example = "as analyze attention --doc N shows a sample of data.task '" + config.data.task + "'";
  if (std::find(tokens.begin(), tokens.end(), tokenizer.unk_id()) != tokens.end())
    throw ConfigError(
        fmt::format("--input '{}': a symbol is not one of the run's task ([UNK] in '{}'); write its "
                    "symbols separated by spaces, {}",
                    text, tokenizer.decode(tokens), example));
  const std::vector<int32_t> query = tokenizer.encode(kQuerySymbol);
  if (*layout != SequenceLayout::queries || std::find(tokens.begin(), tokens.end(), query.at(0)) != tokens.end())
    return;
  std::string queried = text;  // a query per input symbol, as the tasks whose output is as long as their input take
  for (size_t i = 0; i < tokens.size(); ++i) queried += std::string(" ") + kQuerySymbol;
  throw ConfigError(
      fmt::format("--input '{}': a transduction run's encoder reads the input followed by one query "
                  "'{}' per output symbol, as it was trained; write them (e.g. '{}'), {}",
                  text, kQuerySymbol, queried, example));
}

// The window's tokens: the text's, or the document's, cut to the window length.
std::vector<int32_t> input_tokens(const AttentionRequest& req, AnalysisTarget& t) {
  std::vector<int32_t> tokens;
  if (req.doc >= 0) {
    const TokenizedSplit& split = t.split(req.target.split);
    if (req.doc >= split.num_docs())
      throw ConfigError(fmt::format("--doc {} is out of range: split {} has {} documents (0..{})", req.doc, split.name,
                                    split.num_docs(), split.num_docs() - 1));
    tokens.assign(split.doc_tokens(req.doc), split.doc_tokens(req.doc) + split.doc_length(req.doc));
  } else {
    tokens = t.restored.tokenizer->encode(req.input);
    check_rendered_sample(req.input, tokens, t);
  }
  if (tokens.empty()) throw ConfigError(req.doc >= 0 ? "--doc: the document has no tokens" : "--input: no tokens");
  if (static_cast<int64_t>(tokens.size()) > t.max_len) {
    print_warning(
        fmt::format("the input has {} tokens; its first {} (--max-len) are analysed", tokens.size(), t.max_len));
    tokens.resize(static_cast<size_t>(t.max_len));
  }
  return tokens;
}

int analyze_attention(const AttentionRequest& req) {
  AnalysisTarget t = open_analysis_target(req.target);
  const std::vector<int32_t> tokens = input_tokens(req, t);
  const Model& model = *t.restored.model;
  const Precision precision = t.restored.header.config.run.precision;
  const RunComputeScope compute(t.restored.header.config.run);  // the run's precision and threads
  AttentionMapRequest map_request;
  map_request.layers = req.layers;
  map_request.heads = req.heads;
  nlohmann::json data =
      attention_maps(model, tokens, slot_labels(model, *t.restored.tokenizer, tokens), map_request, precision);
  data["source"] = req.doc >= 0 ? fmt::format("{} document {}", req.target.split, req.doc) : "--input";
  fmt::print("attention of {} slots, {} map(s), precision {}\n", data["length"].get<int64_t>(), data["maps"].size(),
             option_name(precision));
  write_analysis(t, "attention", "attention", data);
  return 0;
}

}  // namespace

Command add_analyze_attention_command(CLI::App& analyze) {
  auto req = std::make_shared<AttentionRequest>();
  auto* a = analyze.add_subcommand(
      "attention", "Attention maps of one input, recomputed from the fused kernel's logits: heatmaps and JSON");
  add_analysis_options(a, req->target, "val");
  auto* input = a->add_option("--input", req->input, "Text to analyse");
  auto* doc =
      a->add_option("--doc", req->doc, "Document N of --split instead of --input")->check(CLI::NonNegativeNumber);
  input->excludes(doc);
  doc->excludes(input);
  a->add_option("--layer", req->layers, "Layer(s) to map, from 0 (default: every layer)");
  a->add_option("--head", req->heads, "Head(s) to map, from 0 (default: every head)");
  a->callback([input, doc] {
    if (input->count() == 0 && doc->count() == 0)
      throw CLI::ValidationError("analyze attention", "give --input TEXT or --doc N");
  });
  return {a, [req] { return analyze_attention(*req); }};
}

}  // namespace rotor
