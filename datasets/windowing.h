#pragma once
// Which tokens of a long document a model sees. Training windows may be drawn
// at random (re-drawn each epoch, as a pure function of seed, epoch and
// document); evaluation looks at the first window or at all of them.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "datasets/tokenized_split.h"
#include "engine/option_names.h"

namespace rotor {

enum class Truncation { head, tail, head_tail };
enum class EvalWindows { first, all };

template <>
struct OptionNames<Truncation> {
  static constexpr std::array<std::pair<Truncation, const char*>, 3> table{
      {{Truncation::head, "head"}, {Truncation::tail, "tail"}, {Truncation::head_tail, "head_tail"}}};
};
template <>
struct OptionNames<EvalWindows> {
  static constexpr std::array<std::pair<EvalWindows, const char*>, 2> table{
      {{EvalWindows::first, "first"}, {EvalWindows::all, "all"}}};
};

struct WindowConfig {
  int64_t max_len = 512;                     // tokens per window
  Truncation truncation = Truncation::head;  // how a single window cuts a long document
  bool random_train_windows = true;          // training: a random window instead of truncation
  EvalWindows eval_windows = EvalWindows::first;
  // The order control: every window's tokens in a random order (see shuffle_window).
  bool shuffle_tokens = false;
};

// The tokens [head_begin, head_begin + head_len) of a document, followed by its
// last `tail_len` tokens (tail_len > 0 only for head_tail truncation).
struct Window {
  int64_t doc = 0;
  int32_t index = 0;  // window number within the document
  int64_t head_begin = 0;
  int64_t head_len = 0;
  int64_t tail_len = 0;

  int64_t length() const { return head_len + tail_len; }
};

// One window per document for a training epoch. A split with per-token targets
// (a sequence task's) has each document whole in one window, and throws
// DataError naming data.max_len when one is longer than config.max_len.
std::vector<Window> train_windows(const TokenizedSplit& split, const WindowConfig& config, uint64_t seed,
                                  int64_t epoch);

// Evaluation windows: the truncated document (first), or ceil(length / max_len)
// full windows spread evenly from the start to the end of the document (all),
// so every token is seen and no window is a short leftover. A split with
// per-token targets: each document whole, as train_windows.
std::vector<Window> eval_windows(const TokenizedSplit& split, const WindowConfig& config);

// Writes the window's tokens to `out` (length() values).
void copy_window(const TokenizedSplit& split, const Window& window, int32_t* out);
// Writes the window's per-token targets to `out` (length() values); the split must have targets.
void copy_window_targets(const TokenizedSplit& split, const Window& window, int32_t* out);
// Writes the window's per-token positions to `out`; the split must have positions.
void copy_window_positions(const TokenizedSplit& split, const Window& window, int32_t* out);

}  // namespace rotor
