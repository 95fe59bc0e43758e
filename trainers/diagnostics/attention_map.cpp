#include "trainers/diagnostics/attention_map.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "trainers/config/config.h"
#include "trainers/diagnostics/attention_probabilities.h"
#include "trainers/diagnostics/model_forward.h"

namespace rotor {
namespace {

// The chosen indices, each checked against 0..count-1; none chosen: all of them.
std::vector<int64_t> chosen(const std::vector<int64_t>& picks, int64_t count, const char* option, const char* what) {
  if (picks.empty()) {
    std::vector<int64_t> all(static_cast<size_t>(count));
    std::iota(all.begin(), all.end(), int64_t{0});
    return all;
  }
  for (int64_t p : picks)
    if (p < 0 || p >= count)
      throw ConfigError(
          fmt::format("{} {} is out of range: the model has {} {} (0..{})", option, p, count, what, count - 1));
  return picks;
}

// The top_k keys of one row, largest first (ties: the earlier key).
nlohmann::json top_keys(const std::vector<double>& p, int64_t keys, int64_t top_k) {
  std::vector<int64_t> order(static_cast<size_t>(keys));
  std::iota(order.begin(), order.end(), int64_t{0});
  const auto k = static_cast<std::ptrdiff_t>(std::min(top_k, keys));
  std::partial_sort(order.begin(), order.begin() + k, order.end(),
                    [&](int64_t a, int64_t b) { return p[a] > p[b] || (p[a] == p[b] && a < b); });
  nlohmann::json out = nlohmann::json::array();
  for (std::ptrdiff_t r = 0; r < k; ++r) out.push_back({{"key", order[r]}, {"p", p[order[r]]}});
  return out;
}

nlohmann::json head_map(const AttentionLogitInputs& layer, Precision precision, int64_t head,
                        const AttentionMapRequest& request) {
  const int64_t n = layer.key_lengths.at(0);
  const int64_t stride = (n + request.max_cells - 1) / request.max_cells, cells = (n + stride - 1) / stride;
  std::vector<std::vector<double>> grid(static_cast<size_t>(cells), std::vector<double>(static_cast<size_t>(cells)));
  std::vector<int64_t> rows_in_cell(static_cast<size_t>(cells), 0);
  nlohmann::json top = nlohmann::json::array();
  for_each_probability_row(layer, precision, 0, head, [&](int64_t i, const std::vector<double>& p) {
    for (int64_t j = 0; j < n; ++j) grid[i / stride][j / stride] += p[j];
    ++rows_in_cell[i / stride];
    top.push_back(top_keys(p, n, request.top_k));
  });
  for (int64_t a = 0; a < cells; ++a)
    for (double& v : grid[a]) v /= static_cast<double>(rows_in_cell[a]);
  return {{"layer", layer.layer}, {"head", head}, {"stride", stride}, {"probabilities", grid}, {"top_keys", top}};
}

}  // namespace

nlohmann::json attention_maps(const Model& model, const std::vector<int32_t>& tokens,
                              const std::vector<std::string>& labels, const AttentionMapRequest& request,
                              Precision precision) {
  const ModelConfig& config = model.config();
  if (config.attention != AttentionKind::softmax)
    throw ConfigError("linear attention (model.attention: linear) forms no attention probabilities to map");
  const std::vector<int64_t> layers = chosen(request.layers, config.layers, "--layer", "layers");
  const std::vector<int64_t> heads = chosen(request.heads, config.heads, "--head", "heads");
  AttentionRecorder recorder;
  ForwardContext ctx;
  ctx.attention_capture = &recorder;
  const std::vector<int32_t> lengths{static_cast<int32_t>(tokens.size())};
  run_forward(model, {tokens, lengths, 1, static_cast<int64_t>(tokens.size())}, ctx);
  nlohmann::json out{{"length", labels.size()}, {"tokens", labels}, {"maps", nlohmann::json::array()}};
  for (int64_t l : layers)
    for (int64_t h : heads) out["maps"].push_back(head_map(recorder.layer(l), precision, h, request));
  return out;
}

}  // namespace rotor
