#include "datasets/windowing.h"

#include <algorithm>

#include <fmt/format.h>

#include "datasets/data_error.h"
#include "engine/random.h"

namespace rotor {
namespace {

void check_window_config(const WindowConfig& config) {
  if (config.max_len < 1) throw DataError("max_len: expected at least 1, got " + std::to_string(config.max_len));
}

Window truncated(int64_t doc, int64_t length, const WindowConfig& config) {
  Window w{doc, 0, 0, std::min(length, config.max_len), 0};
  if (length <= config.max_len) return w;
  switch (config.truncation) {
    case Truncation::head:
      break;
    case Truncation::tail:
      w.head_begin = length - config.max_len;
      break;
    case Truncation::head_tail:
      w.head_len = (config.max_len + 1) / 2;
      w.tail_len = config.max_len - w.head_len;
      break;
  }
  return w;
}

// A sequence task's sample (a split with targets) is one window, whole: a cut
// sample would lose queries or answer positions, or the input they depend on.
std::vector<Window> whole_samples(const TokenizedSplit& split, const WindowConfig& config, const char* length_key) {
  std::vector<Window> out;
  out.reserve(static_cast<size_t>(split.num_docs()));
  for (int64_t doc = 0; doc < split.num_docs(); ++doc) {
    const int64_t length = split.doc_length(doc);
    if (length > config.max_len)
      throw DataError(fmt::format(
          "{}: sample {} of split '{}' has {} tokens, more than the {}-token window; a sequence task's sample is "
          "never cut, so set {} to at least the longest sample",
          length_key, doc, split.name, length, config.max_len, length_key));
    out.push_back(Window{doc, 0, 0, length, 0});
  }
  return out;
}

// Copies a window's values out of one of the split's per-token arrays (tokens, targets, positions).
void copy_window_values(const int32_t* doc, int64_t doc_length, const Window& window, int32_t* out) {
  std::copy(doc + window.head_begin, doc + window.head_begin + window.head_len, out);
  std::copy(doc + doc_length - window.tail_len, doc + doc_length, out + window.head_len);
}

}  // namespace

std::vector<Window> train_windows(const TokenizedSplit& split, const WindowConfig& config, uint64_t seed,
                                  int64_t epoch) {
  check_window_config(config);
  if (split.has_targets()) return whole_samples(split, config, "data.max_len");
  const RandomKey key{seed, stream_id("train_window"), static_cast<uint64_t>(epoch)};
  std::vector<Window> out;
  out.reserve(static_cast<size_t>(split.num_docs()));
  for (int64_t doc = 0; doc < split.num_docs(); ++doc) {
    const int64_t length = split.doc_length(doc);
    if (config.random_train_windows && length > config.max_len) {
      const auto start = static_cast<int64_t>(
          key.below(static_cast<uint64_t>(doc), static_cast<uint64_t>(length - config.max_len + 1)));
      out.push_back(Window{doc, 0, start, config.max_len, 0});
    } else {
      out.push_back(truncated(doc, length, config));
    }
  }
  return out;
}

std::vector<Window> eval_windows(const TokenizedSplit& split, const WindowConfig& config) {
  check_window_config(config);
  if (split.has_targets()) return whole_samples(split, config, "data.eval_max_len (0: data.max_len)");
  std::vector<Window> out;
  for (int64_t doc = 0; doc < split.num_docs(); ++doc) {
    const int64_t length = split.doc_length(doc);
    if (config.eval_windows == EvalWindows::first || length <= config.max_len) {
      out.push_back(truncated(doc, length, config));
      continue;
    }
    const int64_t count = (length + config.max_len - 1) / config.max_len;
    const int64_t slack = length - config.max_len;  // spread over count - 1 gaps
    for (int64_t i = 0; i < count; ++i) {
      const int64_t start = (slack * i + (count - 1) / 2) / (count - 1);
      out.push_back(Window{doc, static_cast<int32_t>(i), start, config.max_len, 0});
    }
  }
  return out;
}

void copy_window(const TokenizedSplit& split, const Window& window, int32_t* out) {
  copy_window_values(split.doc_tokens(window.doc), split.doc_length(window.doc), window, out);
}

void copy_window_targets(const TokenizedSplit& split, const Window& window, int32_t* out) {
  copy_window_values(split.doc_targets(window.doc), split.doc_length(window.doc), window, out);
}

void copy_window_positions(const TokenizedSplit& split, const Window& window, int32_t* out) {
  copy_window_values(split.doc_positions(window.doc), split.doc_length(window.doc), window, out);
}

}  // namespace rotor
