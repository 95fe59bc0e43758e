#include "trainers/diagnostics/frequency_use.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "trainers/config/config.h"
#include "trainers/diagnostics/recorded_windows.h"

namespace rotor {

std::vector<FrequencyPair> frequency_pairs(const RotaryEmbedding& rotation, int64_t head_dim) {
  const int64_t r = rotation.rotary_dims(), half = r / 2;
  std::vector<FrequencyPair> pairs;
  for (int64_t i = 0; i < half; ++i) {
    const double f = rotation.frequencies()[static_cast<size_t>(i)];
    pairs.push_back(rotation.layout() == RotaryLayout::interleaved ? FrequencyPair{2 * i, 2 * i + 1, f}
                                                                   : FrequencyPair{i, i + half, f});
  }
  for (int64_t d = r; d + 1 < head_dim; d += 2) pairs.push_back({d, d + 1, 0.0});
  return pairs;
}

void pair_contributions(const double* q, const double* k, const std::vector<FrequencyPair>& pairs,
                        double* contributions) {
  for (size_t p = 0; p < pairs.size(); ++p)
    contributions[p] = q[pairs[p].first] * k[pairs[p].first] + q[pairs[p].second] * k[pairs[p].second];
}

FrequencyUse::FrequencyUse(int64_t layers, int64_t heads, std::vector<FrequencyPair> pairs)
    : layers_(layers),
      heads_(heads),
      pairs_(std::move(pairs)),
      q_norm_(static_cast<size_t>(layers * heads) * pairs_.size(), 0.0),
      k_norm_(q_norm_.size(), 0.0),
      contribution_(q_norm_.size(), 0.0),
      abs_share_(q_norm_.size(), 0.0),
      slots_(static_cast<size_t>(layers * heads), 0),
      logits_(slots_.size(), 0),
      shared_(slots_.size(), 0) {}

namespace {

// Row (b, h) of x [B, H, N, dh] as doubles, N * dh of them.
std::vector<double> head_rows(const Tensor& x, int64_t b, int64_t h) {
  const int64_t n = x.size(2), dh = x.size(3);
  std::vector<double> rows(static_cast<size_t>(n * dh));
  dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* first = x.data<T>() + ((b * x.size(1) + h) * n) * dh;
    for (size_t e = 0; e < rows.size(); ++e) rows[e] = static_cast<double>(first[e]);
  });
  return rows;
}

double pair_norm(const double* x, const FrequencyPair& p) { return std::hypot(x[p.first], x[p.second]); }

}  // namespace

void FrequencyUse::add(const AttentionLogitInputs& layer) {
  for (int64_t b = 0; b < layer.q.size(0); ++b)
    for (int64_t h = 0; h < heads_; ++h)
      add_head(layer, b, h, head_rows(layer.q, b, h).data(), head_rows(layer.k, b, h).data());
}

void FrequencyUse::add_head(const AttentionLogitInputs& layer, int64_t b, int64_t h, const double* q, const double* k) {
  const int64_t dh = layer.q.size(3), valid = layer.key_lengths.at(static_cast<size_t>(b));
  const size_t cell = at(layer.layer, h), first = cell * pairs_.size();
  std::vector<double> c(pairs_.size());
  for (int64_t i = 0; i < valid; ++i) {
    for (size_t p = 0; p < pairs_.size(); ++p) {
      q_norm_[first + p] += pair_norm(q + i * dh, pairs_[p]);
      k_norm_[first + p] += pair_norm(k + i * dh, pairs_[p]);
    }
    ++slots_[cell];
    for (int64_t j = 0; j < (layer.causal ? i + 1 : valid); ++j) {
      pair_contributions(q + i * dh, k + j * dh, pairs_, c.data());
      double total = 0;
      for (size_t p = 0; p < pairs_.size(); ++p) {
        contribution_[first + p] += c[p];
        total += std::abs(c[p]);
      }
      ++logits_[cell];
      if (total == 0) continue;  // q or k is zero there: no share to split
      for (size_t p = 0; p < pairs_.size(); ++p) abs_share_[first + p] += std::abs(c[p]) / total;
      ++shared_[cell];
    }
  }
}

nlohmann::json FrequencyUse::to_json() const {
  nlohmann::json pairs = nlohmann::json::array();
  for (size_t p = 0; p < pairs_.size(); ++p)
    pairs.push_back({{"pair", p}, {"dims", {pairs_[p].first, pairs_[p].second}}, {"frequency", pairs_[p].frequency}});
  nlohmann::json out{{"windows", windows_}, {"pairs", pairs}, {"layers", nlohmann::json::array()}};
  auto means = [&](const std::vector<double>& sums, size_t cell, int64_t count) {
    std::vector<double> m(sums.begin() + static_cast<std::ptrdiff_t>(cell * pairs_.size()),
                          sums.begin() + static_cast<std::ptrdiff_t>((cell + 1) * pairs_.size()));
    for (double& v : m) v /= static_cast<double>(std::max<int64_t>(count, 1));
    return m;
  };
  for (int64_t l = 0; l < layers_; ++l) {
    nlohmann::json heads = nlohmann::json::array();
    for (int64_t h = 0; h < heads_; ++h) {
      const size_t cell = at(l, h);
      const std::vector<double> contribution = means(contribution_, cell, logits_[cell]);
      double logit = 0;
      for (double v : contribution) logit += v;
      heads.push_back({{"head", h},
                       {"q_norm", means(q_norm_, cell, slots_[cell])},
                       {"k_norm", means(k_norm_, cell, slots_[cell])},
                       {"mean_contribution", contribution},
                       {"mean_abs_share", means(abs_share_, cell, shared_[cell])},
                       {"mean_logit", logit}});
    }
    out["layers"].push_back({{"layer", l}, {"heads", heads}});
  }
  return out;
}

FrequencyUse measure_frequency_use(const Model& model, const TokenizedSplit& split, int64_t max_len,
                                   int64_t max_windows) {
  const ModelConfig& config = model.config();
  const RotaryEmbedding* rotation = model.position_encoding().rotation();
  if (rotation == nullptr)
    throw ConfigError("model.position.type: " + config.position.type +
                      " does not rotate q and k, so there are no frequency pairs to analyse; "
                      "analyze frequencies needs a rotary encoding (rope, xpos or p_rope)");
  if (config.attention != AttentionKind::softmax)
    throw ConfigError("linear attention (model.attention: linear) forms no softmax logits to split by frequency");
  if (config.interleaved_position.active())
    throw ConfigError("model.interleaved_position: layers " + std::to_string(config.interleaved_position.first) +
                      ", +" + std::to_string(config.interleaved_position.every) +
                      " take another encoding, so no one set of frequency pairs describes the model; analyze "
                      "frequencies reads models with one encoding");
  FrequencyUse use(config.layers, config.heads, frequency_pairs(*rotation, config.head_dim()));
  for_each_recorded_batch(model, split, max_len, max_windows, [&](const RecordedBatch& batch) {
    for (int64_t l = 0; l < config.layers; ++l) use.add(batch.recorder.layer(l));
    use.count_windows(batch.windows);
  });
  return use;
}

}  // namespace rotor
