// bench_train_step: the time of one training step (or, with --mode infer, one
// forward pass) of the model a rotor YAML config describes, on synthetic
// tokens of the config's full length (byte ids, or --vocab N ids: a language
// model's output layer costs in proportion to its vocabulary).
//
//   bench_train_step CONFIG [--steps 10] [--warmup 2] [--threads N] [--precision fp32|bf16]
//                    [--mode train|infer] [--vocab N] [--set key=value]...
//
// A training step is what the trainer does per update: zero the gradients,
// forward, loss, backward, clip the global norm, optimizer update. An inference
// step is a forward pass as `rotor eval` runs it: no autograd graph
// (NoGradGuard), no dropout (ForwardContext::training false). --precision runs
// everything under a PrecisionScope. Prints one human line on stderr and one
// JSON object on stdout (the driver script reads it), with the minor page
// faults per timed step. Matmul FLOPs are counted analytically (bench/README.md).
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/process_stats.h"
#include "datasets/tokenizer.h"
#include "engine/optim/clip.h"
#include "engine/parallel.h"
#include "engine/precision.h"
#include "engine/random.h"
#include "engine/tensor_buffer.h"
#include "engine/var.h"
#include "models/encoder_classifier.h"
#include "models/language_model.h"
#include "trainers/config/config_loader.h"
#include "trainers/training/optimizer_factory.h"

namespace {

enum class Mode { train, infer };

struct Options {
  std::string config;
  std::vector<std::string> overrides;
  int steps = 10;
  int warmup = 2;
  int threads = 0;  // 0: the config's run.threads
  rotor::Precision precision = rotor::Precision::fp32;
  Mode mode = Mode::train;
  int vocab = 4 + 256;  // token ids; 260: the byte tokenizer's (4 specials + 256 bytes)
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "bench_train_step: %s\nusage: bench_train_step CONFIG [--steps N>=1] [--warmup N>=0] "
               "[--threads N] [--precision fp32|bf16] [--mode train|infer] [--vocab N>=5] [--set key=value]...\n",
               why.c_str());
  std::exit(2);
}

const char* next_arg(int argc, char** argv, int& i) {
  if (i + 1 >= argc) usage(std::string(argv[i]) + " needs a value");
  return argv[++i];
}

int int_arg(int argc, char** argv, int& i, int min) {
  const char* text = next_arg(argc, argv, i);
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (*end != '\0' || v < min) usage(std::string(argv[i - 1]) + ": expected an integer >= " + std::to_string(min));
  return static_cast<int>(v);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--steps") {
      o.steps = int_arg(argc, argv, i, 1);
    } else if (a == "--warmup") {
      o.warmup = int_arg(argc, argv, i, 0);
    } else if (a == "--threads") {
      o.threads = int_arg(argc, argv, i, 1);
    } else if (a == "--precision") {
      const auto p = rotor::parse_option<rotor::Precision>(next_arg(argc, argv, i));
      if (!p) usage("--precision: expected fp32 or bf16");
      o.precision = *p;
    } else if (a == "--mode") {
      const std::string m = next_arg(argc, argv, i);
      if (m != "train" && m != "infer") usage("--mode: expected train or infer");
      o.mode = m == "train" ? Mode::train : Mode::infer;
    } else if (a == "--vocab") {
      o.vocab = int_arg(argc, argv, i, 5);
    } else if (a == "--set") {
      o.overrides.push_back(next_arg(argc, argv, i));
    } else if (!a.empty() && a[0] != '-' && o.config.empty()) {
      o.config = a;
    } else {
      usage("unexpected argument " + a);
    }
  }
  if (o.config.empty()) usage("no config given");
  return o;
}

// Multiply-add FLOPs (2 per multiply-add) of every matrix product in one step:
// a training step is forward + backward (dX and dW, 2x the forward), `passes` 3;
// an inference step is the forward, `passes` 1.
struct StepFlops {
  double linear = 0, attention = 0;
};

StepFlops step_flops(const rotor::ModelConfig& m, int64_t batch, int64_t seq, rotor::ObjectiveKind objective,
                     double passes) {
  using rotor::ObjectiveKind;
  const double T = static_cast<double>(batch * seq), d = static_cast<double>(m.d_model);
  const double ff = static_cast<double>(m.d_ff), L = static_cast<double>(m.layers);
  const bool causal = objective == ObjectiveKind::clm;
  StepFlops f;
  // qkv (d -> 3d), output (d -> d), ff1 (d -> ff), ff2 (ff -> d); the classifier head, or a
  // language model's output layer over the vocabulary at every slot (a masked one's after
  // BERT's d -> d transform).
  const double vocab = 2.0 * T * d * static_cast<double>(m.vocab_size);
  const double head = objective == ObjectiveKind::classify ? 2.0 * batch * d * m.num_classes
                      : causal                             ? vocab
                                                           : vocab + 2.0 * T * d * d;
  f.linear = passes * (L * 2.0 * T * (4.0 * d * d + 2.0 * d * ff) + head);
  // Q K^T and P V: per layer 2 * B * N^2 * d each; causal attention needs the half at or below the diagonal.
  if (m.attention == rotor::AttentionKind::softmax)
    f.attention = passes * L * 4.0 * batch * static_cast<double>(seq) * seq * d * (causal ? 0.5 : 1.0);
  return f;
}

