#include "trainers/diagnostics/recorded_windows.h"

#include <algorithm>

#include "trainers/config/config.h"
#include "trainers/diagnostics/model_forward.h"

namespace rotor {
namespace {

constexpr int64_t kWindowsPerForward = 16;

// The next batch of windows: the first max_len tokens of each document from `doc` on with 2 tokens or more,
// and their positions when the split has them (else `positions` stays empty).
int64_t next_windows(const TokenizedSplit& split, int64_t& doc, int64_t max_len, int64_t wanted,
                     std::vector<std::vector<int32_t>>& windows, std::vector<std::vector<int32_t>>& positions) {
  windows.clear();
  positions.clear();
  for (; doc < split.num_docs() && static_cast<int64_t>(windows.size()) < wanted; ++doc) {
    const int64_t n = std::min(split.doc_length(doc), max_len);
    if (n < 2) continue;
    windows.emplace_back(split.doc_tokens(doc), split.doc_tokens(doc) + n);
    if (split.has_positions()) positions.emplace_back(split.doc_positions(doc), split.doc_positions(doc) + n);
  }
  return static_cast<int64_t>(windows.size());
}

}  // namespace

int64_t for_each_recorded_batch(const Model& model, const TokenizedSplit& split, int64_t max_len, int64_t max_windows,
                                const RecordedBatchVisitor& visit) {
  std::vector<std::vector<int32_t>> windows, positions;
  // A capture holds one forward at one list of positions: windows at the data's own go one a forward.
  const int64_t per_forward = split.has_positions() ? 1 : kWindowsPerForward;
  int64_t doc = 0, seen = 0;
  while (seen < max_windows &&
         next_windows(split, doc, max_len, std::min(per_forward, max_windows - seen), windows, positions) > 0) {
    int64_t seq_len = 0;
    for (const auto& w : windows) seq_len = std::max<int64_t>(seq_len, static_cast<int64_t>(w.size()));
    std::vector<int32_t> tokens(windows.size() * static_cast<size_t>(seq_len), Tokenizer::kPadId), lengths;
    for (size_t b = 0; b < windows.size(); ++b) {
      std::copy(windows[b].begin(), windows[b].end(), tokens.begin() + static_cast<std::ptrdiff_t>(b * seq_len));
      lengths.push_back(static_cast<int32_t>(windows[b].size()));
    }
    AttentionRecorder recorder;
    ForwardContext ctx;
    ctx.attention_capture = &recorder;
    const ModelInput in{tokens, lengths, static_cast<int64_t>(windows.size()), seq_len,
                        positions.empty() ? nullptr : &positions.front()};
    run_forward(model, in, ctx);
    visit({recorder, tokens, seq_len, static_cast<int64_t>(windows.size())});
    seen += static_cast<int64_t>(windows.size());
  }
  if (seen == 0)
    throw ConfigError("split " + split.name + " has no document of 2 tokens or more to measure attention over");
  return seen;
}

}  // namespace rotor
