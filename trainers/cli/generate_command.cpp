// `rotor generate CKPT --prompt TEXT`: a causal language model's continuation
// of a prompt, as nanoGPT's sample.py gives it (diagnostics/text_generation.h);
// for a completion run (its row's layout prompt_answer), the answer to a
// prompt of its task, decoded greedily by default as its evaluation and
// `rotor predict` decode it (diagnostics/sequence_predictions.h).
// The continuation alone goes to standard output; which checkpoint and window
// were used go to standard error, so the text can be piped on its own.
#include <fmt/format.h>

#include <sstream>

#include "datasets/tasks/coupled_positions.h"
#include "trainers/cli/checkpoint_argument.h"
#include "trainers/cli/command.h"
#include "trainers/config/objective_table.h"
#include "trainers/diagnostics/sequence_predictions.h"
#include "trainers/diagnostics/text_generation.h"
#include "trainers/training/restored_model.h"
#include "trainers/training/run_compute_scope.h"

namespace rotor {
namespace {

constexpr double kSampleTemperature = 0.8;  // sample.py's

struct GenerateRequest {
  std::string checkpoint;
  std::string prompt;
  int64_t max_len = 0;  // context window in tokens; 0: the training length
  std::vector<std::string> overrides;
  // sample.py's top_k and seed; temperature < 0: the command's default (kSampleTemperature, greedy for a completion
  // run)
  GenerationOptions options{200, -1.0, 200, 1337, 0};
};

// A text model continues the prompt's tokens.
std::vector<int32_t> continuation(const RestoredModel& r, const std::string& text, const GenerationOptions& options) {
  const std::vector<int32_t> prompt = r.tokenizer->encode(text);
  if (prompt.empty()) throw ConfigError("--prompt: the prompt gives no tokens; give some text to continue");
  return generate(r.language_model(), prompt, options);
}

// The positions of a completion prompt's symbols (and its "=") under data.generated.positions: coupled.
std::vector<int32_t> coupled_prompt_positions(const Config& config, const std::string& text) {
  SequenceSample sample;
  std::istringstream words(text);
  for (std::string symbol; words >> symbol;) sample.input.push_back(symbol);
  if (!sample.input.empty() && sample.input.back() == kAnswerSymbol) sample.input.pop_back();
  return coupled_positions(sample, find_sequence_task(config.data.task)->coupled_operator,
                           SequenceLayout::prompt_answer);
}

// A completion run answers its task's input: "=" appended, the answer up to the end mark (not printed).
std::vector<int32_t> answer(const RestoredModel& r, const std::string& text, GenerationOptions options) {
  const std::vector<int32_t> prompt = completion_prompt(*r.tokenizer, text);
  fmt::print(stderr, "prompt: {}\n", r.tokenizer->decode(prompt));
  const Config& config = r.header.config;
  if (config.data.generated.positions == TokenPositions::coupled)
    options.prompt_positions = coupled_prompt_positions(config, text);
  return answer_prompt(r.language_model(), prompt, end_mark_token(*r.tokenizer), options);
}

int generate_command(const GenerateRequest& req) {
  const ResolvedCheckpoint resolved = checkpoint_file(req.checkpoint);
  const RestoredModel r = restore_model(resolved.path, req.overrides);
  const Config& config = r.header.config;
  r.causal_language_model("rotor generate", resolved.path);
  const bool answers = objective_spec(config.train.objective).layout == SequenceLayout::prompt_answer;
  GenerationOptions options = req.options;
  if (options.temperature < 0) options.temperature = answers ? 0.0 : kSampleTemperature;
  // A task's test prompts run past the training length, as its evaluation reads them.
  options.window = req.max_len > 0 ? req.max_len : answers ? eval_max_len(config.data) : config.data.max_len;
  check_trained_length(config.model, options.window, "--max-len");
  fmt::print(stderr, "checkpoint {}\nwindow {} tokens: the context is the last {} (it slides, as sample.py's)\n",
             describe(resolved), options.window, options.window);
  const RunComputeScope compute(config.run);  // the run's precision and threads, as eval computes
  const std::vector<int32_t> out = answers ? answer(r, req.prompt, options) : continuation(r, req.prompt, options);
  fmt::print("{}\n", r.tokenizer->decode(out));
  return 0;
}

}  // namespace

Command add_generate_command(CLI::App& app) {
  auto req = std::make_shared<GenerateRequest>();
  auto* g = app.add_subcommand(
      "generate",
      "Continue a prompt with a causal language model (nanoGPT's sample.py), or answer a completion run's prompt");
  add_checkpoint_argument(g, req->checkpoint);
  g->add_option("--prompt", req->prompt,
                "Text to continue; a completion run: its task's input, symbols separated by spaces")
      ->required();
  g->add_option("--max-new", req->options.max_new,
                "Tokens to add (default 200); a completion run stops at its end mark")
      ->check(positive_number());
  g->add_option("--temperature", req->options.temperature,
                "Softmax temperature; 0 takes the likeliest token (default 0.8; a completion run: 0)")
      ->check(CLI::NonNegativeNumber);
  g->add_option("--top-k", req->options.top_k, "Draw among the k likeliest tokens; 0: all (default 200)")
      ->check(CLI::NonNegativeNumber);
  g->add_option("--seed", req->options.seed, "Seed of the draws (default 1337); the same seed gives the same text");
  g->add_option("--max-len", req->max_len,
                "Context window in tokens (default the training length; a completion run: data.eval_max_len)")
      ->check(positive_number());
  g->add_option("--set", req->overrides, "Override a config key of the stored config");
  return {g, [req] { return generate_command(*req); }};
}

}  // namespace rotor
