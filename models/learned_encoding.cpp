// Learned absolute positions (BERT): a [max_len, d_model] table
// ("embed.positions.weight") whose first N rows are added to the embeddings,
// drawn with position.scale times the token embeddings' RMS (BERT: both
// N(0, init_std)). The scale sets the draw, not a multiplier, so the table
// learns at the optimizer's rate like every other parameter.
// With CLS pooling the CLS vector takes position 0, so windows of max_len - 1
// tokens fit; the config check at load names the rows a run needs.
#include "models/position_encoding.h"
#include "models/sinusoidal_encoding.h"

namespace rotor {
namespace {

class LearnedEncoding : public PositionEncoding {
 public:
  LearnedEncoding(ParameterStore& store, const ModelConfig& c)
      : max_len_(c.position.integer("max_len")),
        table_(store.declare("embed.positions.weight", {max_len_, c.d_model},
                             ParameterInit::normal(c.position.number("scale") * c.token_rms()))) {}

  // The table's rows at the slots' positions (0..N-1, or the randomized ones).
  Var add_to_embeddings(const ParameterStore& store, const Var& x, const Positions& positions) const override {
    const int64_t n = x.size(1), last = positions.end(n) - 1;
    if (last >= max_len_)
      throw ModelConfigError("position " + std::to_string(last) + " is past model.position.max_len = " +
                             std::to_string(max_len_) + " rows of the learned position table");
    std::vector<int32_t> rows(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) rows[i] = static_cast<int32_t>(positions.at(i));
    return add(x, embedding(store.var(table_), rows, {n}));
  }

 private:
  int64_t max_len_;
  ParameterId table_;
};

// Randomized positions reach max_positions - 1: the table needs a row for each.
void validate_learned(const ModelConfig& c) {
  const int64_t rows = c.position.integer("max_len"), range = c.position.integer("max_positions");
  if (c.position.flag("randomized") && rows < range)
    throw ModelConfigError("model.position.max_len: the learned table has " + std::to_string(rows) +
                           " rows, but randomized positions are drawn from [0, model.position.max_positions = " +
                           std::to_string(range) + "); set max_len to at least " + std::to_string(range));
}

}  // namespace

PositionEncodingSpec learned_encoding_spec() {
  PositionEncodingSpec s;
  s.name = "learned";
  s.adds_to_embeddings = true;
  s.validate = validate_learned;
  s.make = [](ParameterStore& store, const ModelConfig& c) { return std::make_unique<LearnedEncoding>(store, c); };
  s.max_positions = [](const ModelConfig& c) { return c.position.integer("max_len"); };
  s.options = with_randomized_positions({
      PositionOption::integer("max_len", 512,
                              "rows of the position table (max_len + 1 with cls pooling; at least max_positions with "
                              "randomized)")
          .at_least(1),
      absolute_position_scale_option(),
  });
  return s;
}

}  // namespace rotor
