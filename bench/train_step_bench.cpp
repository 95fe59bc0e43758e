// bench_train_step: the time of one training step of the model a rotor YAML
// config describes, on synthetic byte tokens of the config's full length.
//
//   bench_train_step CONFIG [--steps 10] [--warmup 2] [--threads N] [--set key=value]...
//
// A step is what the trainer does per update: zero the gradients, forward,
// loss, backward, clip the global norm, optimizer update. Prints one human
// line on stderr and one JSON object on stdout (the driver script reads it).
// Matmul FLOPs per step are counted analytically (formula in bench/README.md).
#include <sys/resource.h>

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <functional>
#include "engine/optim/clip.h"
#include "engine/parallel.h"
#include "engine/random.h"

#include "models/encoder_classifier.h"
#include "models/language_model.h"
#include "trainers/config/config_loader.h"
#include "trainers/training/optimizer_factory.h"

namespace {

struct Options {
  std::string config;
  std::vector<std::string> overrides;
  int steps = 10;
  int warmup = 2;
  int threads = 0;  // 0: the config's run.threads
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "bench_train_step: %s\nusage: bench_train_step CONFIG [--steps N>=1] [--warmup N>=0] "
               "[--threads N] [--set key=value]...\n",
               why);
  std::exit(2);
}

int int_arg(int argc, char** argv, int& i, int min) {
  if (i + 1 >= argc) usage((std::string(argv[i]) + " needs a value").c_str());
  char* end = nullptr;
  const long v = std::strtol(argv[++i], &end, 10);
  if (*end != '\0' || v < min)
    usage((std::string(argv[i - 1]) + ": expected an integer >= " + std::to_string(min)).c_str());
  return static_cast<int>(v);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--steps")
      o.steps = int_arg(argc, argv, i, 1);
    else if (a == "--warmup")
      o.warmup = int_arg(argc, argv, i, 0);
    else if (a == "--threads")
      o.threads = int_arg(argc, argv, i, 1);
    else if (a == "--set" && i + 1 < argc)
      o.overrides.push_back(argv[++i]);
    else if (!a.empty() && a[0] != '-' && o.config.empty())
      o.config = a;
    else
      usage(("unexpected argument " + a).c_str());
  }
  if (o.config.empty()) usage("no config given");
  return o;
}

// Multiply-add FLOPs (2 per multiply-add) of every matrix product in one
// training step: forward + backward (dX and dW, 2x the forward).
struct StepFlops {
  double linear = 0, attention = 0;
};

StepFlops step_flops(const rotor::ModelConfig& m, int64_t batch, int64_t seq, bool causal) {
  const double T = static_cast<double>(batch * seq), d = static_cast<double>(m.d_model);
  const double ff = static_cast<double>(m.d_ff), L = static_cast<double>(m.layers);
  StepFlops f;
  // qkv (d -> 3d), output (d -> d), ff1 (d -> ff), ff2 (ff -> d); the classifier head, or a
  // causal LM's output layer over the vocabulary at every slot.
  const double head = causal ? 2.0 * T * d * static_cast<double>(m.vocab_size) : 2.0 * batch * d * m.num_classes;
  f.linear = 3.0 * (L * 2.0 * T * (4.0 * d * d + 2.0 * d * ff) + head);
  // Q K^T and P V: per layer 2 * B * N^2 * d each; causal attention needs the half at or below the diagonal.
  if (m.attention == rotor::AttentionKind::softmax)
    f.attention = 3.0 * L * 4.0 * batch * static_cast<double>(seq) * seq * d * (causal ? 0.5 : 1.0);
  return f;
}

// The config's model and the loss of one training step on a fixed batch of
// full-length rows of random bytes: random binary labels for a classifier,
// the next byte at every slot (none after the last) for a causal LM.
struct BenchTask {
  std::unique_ptr<rotor::Model> model;
  std::function<rotor::Var(rotor::ForwardContext&)> loss;
};

