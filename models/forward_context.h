#pragma once
// Per-forward state: train/eval mode and the dropout randomness. Each dropout
// call site gets the next site number, so a mask is a pure function of
// (seed, training step, site, element): resuming at step s reproduces it.
// Randomized positions are drawn from their own stream the same way.
#include <cstdint>
#include <vector>

#include "engine/ops.h"
#include "models/attention_capture.h"

namespace rotor {

// Sees the attention probabilities of every softmax layer of a forward, for
// diagnostics (how far attention is from uniform). Only the composed kernel
// forms them; the fused one never holds an N x N tile, so it calls nothing.
class AttentionObserver {
 public:
  virtual ~AttentionObserver() = default;
  // probabilities: [B, H, N, N] before dropout; keys j >= key_lengths[b] are padding.
  virtual void observe(int64_t layer, const Tensor& probabilities, const std::vector<int32_t>& key_lengths) = 0;
};

struct ForwardContext {
  bool training = false;
  uint64_t seed = 0;
  uint64_t step = 0;
  uint64_t next_site = 0;
  int64_t layer = 0;                                // the block being run, set by the model
  AttentionObserver* attention_observer = nullptr;  // not owned; null: nobody watches
  AttentionCapture* attention_capture = nullptr;    // not owned; null: no layer's logit inputs are kept
  bool causal = false;  // softmax attention: query i attends keys j <= i only (a causal LM's forward)

  // The key of the next dropout site; every site takes a number, dropping or not.
  RandomKey next_dropout_key() { return RandomKey{seed, stream_id("dropout") + next_site++, step}; }
  // The key of this forward's randomized positions (model.position.randomized): one draw per forward
  // pass, a pure function of (seed, step), so every thread count and a resumed run draw the same.
  RandomKey position_key() const { return RandomKey{seed, stream_id("position.randomized"), step}; }
  // The dropout rate a site applies: p in training, 0 in evaluation.
  double dropout_rate(double p) const { return training ? p : 0.0; }

  // A dropout site applied inside a fused op (residual_norm, add_dropout): its rate and key,
  // the site numbered where dropout() would number it.
  struct DropoutSite {
    double p;
    RandomKey key;
  };
  DropoutSite dropout_site(double p) { return {dropout_rate(p), next_dropout_key()}; }

  Var dropout(const Var& x, double p) {
    const DropoutSite site = dropout_site(p);
    if (site.p == 0.0) return x;
    return rotor::dropout(x, site.p, site.key, true);
  }
};

}  // namespace rotor