// The config's model, its logits and the loss of one training step on a fixed
// batch of full-length rows of random tokens: random binary labels for a
// classifier, the next token at every slot (none after the last) for a causal LM,
// and for a masked LM 15% of the slots replaced by [MASK] (the CLS id, as rotor
// train does) and scored, the logits computed at every slot as BERT's are.
struct BenchTask {
  std::unique_ptr<rotor::Model> model;
  std::function<rotor::Var(rotor::ForwardContext&)> logits;
  std::function<rotor::Var(rotor::ForwardContext&)> loss;
};

BenchTask make_task(const rotor::Config& config, int64_t B, int64_t N) {
  using namespace rotor;
  const RandomKey data_key{config.run.seed, stream_id("bench/data"), 0};
  std::vector<int32_t> tokens(static_cast<size_t>(B * N)), lengths(static_cast<size_t>(B), static_cast<int32_t>(N));
  const uint64_t regular = static_cast<uint64_t>(config.model.vocab_size) - 4;
  for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = 4 + static_cast<int32_t>(data_key.below(i, regular));
  BenchTask task;
  if (config.train.objective != ObjectiveKind::classify) {
    const bool causal = config.train.objective == ObjectiveKind::clm;
    auto lm = std::make_unique<LanguageModel>(
        config.model, causal ? LanguageModelKind::causal : LanguageModelKind::masked, DType::F32);
    std::vector<int32_t> targets(tokens.size(), -100);
    const RandomKey mask_key{config.run.seed, stream_id("bench/mask"), 0};
    for (int64_t b = 0; b < B; ++b)
      for (int64_t t = 0; t < N; ++t) {
        const size_t i = static_cast<size_t>(b * N + t);
        if (causal && t + 1 < N) targets[i] = tokens[i + 1];
        if (!causal && mask_key.below(i, 100) < 15) {
          targets[i] = tokens[i];
          tokens[i] = Tokenizer::kClsId;
        }
      }
    const LanguageModel* m = lm.get();
    task.logits = [=](ForwardContext& ctx) { return m->logits({tokens, lengths, B, N}, ctx); };
    task.loss = [=, logits = task.logits](ForwardContext& ctx) { return m->loss(logits(ctx), targets); };
    task.model = std::move(lm);
    return task;
  }
  auto classifier = std::make_unique<EncoderClassifier>(config.model, DType::F32);
  std::vector<int32_t> labels(static_cast<size_t>(B));
  for (size_t b = 0; b < labels.size(); ++b)
    labels[b] = static_cast<int32_t>(data_key.below(tokens.size() + b, config.model.num_classes));
  const EncoderClassifier* m = classifier.get();
  task.logits = [=](ForwardContext& ctx) { return m->logits({tokens, lengths, B, N}, ctx); };
  task.loss = [=, logits = task.logits](ForwardContext& ctx) { return m->loss(logits(ctx), labels); };
  task.model = std::move(classifier);
  return task;
}

// The timed steps' seconds, their minor page faults per step, the last step's loss.
struct Timing {
  std::vector<double> times;
  double faults_per_step = 0;
  double peak_tensor_mib = 0;  // most tensor storage alive at once during the timed steps
  double loss = 0;
};

// Runs `step(s)` warmup + steps times; faults are counted over the timed steps only.
Timing time_steps(const Options& opt, const std::function<double(int)>& step) {
  Timing t;
  long faults_before = 0;
  for (int s = 0; s < opt.warmup + opt.steps; ++s) {
    if (s == opt.warmup) {
      faults_before = rotor::bench::minor_faults();
      rotor::reset_tensor_bytes_peak();
    }
    const auto t0 = std::chrono::steady_clock::now();
    t.loss = step(s);
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s >= opt.warmup) t.times.push_back(dt);
  }
  t.faults_per_step = static_cast<double>(rotor::bench::minor_faults() - faults_before) / opt.steps;
  t.peak_tensor_mib = static_cast<double>(rotor::tensor_bytes_peak()) / (1024.0 * 1024.0);
  return t;
}

Timing time_training(const rotor::Config& config, BenchTask& task, const Options& opt) {
  using namespace rotor;
  Model& model = *task.model;
  std::unique_ptr<Optimizer> optimizer = make_optimizer(config.train, model.parameters());
  return time_steps(opt, [&](int s) {
    model.parameters().zero_grad();
    ForwardContext ctx{true, config.run.seed, static_cast<uint64_t>(s), 0};
    Var loss = task.loss(ctx);
    const double value = loss.value().item();
    backward(loss);
    clip_grad_norm(model.parameters(), config.train.clip_norm > 0 ? config.train.clip_norm : 1e300);
    optimizer->step(config.train.lr);
    return value;
  });
}

