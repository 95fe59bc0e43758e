#include "trainers/diagnostics/text_generation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "engine/argmax.h"

namespace rotor {
std::vector<double> sequence_logits(const LanguageModel& model, const std::vector<int32_t>& tokens,
                                    const std::vector<int32_t>& positions) {
  const auto n = static_cast<int64_t>(tokens.size());
  const std::vector<int32_t> lengths{static_cast<int32_t>(n)};
  ForwardContext ctx;
  const ModelInput in{tokens, lengths, 1, n, positions.empty() ? nullptr : &positions};
  return model.logits(in, ctx).value().to_doubles();
}

int32_t choose_token(const std::vector<double>& logits, double temperature, int64_t top_k, double u) {
  if (temperature == 0.0) return static_cast<int32_t>(argmax(logits.data(), logits.size()));
  std::vector<double> scaled(logits.size());
  for (size_t v = 0; v < logits.size(); ++v) scaled[v] = logits[v] / temperature;
  double kth = -std::numeric_limits<double>::infinity();  // sample.py: logits below the k-th largest are -inf
  if (top_k > 0 && top_k < static_cast<int64_t>(scaled.size())) {
    std::vector<double> sorted = scaled;
    std::nth_element(sorted.begin(), sorted.begin() + (top_k - 1), sorted.end(), std::greater<double>());
    kth = sorted[static_cast<size_t>(top_k - 1)];
  }
  const double top = *std::max_element(scaled.begin(), scaled.end());
  std::vector<double> weight(scaled.size());
  double total = 0;
  for (size_t v = 0; v < scaled.size(); ++v) total += weight[v] = scaled[v] < kth ? 0.0 : std::exp(scaled[v] - top);
  // Inverse CDF: the first token whose cumulative weight passes u * total.
  double cumulative = 0, target = u * total;
  for (size_t v = 0; v < weight.size(); ++v) {
    cumulative += weight[v];
    if (weight[v] > 0 && cumulative > target) return static_cast<int32_t>(v);
  }
  return static_cast<int32_t>(argmax(scaled.data(), scaled.size()));  // u * total rounded up to the total
}

std::vector<int32_t> generate(const LanguageModel& model, const std::vector<int32_t>& prompt,
                              const GenerationOptions& options) {
  if (model.kind() != LanguageModelKind::causal) throw std::logic_error("generate: the model is not causal");
  if (prompt.empty() || options.window <= 0) throw std::logic_error("generate: an empty prompt or window");
  if (!options.prompt_positions.empty() && options.prompt_positions.size() != prompt.size())
    throw std::logic_error("generate: prompt_positions is not one position per prompt token");
  NoGradGuard no_grad;
  const RandomKey key{options.seed, stream_id("generate"), 0};
  std::vector<int32_t> tokens = prompt, positions = options.prompt_positions;
  for (int64_t k = 0; k < options.max_new; ++k) {
    const auto start = static_cast<std::ptrdiff_t>(
        tokens.size() > static_cast<size_t>(options.window) ? tokens.size() - options.window : 0);
    const std::vector<int32_t> context(tokens.begin() + start, tokens.end());
    const std::vector<int32_t> at =
        positions.empty() ? positions : std::vector<int32_t>(positions.begin() + start, positions.end());
    const std::vector<double> logits = sequence_logits(model, context, at);
    const size_t vocab = logits.size() / context.size();
    const std::vector<double> next(logits.end() - static_cast<std::ptrdiff_t>(vocab), logits.end());
    const uint64_t position = tokens.size();  // of the draw: the token's index in prompt + continuation
    tokens.push_back(choose_token(next, options.temperature, options.top_k, key.uniform_double(position)));
    if (!positions.empty()) positions.push_back(static_cast<int32_t>(k + 1));
    if (tokens.back() == options.stop) break;
  }
  return std::vector<int32_t>(tokens.begin() + static_cast<std::ptrdiff_t>(prompt.size()), tokens.end());
}

}  // namespace rotor
