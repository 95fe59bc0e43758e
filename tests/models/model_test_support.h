#pragma once
// Shared helpers for the models tests: deterministic random data, a rotary
// helper for rows of vectors, tiny model configs, the toy classification
// tasks and a small Adam training loop.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/ops.h"
#include "engine/optim/adam.h"
#include "engine/parameters.h"
#include "engine/random.h"
#include "models/encoder_classifier.h"
#include "models/model_config.h"
#include "models/rotary_embedding.h"
#include "tests/engine/optim_fixtures.h"  // ThreadCountGuard

namespace rotor::model_test {

// n standard-normal values, a pure function of (seed, stream).
inline std::vector<double> random_normal(int64_t n, uint64_t seed, uint64_t stream = 0) {
  const RandomKey key{seed, stream, 0};
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = key.normal(static_cast<uint64_t>(i));
  return v;
}

inline double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

inline double norm(const std::vector<double>& a) { return std::sqrt(dot(a, a)); }

// Rows of `x` ([rows, d], row-major) rotated in `dtype`, row k at positions[k],
// with angle tables from `tables` (cos, sin: [rows, r/2]); returned as doubles.
inline std::vector<double> rotate_rows(const std::vector<double>& x, int64_t d, const RotaryTables& tables,
                                       RotaryLayout layout, DType dtype) {
  const int64_t rows = static_cast<int64_t>(x.size()) / d;
  const Var xv(Tensor::from_doubles({rows, d}, dtype, x));
  return rotary(xv, tables.cos, tables.sin, layout).value().to_doubles();
}

inline std::vector<double> rotate_rows(const RotaryEmbedding& rope, const std::vector<double>& x, int64_t d,
                                       const std::vector<int64_t>& positions, DType dtype) {
  return rotate_rows(x, d, rope.tables_at(positions), rope.layout(), dtype);
}

// Row k of a [rows, d] buffer.
inline std::vector<double> row(const std::vector<double>& x, int64_t d, int64_t k) {
  return {x.begin() + k * d, x.begin() + (k + 1) * d};
}

// The enum value named `name` (tests name options as the YAML does).
template <class E>
E option(const std::string& name) {
  const std::optional<E> e = parse_option<E>(name);
  if (!e) throw std::invalid_argument("no option named " + name);
  return *e;
}

inline PositionConfig rope_position(const std::string& layout = "interleaved", double fraction = 1.0) {
  PositionConfig p;
  p.type = "rope";
  p.set("layout", option<RotaryLayout>(layout));
  p.set("fraction", fraction);
  return p;
}

// A tiny classifier: d 16, 1 layer, 2 heads, no dropout. `variant` is a
// position type, or "rope-half" / "rope-interleaved" for the two RoPE layouts.
inline ModelConfig tiny_config(const std::string& variant, int64_t vocab_size = 12) {
  ModelConfig c;
  c.vocab_size = vocab_size;
  c.d_model = 16;
  c.layers = 1;
  c.heads = 2;
  c.d_ff = 32;
  c.dropout = 0.0;
  c.attention_dropout = 0.0;
  c.num_classes = 2;
  if (variant == "rope-half" || variant == "rope-interleaved")
    c.position = rope_position(variant == "rope-half" ? "half" : "interleaved");
  else
    c.position.type = variant;
  if (variant == "learned") c.position.set("max_len", 64);                // other encodings reject learned's key
  if (variant == "cope") c.attention_kernel = AttentionKernel::composed;  // its bias reads every logit
  return c;
}

// `c` with 2 layers, dropout on both paths (0.1 residual, 0.2 attention) and
// `kernel`: the set-up of the gradient checks and kernel comparisons, where
// dropout masks must match between the fused and composed paths.
inline ModelConfig with_dropout_on(ModelConfig c, AttentionKernel kernel) {
  c.layers = 2;
  c.dropout = 0.1;
  c.attention_dropout = 0.2;
  c.attention_kernel = kernel;
  return c;
}

// Randomized positions drawn from [0, range) in training; learned's table grows to hold them.
inline void randomize_positions(ModelConfig& c, int64_t range) {
  c.position.set("randomized", true);
  c.position.set("max_positions", range);
  if (c.position.type == "learned") c.position.set("max_len", std::max<int64_t>(c.position.integer("max_len"), range));
}

// A padded batch plus labels; input() views it as a ModelInput.
struct ToyBatch {
  std::vector<int32_t> tokens, lengths, labels;
  int64_t batch = 0, seq_len = 0;
  ModelInput input() const { return {tokens, lengths, batch, seq_len}; }
};

enum class ToyTask {
  contains,  // label 1 iff token 3 occurs (bag-of-tokens: any model can learn it)
  order,     // exactly one 1 and one 2; label 1 iff the 1 comes before the 2 (needs position)
};

// `batch` sequences of lengths in [min_len, seq_len], tokens from 1..vocab-1
// (0 pads), balanced labels; a pure function of (seed, step).
inline ToyBatch make_toy_batch(ToyTask task, int64_t batch, int64_t seq_len, int64_t vocab, uint64_t seed,
                               uint64_t step, int64_t min_len = 4) {
  const RandomKey key{seed, stream_id(task == ToyTask::contains ? "toy.contains" : "toy.order"), step};
  uint64_t draw = 0;
  auto below = [&](int64_t n) { return static_cast<int64_t>(key.below(draw++, static_cast<uint64_t>(n))); };
  ToyBatch b;
  b.batch = batch;
  b.seq_len = seq_len;
  b.tokens.assign(static_cast<size_t>(batch * seq_len), 0);
  for (int64_t i = 0; i < batch; ++i) {
    const int64_t len = min_len + below(seq_len - min_len + 1);
    int32_t* t = &b.tokens[static_cast<size_t>(i * seq_len)];
    const int32_t label = static_cast<int32_t>(below(2));
    if (task == ToyTask::contains) {
      // Fillers avoid token 3; a positive gets 1 or 2 threes at random places.
      for (int64_t j = 0; j < len; ++j) {
        int32_t tok = static_cast<int32_t>(1 + below(vocab - 2));  // 1..vocab-2, then skip 3
        t[j] = tok >= 3 ? tok + 1 : tok;
      }
      if (label == 1)
        for (int64_t r = 0, threes = 1 + below(2); r < threes; ++r) t[below(len)] = 3;
    } else {
      for (int64_t j = 0; j < len; ++j) t[j] = static_cast<int32_t>(3 + below(vocab - 3));  // 3..vocab-1
      const int64_t a = below(len);
      int64_t c = below(len - 1);
      if (c >= a) ++c;
      // label 1: token 1 at min(a, c), token 2 at max(a, c); label 0 swapped.
      t[std::min(a, c)] = label == 1 ? 1 : 2;
      t[std::max(a, c)] = label == 1 ? 2 : 1;
    }
    b.lengths.push_back(static_cast<int32_t>(len));
    b.labels.push_back(label);
  }
  return b;
}

inline std::vector<double> eval_logits(EncoderClassifier& model, const ToyBatch& b) {
  NoGradGuard no_grad;
  ForwardContext ctx;  // eval mode
  return model.logits(b.input(), ctx).value().to_doubles();
}

// Share of rows of [B, 2] logits whose argmax is the label (ties count as class 0).
inline double accuracy(const std::vector<double>& logits, const std::vector<int32_t>& labels) {
  int64_t right = 0;
  for (size_t i = 0; i < labels.size(); ++i) right += ((logits[2 * i + 1] > logits[2 * i]) ? 1 : 0) == labels[i];
  return static_cast<double>(right) / static_cast<double>(labels.size());
}

struct TrainResult {
  double first_loss = 0, final_loss = 0;  // final: mean of the last 10 steps' training loss
  double eval_loss = 0, eval_accuracy = 0;
};

struct TrainOptions {
  ToyTask task = ToyTask::contains;
  int steps = 200;
  int64_t batch = 32, seq_len = 10;
  double lr = 3e-3;
  uint64_t seed = 7;
  // The toy models' ops take microseconds; on a contended machine OpenMP's
  // spinning barriers make 2 threads ~10x slower than 1, so training runs on
  // one thread (thread-count independence: test_determinism.cpp).
  int threads = 1;
};

// Trains from a fresh initialisation (seed) on fresh batches each step and
// evaluates on a held-out batch of 256 (a different data seed).
inline TrainResult train_toy(EncoderClassifier& model, const TrainOptions& o) {
  const test::ThreadCountGuard threads(o.threads);
  model.initialize(o.seed);
  Adam adam(model.parameters());
  const int64_t vocab = model.config().vocab_size;
  TrainResult r;
  double tail = 0;
  for (int s = 0; s < o.steps; ++s) {
    const ToyBatch b = make_toy_batch(o.task, o.batch, o.seq_len, vocab, o.seed, static_cast<uint64_t>(s));
    model.parameters().zero_grad();
    ForwardContext ctx{true, o.seed, static_cast<uint64_t>(s)};
    const Var loss = model.loss(model.logits(b.input(), ctx), b.labels);
    backward(loss);
    const double l = loss.value().item();
    if (s == 0) r.first_loss = l;
    if (s >= o.steps - 10) tail += l / 10;
    adam.step(o.lr);
    model.constrain_parameters();
  }
  r.final_loss = tail;
  const ToyBatch eval = make_toy_batch(o.task, 256, o.seq_len, vocab, o.seed + 1000, 0);
  NoGradGuard no_grad;
  ForwardContext eval_ctx;
  const Var logits = model.logits(eval.input(), eval_ctx);
  r.eval_accuracy = accuracy(logits.value().to_doubles(), eval.labels);
  r.eval_loss = model.loss(logits, eval.labels).value().item();
  return r;
}

// One parameter element's analytic gradient and its central difference.
struct GradientEntry {
  std::string name;
  int64_t index = 0;
  double analytic = 0, numeric = 0;
};

// The gradient of `loss` (a forward of the model owning `params`) against central
// differences of step h, for every parameter whose name `selects` accepts: every
// element, or about `samples` spread over each tensor. float64 models.
inline std::vector<GradientEntry> finite_difference_gradients(ParameterStore& params, const std::function<Var()>& loss,
                                                              const std::function<bool(const std::string&)>& selects,
                                                              int64_t samples = 0, double h = 1e-6) {
  params.zero_grad();
  backward(loss());
  NoGradGuard no_grad;
  std::vector<GradientEntry> entries;
  for (size_t id = 0; id < params.infos().size(); ++id) {
    const std::string& name = params.infos()[id].name;
    if (!selects(name)) continue;
    const auto pid = static_cast<ParameterId>(id);
    const std::vector<double> analytic = params.grad(pid).to_doubles();
    Tensor value = params.value(pid);  // a view into the parameters
    double* v = value.data<double>();
    const int64_t n = value.numel(), step = samples > 0 ? std::max<int64_t>(1, n / samples) : 1;
    for (int64_t e = 0; e < n; e += step) {
      const double saved = v[e];
      v[e] = saved + h;
      const double up = loss().value().item();
      v[e] = saved - h;
      const double down = loss().value().item();
      v[e] = saved;
      entries.push_back({name, e, analytic[static_cast<size_t>(e)], (up - down) / (2 * h)});
    }
  }
  return entries;
}

// The training-mode loss's gradient (dropout on: its masks are a pure function
// of the context's key, so every evaluation draws the same ones) as above.
// `causal`: the forwards are causal (ForwardContext::causal).
inline std::vector<GradientEntry> finite_difference_gradients(EncoderClassifier& model, const ToyBatch& b,
                                                              const std::function<bool(const std::string&)>& selects,
                                                              int64_t samples = 0, double h = 1e-6,
                                                              bool causal = false) {
  auto loss = [&] {
    ForwardContext ctx{true, 5, 3};
    ctx.causal = causal;
    return model.loss(model.logits(b.input(), ctx), b.labels);
  };
  return finite_difference_gradients(model.parameters(), loss, selects, samples, h);
}

// Every parameter that starts all zero (biases, CoPE's position embeddings) draws N(0, 0.5^2):
// a property of the trained model is then tested on a model whose every parameter carries signal.
inline void spread_zero_parameters(ParameterStore& params, uint64_t seed) {
  for (size_t id = 0; id < params.infos().size(); ++id) {
    Tensor value = params.value(static_cast<ParameterId>(id));  // a view into the parameters
    const std::vector<double> now = value.to_doubles();
    if (std::any_of(now.begin(), now.end(), [](double x) { return x != 0.0; })) continue;
    std::vector<double> draw = random_normal(value.numel(), seed, id);
    for (double& x : draw) x *= 0.5;
    value.copy_from(Tensor::from_doubles(value.shape(), DType::F64, draw));
  }
}

// max |analytic - numeric| / max(1, |numeric|) over the entries.
inline double worst_gradient_error(const std::vector<GradientEntry>& entries) {
  double worst = 0;
  for (const GradientEntry& g : entries)
    worst = std::max(worst, std::abs(g.analytic - g.numeric) / std::max(1.0, std::abs(g.numeric)));
  return worst;
}

}  // namespace rotor::model_test
