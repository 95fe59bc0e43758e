// Every variant trains end to end (forward, backward, inline Adam) on toy
// tasks generated with RandomKey. The order task needs position information:
// position-aware variants learn it, NoPE with mean pooling provably cannot.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "model_test_support.h"

using namespace rotor;
using namespace rotor::model_test;

namespace {

struct Variant {
  std::string name;  // a tiny_config() variant
  std::string attention = "softmax", norm = "pre", pooling = "mean";
};

ModelConfig config_of(const Variant& v) {
  ModelConfig c = tiny_config(v.name);
  c.attention = option<AttentionKind>(v.attention);
  c.norm = option<NormPlacement>(v.norm);
  c.pooling = option<Pooling>(v.pooling);
  return c;
}

// The order task needs attention logits that depend on position from the
// start: with the default N(0, 0.02) init RoPE's q.k is ~0, attention is
// uniform, and training sits on the chance plateau for many steps.
ModelConfig order_config(const Variant& v) {
  ModelConfig c = config_of(v);
  c.d_model = 32;
  c.d_ff = 64;
  c.layers = 2;
  c.init_std = 0.2;
  return c;
}

TrainOptions order_options() {
  TrainOptions o;
  o.task = ToyTask::order;
  o.steps = 200;
  return o;
}

std::string describe(const Variant& v) { return v.name + " " + v.attention + " " + v.norm + "-LN " + v.pooling; }

// The batch with the 1 and the 2 of every row swapped: every label flips.
ToyBatch swap_order(ToyBatch b) {
  for (int32_t& t : b.tokens) t = t == 1 ? 2 : t == 2 ? 1 : t;
  for (int32_t& l : b.labels) l = 1 - l;
  return b;
}

// Each row's valid tokens in reverse order.
ToyBatch reverse_rows(ToyBatch b) {
  for (int64_t i = 0; i < b.batch; ++i) {
    int32_t* t = &b.tokens[static_cast<size_t>(i * b.seq_len)];
    std::reverse(t, t + b.lengths[static_cast<size_t>(i)]);
  }
  return b;
}

double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

}  // namespace

TEST_CASE("training: every variant learns the bag-of-tokens task", "[training][model]") {
  const Variant v =
      GENERATE(Variant{"rope-interleaved"}, Variant{"rope-half"}, Variant{"sinusoidal"}, Variant{"learned"},
               Variant{"t5_bias"}, Variant{"alibi"}, Variant{"fire"}, Variant{"none"},
               Variant{"rope-interleaved", "linear"}, Variant{"rope-half", "softmax", "post"},
               Variant{"sinusoidal", "softmax", "post", "cls"}, Variant{"t5_bias", "softmax", "pre", "cls"},
               Variant{"alibi", "softmax", "pre", "max"}, Variant{"none", "linear", "pre", "max"});
  EncoderClassifier model(config_of(v));
  TrainOptions o;
  o.steps = 150;
  const TrainResult r = train_toy(model, o);
  INFO(describe(v) << ": loss " << r.first_loss << " -> " << r.final_loss << ", eval loss " << r.eval_loss
                   << ", eval accuracy " << r.eval_accuracy);
  CHECK(r.first_loss > 0.6);  // small init: starts near chance
  CHECK(r.final_loss < 0.25 * std::log(2.0));
  CHECK(r.eval_loss < 0.25 * std::log(2.0));
  CHECK(r.eval_accuracy >= 0.9);
}

TEST_CASE("training: with dropout on, training still converges", "[training][dropout][model]") {
  ModelConfig c = tiny_config("rope-interleaved");
  c.dropout = 0.1;
  c.attention_dropout = 0.1;
  EncoderClassifier model(c);
  TrainOptions o;
  o.steps = 150;
  const TrainResult r = train_toy(model, o);
  INFO("loss " << r.first_loss << " -> " << r.final_loss << ", eval accuracy " << r.eval_accuracy);
  CHECK(r.eval_loss < 0.25 * std::log(2.0));
  CHECK(r.eval_accuracy >= 0.9);
}

TEST_CASE("training: position-aware variants learn 'token 1 before token 2'", "[training][order][model]") {
  const Variant v =
      GENERATE(Variant{"rope-interleaved"}, Variant{"rope-half"}, Variant{"sinusoidal"}, Variant{"learned"},
               Variant{"t5_bias"}, Variant{"fire"}, Variant{"rope-interleaved", "linear"});
  EncoderClassifier model(order_config(v));
  const TrainResult r = train_toy(model, order_options());
  INFO(describe(v) << ": loss " << r.first_loss << " -> " << r.final_loss << ", eval loss " << r.eval_loss
                   << ", eval accuracy " << r.eval_accuracy);
  CHECK(r.eval_loss < 0.5 * std::log(2.0));
  CHECK(r.eval_accuracy >= 0.9);
}

