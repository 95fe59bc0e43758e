// `rotor generate CKPT --prompt TEXT`: a causal language model's continuation
// of a prompt, as nanoGPT's sample.py gives it (diagnostics/text_generation.h).
// The continuation alone goes to standard output; which checkpoint and window
// were used go to standard error, so the text can be piped on its own.
#include <fmt/format.h>

#include "trainers/cli/checkpoint_argument.h"
#include "trainers/cli/command.h"
#include "trainers/diagnostics/text_generation.h"
#include "trainers/training/restored_model.h"
#include "trainers/training/run_compute_scope.h"

namespace rotor {
namespace {

struct GenerateRequest {
  std::string checkpoint;
  std::string prompt;
  int64_t max_len = 0;  // context window in tokens; 0: the training length
  std::vector<std::string> overrides;
  GenerationOptions options{200, 0.8, 200, 1337, 0};  // sample.py's temperature, top_k and seed
};

int generate_command(const GenerateRequest& req) {
  const ResolvedCheckpoint resolved = checkpoint_file(req.checkpoint);
  const RestoredModel r = restore_model(resolved.path, req.overrides);
  const Config& config = r.header.config;
  LanguageModel& model = r.causal_language_model("rotor generate", resolved.path);
  GenerationOptions options = req.options;
  options.window = req.max_len > 0 ? req.max_len : config.data.max_len;
  check_trained_length(config.model, options.window, "--max-len");
  const std::vector<int32_t> prompt = r.tokenizer->encode(req.prompt);
  if (prompt.empty()) throw ConfigError("--prompt: the prompt gives no tokens; give some text to continue");
  fmt::print(stderr, "checkpoint {}\nwindow {} tokens: the context is the last {} (it slides, as sample.py's)\n",
             describe(resolved), options.window, options.window);
  const RunComputeScope compute(config.run);  // the run's precision and threads, as eval computes
  fmt::print("{}\n", r.tokenizer->decode(generate(model, prompt, options)));
  return 0;
}

}  // namespace

Command add_generate_command(CLI::App& app) {
  auto req = std::make_shared<GenerateRequest>();
  auto* g = app.add_subcommand("generate", "Continue a prompt with a causal language model (nanoGPT's sample.py)");
  add_checkpoint_argument(g, req->checkpoint);
  g->add_option("--prompt", req->prompt, "Text to continue")->required();
  g->add_option("--max-new", req->options.max_new, "Tokens to add (default 200)")->check(positive_number());
  g->add_option("--temperature", req->options.temperature, "Softmax temperature; 0 takes the likeliest token (0.8)")
      ->check(CLI::NonNegativeNumber);
  g->add_option("--top-k", req->options.top_k, "Draw among the k likeliest tokens; 0: all (default 200)")
      ->check(CLI::NonNegativeNumber);
  g->add_option("--seed", req->options.seed, "Seed of the draws (default 1337); the same seed gives the same text");
  g->add_option("--max-len", req->max_len, "Context window in tokens (default the training length)")
      ->check(positive_number());
  g->add_option("--set", req->overrides, "Override a config key of the stored config");
  return {g, [req] { return generate_command(*req); }};
}

}  // namespace rotor
