#include "trainers/diagnostics/attention_probabilities.h"

#include <string>

#include "engine/error.h"
#include "engine/kernels/attention_rows.h"

namespace rotor {

const AttentionLogitInputs& AttentionRecorder::layer(int64_t layer) const {
  const auto it = layers_.find(layer);
  if (it == layers_.end())
    throw Error("attention layer " + std::to_string(layer) +
                " recorded nothing: only softmax attention has attention probabilities");
  return it->second;
}

void for_each_probability_row(const AttentionLogitInputs& layer, Precision precision, int64_t b, int64_t h,
                              const ProbabilityRowVisitor& visit) {
  kernels::AttentionConfig c;
  c.B = layer.q.size(0);
  c.H = layer.q.size(1);
  c.N = layer.q.size(2);
  c.dh = layer.q.size(3);
  c.scale = layer.scale;
  c.key_lengths = layer.key_lengths.data();
  c.pair_bias = layer.pair_bias.get();
  c.causal = layer.causal;
  const int64_t queries = layer.key_lengths.at(static_cast<size_t>(b));
  dispatch(layer.q.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* bias = layer.relative_bias.defined() ? layer.relative_bias.data<T>() : nullptr;
    const T* contextual = layer.contextual_bias.defined() ? layer.contextual_bias.data<T>() : nullptr;
    kernels::AttentionRows<T> rows(c, precision, layer.q.data<T>(), layer.k.data<T>(), bias, contextual);
    std::vector<T> row(static_cast<size_t>(c.N));
    std::vector<double> p(row.size());
    for (int64_t i = 0; i < queries; ++i) {
      rows.row(b, h, i, row.data());
      for (size_t j = 0; j < row.size(); ++j) p[j] = static_cast<double>(row[j]);
      visit(i, p);
    }
  });
}

}  // namespace rotor
