#pragma once
// How a position encoding enters the encoder: every encoding implements the
// hooks it needs and inherits no-ops for the others. The encoder, the blocks
// and attention call the hooks and know no encoding by name; encodings are
// built from the name -> factory table below (position.type is a row name).
//
// Adding an encoding: one .cpp file with a PositionEncoding subclass and a
// PositionEncodingSpec declaring its model.position.* keys, plus one row in
// position_encoding_table.cpp (or, from a test or plugin,
// register_position_encoding()). docs/design.md has the steps.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/ops.h"
#include "engine/pair_bias.h"
#include "engine/parameters.h"
#include "models/model_config.h"
#include "models/positions.h"

namespace rotor {

class RotaryEmbedding;

class PositionEncoding {
 public:
  virtual ~PositionEncoding() = default;

  // Every hook that uses positions takes the window's `positions` (models/positions.h):
  // empty for 0..N-1, else the N explicit (randomized) positions of the N slots.

  // x: [B, N, d_model] embeddings (CLS in slot 0 if pooled) -> x + the signal of each slot's position.
  virtual Var add_to_embeddings(const ParameterStore& /*store*/, const Var& x, const Positions& /*positions*/) const {
    return x;
  }

  // Rotation after the q/k projections: x [B, H, N, head_dim] at `positions`.
  // `role` tells queries from keys (xPos scales them by inverse factors) and values.
  enum class Role { query, key, value };
  virtual bool rotates() const { return false; }
  virtual Var rotate(const Var& x, Role /*role*/, const Positions& /*positions*/) const { return x; }
  virtual bool rotates_values() const { return false; }  // rotate v too (RoFormer's rotary_value)
  // The pairs and frequencies q and k turn by, for diagnostics that read them pair by pair; null: no rotation.
  virtual const RotaryEmbedding* rotation() const { return nullptr; }
  // Temperature on the softmax logits (YaRN); 1 for every other encoding.
  virtual double logit_scale() const { return 1.0; }

  // Additive logit bias that depends only on the query-key offset, for
  // `layer`, tabulated for offsets -(N-1)..N-1: [H, 2N-1] with element
  // [h][(i - j) + (N - 1)] added to the logit of query i and key j. With
  // explicit positions attention asks for the table over their span and
  // evaluates it at p_i - p_j (models/offset_pair_bias.h). Undefined: no bias.
  // `causal`: attention reads only keys j <= i (a decoder), and an encoding whose
  // paper defines a decoder form different from its encoder form there (T5's
  // unidirectional buckets) returns that one. The other hooks need no flag: the
  // pair bias (FIRE) and the rotations (RoPE, xPos) are their papers' causal forms
  // already where j <= i, and attention never reads j > i then.
  virtual Var relative_bias(const ParameterStore& /*store*/, int64_t /*layer*/, int64_t /*length*/,
                            bool /*causal*/) const {
    return Var();
  }
  // Additive logit bias b_h(p_i, p_j) that depends on the query and key positions
  // themselves, for `layer`, as a description the fused attention evaluates
  // tile by tile, or once per call for the batch while it fits (engine/pair_bias.h). Null: none.
  virtual std::shared_ptr<const PairBias> pair_bias(const ParameterStore& /*store*/, int64_t /*layer*/,
                                                    const Positions& /*positions*/) const {
    return nullptr;
  }

  // A logit term that depends on the content (CoPE): q [B, H, N, dh] and the layer's scaled logits
  // q.k with -inf at the keys a query does not attend, [B, H, N, N] -> the term added to them.
  // Only the composed softmax forms those logits (PositionEncodingSpec::needs_composed_attention).
  virtual bool contextual() const { return false; }
  virtual Var contextual_bias(const ParameterStore& /*store*/, int64_t /*layer*/, const Var& /*q*/,
                              const Var& /*masked_logits*/) const {
    return Var();
  }

  // Parameters whose start is not a ParameterInit (learned ALiBi slopes from
  // the schedule; KERPLE's draws projected into range): set after the store's
  // own initialisation, as a pure function of `seed` and the parameter names.
  virtual void initialize(ParameterStore& /*store*/, uint64_t /*seed*/) const {}
  // Projects constrained parameters back into their domain (KERPLE's r >= 0.01);
  // the trainer calls it after every optimizer step, as KERPLE's code clamps
  // before every forward.
  virtual void constrain(ParameterStore& /*store*/) const {}
};

// Raises the elements of parameter `id` below `least` to it: the projection an
// encoding's constrain() applies.
void clamp_parameter_below(ParameterStore& store, ParameterId id, double least);

// One row of the factory table.
struct PositionEncodingSpec {
  std::string name;  // the value of model.position.type
  // Checks the keys this encoding reads; throws ModelConfigError naming the key.
  std::function<void(const ModelConfig&)> validate;
  // Declares the encoding's parameters in `store` and returns it.
  std::function<std::unique_ptr<PositionEncoding>(ParameterStore&, const ModelConfig&)> make;
  // Longest input in positions (0: any length).
  std::function<int64_t(const ModelConfig&)> max_positions = [](const ModelConfig&) { return int64_t{0}; };
  // The model.position.* keys this encoding reads (others reject them when set). A key
  // several encodings read is declared alike by each (the table checks it).
  std::vector<PositionOption> options;
  // Needs softmax logits (an additive bias): not available with linear attention.
  bool needs_logits = false;
  // Takes model.position.scaling for inputs longer than training (the length sweep tries each scaling).
  bool scales_lengths = false;
  // Rotates q and k with RoPE's frequencies from model.position.base (studies plot RoPE's long-term decay).
  bool rope_frequencies = false;
  // In an encoder (attention both ways) a sequence and its reverse get the same attention, mirrored: there is
  // no position signal, or the bias depends on |i - j| alone (models/order_blindness.h).
  bool reversal_symmetric = false;
  // Gives no position signal at all (none): the encoder sees a bag of tokens, whatever the pooling.
  bool position_free = false;
  // Adds its signal to the embeddings (add_to_embeddings), which every layer sees: it cannot be one layer's.
  bool adds_to_embeddings = false;
  // Its bias reads every logit q.k of a row (contextual_bias): model.attention_kernel must be composed.
  bool needs_composed_attention = false;

  bool declares(const std::string& key) const;
};

// Rows in table order; the names are the allowed values of model.position.type.
const std::vector<PositionEncodingSpec>& position_encodings();
std::vector<std::string> position_encoding_names();
// The row named `name`; throws ModelConfigError naming model.position.type.
const PositionEncodingSpec& position_encoding(const std::string& name);
// Every declared model.position.* option once, in table order (a key shared by
// several encodings appears once), and the one named `key` (nullptr: none).
std::vector<PositionOption> position_options();
const PositionOption* find_position_option(const std::string& key);
// Names of the encodings that declare `key`, as "sinusoidal or learned".
std::string position_option_owners(const std::string& key);
// Adds a row (a new name); throws ModelConfigError if the name is taken or it
// declares a shared key differently from the encodings that declare it already.
void register_position_encoding(PositionEncodingSpec spec);

std::unique_ptr<PositionEncoding> make_position_encoding(ParameterStore& store, const ModelConfig& config);

}  // namespace rotor
