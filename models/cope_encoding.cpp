// CoPE, contextual position encoding: O. Golovneva, T. Wang, J. Weston, S. Sukhbaatar,
// "Contextual Position Encoding: Learning to Count What's Important", arXiv:2405.18719 (2024).
//
// A key's position relative to the query is not its index distance but a count of the keys
// between them that the query's gates open: g_it = sigmoid(q_i . k_t / sqrt(dh)) with the layer's
// own logits, p_ij = sum of g_it over t from j to i (the paper's decoder), clamped to npos_max - 1.
// Each layer has npos_max position embeddings e[0..npos_max) of the head's width, shared by its heads
// and zero at the start (the paper's code; embedding_std draws them from N(0, std) instead); the logit of (i, j) gains
// q_i . e[p_ij], interpolated between the integer positions around p_ij. The count depends on content, so no
// index-based hook can carry it: the term is formed from the logits on the composed softmax (engine
// contextual_positions), at O(B H N^2) memory per layer, like the composed path itself.
//
// Encoder form (rotor's, not the paper's): a key after the query counts the gates from the query to
// it, so p_ij is the same sum on either side and has no sign. Reversing a sequence mirrors its
// attention, as ALiBi's: an encoder with mean pooling cannot tell an order from its reverse. The
// causal form is the paper's exactly.
#include <memory>
#include <string>
#include <vector>

#include "models/position_encoding.h"

namespace rotor {
namespace {

class CopeEncoding : public PositionEncoding {
 public:
  CopeEncoding(ParameterStore& store, const ModelConfig& c) {
    const int64_t positions = c.position.integer("npos_max");
    const double start_std = c.position.number("embedding_std");
    const ParameterInit start = start_std > 0 ? ParameterInit::normal(start_std) : ParameterInit::zeros();
    for (int64_t i = 0; i < c.layers; ++i)
      embeddings_.push_back(
          store.declare("layers." + std::to_string(i) + ".attn.cope.embeddings", {positions, c.head_dim()}, start));
  }

  bool contextual() const override { return true; }
  Var contextual_bias(const ParameterStore& store, int64_t layer, const Var& q,
                      const Var& masked_logits) const override {
    const Var scores = matmul(q, store.var(embeddings_[static_cast<size_t>(layer)]), false, true);  // [B, H, N, P]
    return contextual_positions(masked_logits, scores);
  }

 private:
  std::vector<ParameterId> embeddings_;  // per layer: [npos_max, head_dim]
};

}  // namespace

PositionEncodingSpec cope_encoding_spec() {
  PositionEncodingSpec s;
  s.name = "cope";
  s.validate = [](const ModelConfig&) {};  // the option's range; the kernel is checked with needs_composed_attention
  s.make = [](ParameterStore& store, const ModelConfig& c) { return std::make_unique<CopeEncoding>(store, c); };
  s.options = {
      PositionOption::integer("npos_max", 64,
                              "CoPE's position embeddings per layer: counted positions are clamped to "
                              "npos_max - 1 (the paper's npos_max)")
          .at_least(1),
      // A product q . e that starts at zero sits on a saddle: runs that stall at `none` for a seed-dependent
      // number of steps (results/separation-newer) are what this option probes.
      PositionOption::number("embedding_std", 0.0,
                             "the std of the position embeddings' N(0, std) start; 0: zeros (the paper's code)")
          .at_least(0)};
  s.needs_logits = true;
  s.needs_composed_attention = true;
  s.reversal_symmetric = true;
  return s;
}

}  // namespace rotor