BenchTask make_task(const rotor::Config& config, int64_t B, int64_t N) {
  using namespace rotor;
  const RandomKey data_key{config.run.seed, stream_id("bench/data"), 0};
  std::vector<int32_t> tokens(static_cast<size_t>(B * N)), lengths(static_cast<size_t>(B), static_cast<int32_t>(N));
  for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = 4 + static_cast<int32_t>(data_key.below(i, 256));
  BenchTask task;
  if (config.train.objective == ObjectiveKind::clm) {
    auto lm = std::make_unique<LanguageModel>(config.model, LanguageModelKind::causal, DType::F32);
    std::vector<int32_t> targets(tokens.size(), -100);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t t = 0; t + 1 < N; ++t) targets[b * N + t] = tokens[b * N + t + 1];
    const LanguageModel* m = lm.get();
    task.loss = [=](ForwardContext& ctx) { return m->loss(m->logits({tokens, lengths, B, N}, ctx), targets); };
    task.model = std::move(lm);
    return task;
  }
  auto classifier = std::make_unique<EncoderClassifier>(config.model, DType::F32);
  std::vector<int32_t> labels(static_cast<size_t>(B));
  for (size_t b = 0; b < labels.size(); ++b)
    labels[b] = static_cast<int32_t>(data_key.below(tokens.size() + b, config.model.num_classes));
  const EncoderClassifier* m = classifier.get();
  task.loss = [=](ForwardContext& ctx) { return m->loss(m->logits({tokens, lengths, B, N}, ctx), labels); };
  task.model = std::move(classifier);
  return task;
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // Linux: KiB
}

}  // namespace

int main(int argc, char** argv) try {
  using namespace rotor;
  const Options opt = parse(argc, argv);
  Config config = load_config(opt.config, opt.overrides);
  if (config.data.tokenizer != TokenizerKind::automatic && config.data.tokenizer != TokenizerKind::byte)
    usage("the benchmark feeds random byte tokens: data.tokenizer must be byte");
  config.model.vocab_size = 4 + 256;  // byte tokenizer: 4 specials + 256 bytes
  config.model.num_classes = 2;       // random binary labels (rotor train derives both from the data)
  config.model.validate();
  set_num_threads(opt.threads > 0 ? opt.threads : static_cast<int>(config.run.threads));

  const int64_t B = config.data.batch_size, N = config.data.max_len;
  BenchTask task = make_task(config, B, N);
  Model& model = *task.model;
  model.initialize(config.run.seed);
  std::unique_ptr<Optimizer> optimizer = make_optimizer(config.train, model.parameters());

  std::vector<double> times;
  double last_loss = 0;
  for (int s = 0; s < opt.warmup + opt.steps; ++s) {
    const auto t0 = std::chrono::steady_clock::now();
    model.parameters().zero_grad();
    ForwardContext ctx{true, config.run.seed, static_cast<uint64_t>(s), 0};
    Var loss = task.loss(ctx);
    last_loss = loss.value().item();
    backward(loss);
    clip_grad_norm(model.parameters(), config.train.clip_norm > 0 ? config.train.clip_norm : 1e300);
    optimizer->step(config.train.lr);
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s >= opt.warmup) times.push_back(dt);
  }
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  const double median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  const StepFlops f = step_flops(config.model, B, N, config.train.objective == ObjectiveKind::clm);
  const double tokens_per_s = static_cast<double>(B * N) / median;
  const double gflops = (f.linear + f.attention) / median * 1e-9;
  const double rss = peak_rss_mib();

  std::fprintf(stderr,
               "%s: %lld x %lld, %s, %s attention, %d threads: median %.3f s/step (min %.3f, max %.3f, %zu steps), "
               "%.0f tokens/s, %.2f GFLOP matmul/step, %.1f GFLOP/s, peak RSS %.0f MiB, loss %.4f\n",
               opt.config.c_str(), static_cast<long long>(N), static_cast<long long>(B),
               config.model.position.type.c_str(), option_name(config.model.attention_kernel), num_threads(), median,
               sorted.front(), sorted.back(), n, tokens_per_s, (f.linear + f.attention) * 1e-9, gflops, rss, last_loss);
  std::printf(
      "{\"impl\": \"rotor\", \"config\": \"%s\", \"position\": \"%s\", \"causal\": %s, \"seq\": %lld, "
      "\"batch\": %lld, "
      "\"attention_kernel\": \"%s\", \"threads\": %d, \"blas_core\": \"%s\", \"steps\": %zu, \"warmup\": %d, "
      "\"median_s\": %.6f, \"min_s\": %.6f, \"max_s\": %.6f, "
      "\"tokens_per_s\": %.2f, \"matmul_gflop\": %.4f, \"attention_gflop\": %.4f, \"gflops\": %.3f, "
      "\"peak_rss_mib\": %.1f, \"times_s\": [",
      opt.config.c_str(), config.model.position.type.c_str(),
      config.train.objective == ObjectiveKind::clm ? "true" : "false", static_cast<long long>(N),
      static_cast<long long>(B), option_name(config.model.attention_kernel), num_threads(), openblas_get_corename(), n,
      opt.warmup, median, sorted.front(), sorted.back(), tokens_per_s, (f.linear + f.attention) * 1e-9,
      f.attention * 1e-9, gflops, rss);
  for (size_t i = 0; i < times.size(); ++i) std::printf("%s%.6f", i ? ", " : "", times[i]);
  std::printf("]}\n");
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_train_step: %s\n", e.what());
  return 1;
}
