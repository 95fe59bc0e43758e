#pragma once
// Options of the generated separation tasks (order, first-last, offset,
// recall, missing-duplicate, bigram: see datasets/tasks/separation_tasks.h), keys
// data.generated.* in a config file.
#include <cstdint>
#include <vector>

#include "engine/option_names.h"

namespace rotor {

// The positions a sequence task's tokens take: index gives token t position t (no
// explicit positions); coupled gives an arithmetic task's digits their significance
// (datasets/tasks/coupled_positions.h).
enum class TokenPositions { index, coupled };

template <>
struct OptionNames<TokenPositions> {
  static constexpr std::array<std::pair<TokenPositions, const char*>, 2> table{
      {{TokenPositions::index, "index"}, {TokenPositions::coupled, "coupled"}}};
};

// Bounds checked at config load, before anything is generated: a sample of at most 2^20 tokens, at most 10^8
// examples a split and 2^30 tokens in all (the shipped separation configs: 10^4 examples of up to 384 tokens).
constexpr double kMaxGeneratedSampleLen = 1 << 20;
constexpr double kMaxGeneratedExamples = 1e8;
constexpr double kMaxGeneratedTokens = 1 << 30;  // all of a separation task's splits together
constexpr double kMaxIndexHints = 1 << 16;

struct GeneratedTaskConfig {
  // Sample lengths in tokens of train, val and test, inclusive.
  int64_t min_len = 16;
  int64_t max_len = 64;
  // One extra test split per entry L: "test_<L>", lengths in (L/2, L].
  std::vector<int64_t> test_lengths = {128, 256};
  int64_t alphabet = 8;                              // V: filler / value symbols a, b, c, ... (2..26)
  int64_t keys = 128;                                // K: key symbols of recall (k0, k1, ...); test_256 needs 127
  int64_t offset = 4;                                // k: how far after the marker the offset task looks
  TokenPositions positions = TokenPositions::index;  // sequence tasks: the tokens' positions
  // Coupled positions: each training sample's count starts at a random offset in [0, this] (Cho et al.
  // 2024), so that an absolute encoding meets large positions in training; 0: none.
  int64_t position_offset = 0;
  // Addition in a decoder: each digit follows one of this many ordered hint symbols naming its significance
  // (Zhou et al. 2024; datasets/tasks/index_hints.h); 0: none.
  int64_t index_hints = 0;
};

}  // namespace rotor