TEST_CASE("training: NoPE with mean pooling cannot tell the order (stays at chance)", "[training][order][model]") {
  const ModelConfig c = order_config(Variant{"none"});
  EncoderClassifier model(c);
  const TrainOptions o = order_options();
  const TrainResult r = train_toy(model, o);
  INFO("NoPE: loss " << r.first_loss << " -> " << r.final_loss << ", eval accuracy " << r.eval_accuracy);
  CHECK(r.final_loss > 0.9 * std::log(2.0));
  CHECK(r.eval_loss > 0.9 * std::log(2.0));
  // Why: without positions the model is a function of the token multiset.
  // Swapping the 1 and the 2 flips every label but leaves the logits unchanged,
  // so on {x, swap(x)} it is right exactly half the time.
  const ToyBatch eval = make_toy_batch(ToyTask::order, 128, o.seq_len, c.vocab_size, 77, 0);
  const std::vector<double> a = eval_logits(model, eval), b = eval_logits(model, swap_order(eval));
  CHECK(max_abs_diff(a, b) < 1e-5);
  std::vector<double> both = a;
  both.insert(both.end(), b.begin(), b.end());
  std::vector<int32_t> labels = eval.labels, flipped = swap_order(eval).labels;
  labels.insert(labels.end(), flipped.begin(), flipped.end());
  CHECK(accuracy(both, labels) == Approx(0.5).margin(0.02));
}

TEST_CASE("symmetric alibi sees distance, not direction: invariant under reversing the sequence",
          "[alibi][order][model]") {
  // Bias -m |i - j| is unchanged when valid tokens are reversed, so an encoder
  // with symmetric ALiBi and mean pooling cannot learn 'token 1 before token 2'
  // (reversal flips that label); it is the expected price of the symmetric form.
  const test::ThreadCountGuard one_thread(1);
  const ModelConfig c = order_config(Variant{"alibi"});
  EncoderClassifier model(c, DType::F64);
  model.initialize(3);
  const ToyBatch b = make_toy_batch(ToyTask::order, 64, 10, c.vocab_size, 5, 0);
  CHECK(max_abs_diff(eval_logits(model, b), eval_logits(model, reverse_rows(b))) < 1e-12);
  // ... while RoPE and T5 buckets are not (they see the sign of m - n)
  for (const char* other : {"rope-interleaved", "t5_bias"}) {
    EncoderClassifier m(order_config(Variant{other}), DType::F64);
    m.initialize(3);
    CHECK(max_abs_diff(eval_logits(m, b), eval_logits(m, reverse_rows(b))) > 1e-3);
  }
  // and trained on the order task, symmetric ALiBi stays at chance
  EncoderClassifier trained(c);
  const TrainResult r = train_toy(trained, order_options());
  INFO("alibi on the order task: eval loss " << r.eval_loss << ", accuracy " << r.eval_accuracy);
  CHECK(r.eval_loss > 0.9 * std::log(2.0));
}

TEST_CASE("padding does not leak: logits of a row do not depend on its padding or other rows", "[model][padding]") {
  const Variant v = GENERATE(Variant{"rope-interleaved"}, Variant{"sinusoidal"}, Variant{"learned"}, Variant{"t5_bias"},
                             Variant{"alibi"}, Variant{"rope-half", "linear"},
                             Variant{"none", "softmax", "post", "cls"}, Variant{"alibi", "softmax", "pre", "max"});
  EncoderClassifier model(config_of(v), DType::F64);
  model.initialize(6);
  ToyBatch b = make_toy_batch(ToyTask::contains, 4, 12, 12, 2, 0);
  const std::vector<double> full = eval_logits(model, b);
  // garbage in the padded slots changes nothing
  ToyBatch noisy = b;
  for (int64_t i = 0; i < b.batch; ++i)
    for (int64_t j = b.lengths[i]; j < b.seq_len; ++j) noisy.tokens[i * b.seq_len + j] = 5;
  INFO(describe(v));
  CHECK(max_abs_diff(full, eval_logits(model, noisy)) < 1e-12);
  // each row alone, unpadded, gives its logits from the batch
  for (int64_t i = 0; i < b.batch; ++i) {
    ToyBatch one;
    one.batch = 1;
    one.seq_len = b.lengths[i];
    one.tokens.assign(b.tokens.begin() + i * b.seq_len, b.tokens.begin() + i * b.seq_len + one.seq_len);
    one.lengths = {b.lengths[i]};
    const std::vector<double> l = eval_logits(model, one);
    CHECK(l[0] == Approx(full[2 * i]).margin(1e-12));
    CHECK(l[1] == Approx(full[2 * i + 1]).margin(1e-12));
  }
}
