#include "datasets/batcher.h"

#include <algorithm>

#include <fmt/format.h>

#include "datasets/data_error.h"
#include "datasets/tokenizer.h"

namespace rotor {
namespace {

void check_batch_config(const BatchConfig& config) {
  if (config.batch_tokens < 0) throw DataError("batch_tokens: expected 0 (off) or a positive budget");
  if (config.batch_tokens == 0 && config.batch_size < 1) {
    throw DataError("batch_size: expected at least 1, got " + std::to_string(config.batch_size));
  }
}

// Cuts `order` into consecutive batches: batch_size windows each, or as many
// as fit the token budget when padded to the batch's longest window. A window
// longer than the budget gets a batch of its own.
void cut_batches(const std::vector<int64_t>& order, const std::vector<int64_t>& lengths, const BatchConfig& config,
                 std::vector<std::vector<int64_t>>& out) {
  std::vector<int64_t> current;
  int64_t longest = 0;
  for (int64_t index : order) {
    const int64_t len = std::max(lengths[index], longest);
    const bool full = config.batch_tokens > 0 ? static_cast<int64_t>(current.size() + 1) * len > config.batch_tokens
                                              : static_cast<int64_t>(current.size()) == config.batch_size;
    if (full && !current.empty()) {
      out.push_back(std::move(current));
      current.clear();
      longest = 0;
    }
    current.push_back(index);
    longest = std::max(longest, lengths[index]);
  }
  if (!current.empty()) out.push_back(std::move(current));
}

}  // namespace

std::vector<int64_t> shuffled_indices(int64_t n, const RandomKey& key) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[i] = i;
  for (int64_t i = n - 1; i > 0; --i) {
    std::swap(order[i], order[key.below(static_cast<uint64_t>(i), static_cast<uint64_t>(i + 1))]);
  }
  return order;
}

void shuffle_window(int32_t* tokens, int64_t length, uint64_t seed, int64_t epoch, const Window& window) {
  const RandomKey key{seed, stream_id(fmt::format("shuffle_tokens {} {}", window.doc, window.index)),
                      static_cast<uint64_t>(epoch)};
  const std::vector<int32_t> original(tokens, tokens + length);
  const std::vector<int64_t> order = shuffled_indices(length, key);
  for (int64_t i = 0; i < length; ++i) tokens[i] = original[static_cast<size_t>(order[i])];
}

std::vector<std::vector<int64_t>> plan_train_batches(const std::vector<int64_t>& lengths, const BatchConfig& config,
                                                     uint64_t seed, int64_t epoch) {
  check_batch_config(config);
  const auto step = static_cast<uint64_t>(epoch);
  const std::vector<int64_t> order =
      shuffled_indices(static_cast<int64_t>(lengths.size()), RandomKey{seed, stream_id("shuffle"), step});
  std::vector<std::vector<int64_t>> batches;
  if (config.bucket_pool <= 1) {
    cut_batches(order, lengths, config, batches);
  } else {
    // Counting in whole batches leaves no partial batch inside the epoch.
    auto pool = static_cast<size_t>(config.bucket_pool);
    if (config.batch_tokens == 0) {
      const auto batch = static_cast<size_t>(config.batch_size);
      pool = (pool + batch - 1) / batch * batch;
    }
    for (size_t begin = 0; begin < order.size(); begin += pool) {
      std::vector<int64_t> chunk(order.begin() + static_cast<std::ptrdiff_t>(begin),
                                 order.begin() + static_cast<std::ptrdiff_t>(std::min(order.size(), begin + pool)));
      std::stable_sort(chunk.begin(), chunk.end(), [&](int64_t a, int64_t b) { return lengths[a] < lengths[b]; });
      cut_batches(chunk, lengths, config, batches);
    }
  }
  // Without this, every pool would go from short to long batches.
  const std::vector<int64_t> batch_order =
      shuffled_indices(static_cast<int64_t>(batches.size()), RandomKey{seed, stream_id("batch_order"), step});
  std::vector<std::vector<int64_t>> shuffled;
  shuffled.reserve(batches.size());
  for (int64_t b : batch_order) shuffled.push_back(std::move(batches[b]));
  return shuffled;
}

std::vector<std::vector<int64_t>> plan_eval_batches(const std::vector<int64_t>& lengths, const BatchConfig& config) {
  check_batch_config(config);
  std::vector<int64_t> order(lengths.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return lengths[a] > lengths[b]; });
  std::vector<std::vector<int64_t>> batches;
  cut_batches(order, lengths, config, batches);
  return batches;
}

Batch make_batch(const TokenizedSplit& split, const std::vector<Window>& windows, const std::vector<int64_t>& members) {
  Batch b;
  b.batch_size = static_cast<int64_t>(members.size());
  for (int64_t m : members) b.seq_len = std::max(b.seq_len, windows[m].length());
  b.tokens.assign(static_cast<size_t>(b.batch_size * b.seq_len), Tokenizer::kPadId);
  if (split.has_targets()) b.targets.assign(b.tokens.size(), kNoTarget);
  if (split.has_positions()) b.positions.assign(b.tokens.size(), 0);
  for (int64_t row = 0; row < b.batch_size; ++row) {
    const Window& w = windows[members[row]];
    copy_window(split, w, b.tokens.data() + row * b.seq_len);
    if (split.has_targets()) copy_window_targets(split, w, b.targets.data() + row * b.seq_len);
    if (split.has_positions()) copy_window_positions(split, w, b.positions.data() + row * b.seq_len);
    b.lengths.push_back(static_cast<int32_t>(w.length()));
    b.labels.push_back(split.labels[w.doc]);
    b.doc_ids.push_back(w.doc);
    b.window_ids.push_back(w.index);
  }
  return b;
}

}  // namespace rotor