// As the evaluators run a batch (trainers/training/evaluator.cpp): no graph, no dropout.
Timing time_inference(BenchTask& task, const Options& opt) {
  rotor::NoGradGuard no_grad;
  return time_steps(opt, [&](int) {
    rotor::ForwardContext ctx;  // training = false: no dropout
    task.logits(ctx);
    return 0.0;
  });
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void report(const Options& opt, const rotor::Config& config, const Timing& t) {
  using namespace rotor;
  const int64_t B = config.data.batch_size, N = config.data.max_len;
  const bool causal = config.train.objective == ObjectiveKind::clm, train = opt.mode == Mode::train;
  const StepFlops f = step_flops(config.model, B, N, config.train.objective, train ? 3.0 : 1.0);
  const double median = median_of(t.times), flops = f.linear + f.attention;
  const double lo = *std::min_element(t.times.begin(), t.times.end());
  const double hi = *std::max_element(t.times.begin(), t.times.end());
  const double tokens_per_s = static_cast<double>(B * N) / median, rss = bench::peak_rss_mib();
  const std::string allocator = bench::allocator_name(), loss = train ? std::to_string(t.loss) : "null";
  const char *mode = train ? "train" : "infer", *precision = option_name(opt.precision);
  std::fprintf(
      stderr,
      "%s [rotor %s %s, %s]: %lld x %lld, %s, %s attention, %d threads: median %.3f s/step (min %.3f, max "
      "%.3f, %zu steps), %.0f tokens/s, %.2f GFLOP matmul/step, %.1f GFLOP/s, peak RSS %.0f MiB (tensors %.0f MiB), "
      "%.0f minor faults/step, loss %s\n",
      opt.config.c_str(), mode, precision, allocator.c_str(), static_cast<long long>(N), static_cast<long long>(B),
      config.model.position.type.c_str(), option_name(config.model.attention_kernel), num_threads(), median, lo, hi,
      t.times.size(), tokens_per_s, flops * 1e-9, flops / median * 1e-9, rss, t.peak_tensor_mib, t.faults_per_step,
      loss.c_str());
  std::printf(
      "{\"impl\": \"rotor\", \"config\": \"%s\", \"mode\": \"%s\", \"precision\": \"%s\", \"position\": \"%s\", "
      "\"objective\": \"%s\", \"vocab\": %lld, \"causal\": %s, \"seq\": %lld, \"batch\": %lld, \"attention_kernel\": "
      "\"%s\", \"threads\": %d, "
      "\"blas_core\": \"%s\", \"openblas_coretype_env\": %s, \"allocator\": \"%s\", \"steps\": %zu, "
      "\"warmup\": %d, \"median_s\": %.6f, \"min_s\": %.6f, \"max_s\": %.6f, \"tokens_per_s\": %.2f, "
      "\"matmul_gflop\": %.4f, \"attention_gflop\": %.4f, \"gflops\": %.3f, \"peak_rss_mib\": %.1f, "
      "\"peak_tensor_mib\": %.1f, \"minflt_per_step\": %.1f, \"loss\": %s, \"times_s\": [",
      opt.config.c_str(), mode, precision, config.model.position.type.c_str(), option_name(config.train.objective),
      static_cast<long long>(config.model.vocab_size), causal ? "true" : "false", static_cast<long long>(N),
      static_cast<long long>(B), option_name(config.model.attention_kernel), num_threads(), openblas_get_corename(),
      bench::openblas_coretype_json().c_str(), allocator.c_str(), t.times.size(), opt.warmup, median, lo, hi,
      tokens_per_s, flops * 1e-9, f.attention * 1e-9, flops / median * 1e-9, rss, t.peak_tensor_mib, t.faults_per_step,
      loss.c_str());
  for (size_t i = 0; i < t.times.size(); ++i) std::printf("%s%.6f", i ? ", " : "", t.times[i]);
  std::printf("]}\n");
}

}  // namespace

int main(int argc, char** argv) try {
  using namespace rotor;
  const Options opt = parse(argc, argv);
  Config config = load_config(opt.config, opt.overrides);
  if (config.data.tokenizer != TokenizerKind::automatic && config.data.tokenizer != TokenizerKind::byte)
    usage("the benchmark feeds random tokens (--vocab ids, default the byte tokenizer's): data.tokenizer must be byte");
  config.model.vocab_size = opt.vocab;
  config.model.num_classes = 2;  // random binary labels (rotor train derives both from the data)
  config.model.validate();
  set_num_threads(opt.threads > 0 ? opt.threads : static_cast<int>(config.run.threads));

  BenchTask task = make_task(config, config.data.batch_size, config.data.max_len);
  task.model->initialize(config.run.seed);
  const PrecisionScope precision(opt.precision);
  const Timing t = opt.mode == Mode::train ? time_training(config, task, opt) : time_inference(task, opt);
  report(opt, config, t);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_train_step: %s\n", e.what());
  return 1;
}
