#pragma once
// Causal language-model windows over a token stream.
//
// A split's documents are concatenated into one stream, each followed by the
// tokenizer's SEP id as a document boundary (like GPT-2's end-of-text), and
// the stream is cut into windows of up to length + 1 tokens: a window's
// inputs are its first `length` tokens and its targets its last `length`,
// shifted by one. Windows start at 0, stride, 2 * stride, ...; with
// stride == length consecutive windows share one token, the last target of
// one being the first input of the next, so that no token of the stream is
// skipped as a target.
//
// Evaluation (Press et al., ALiBi, "sliding window evaluation"): with
// stride < length each window re-reads length - stride tokens of context the
// previous window already predicted, and scores only its new targets, so
// every target of the stream is scored exactly once and, after the first
// window, with at least length - stride tokens of context. stride == length
// is the non-overlapping evaluation (each target sees only its own window).
//
// Packing (data.lm_blocks): `stream` cuts the joined stream regardless of
// document boundaries (GPT-2's and RoBERTa's FULL-SENTENCES); `document` cuts
// each document with its SEP on its own, so no window spans two documents, a
// document's first window has no context from the one before, and its last
// window is shorter (padded in a batch). Either way a window knows where its
// first token sits in the joined stream, which keys a masked model's masks:
// a token is masked alike under both packings.
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "datasets/tokenized_split.h"
#include "engine/option_names.h"

namespace rotor {

enum class BlockPacking { stream, document };
template <>
struct OptionNames<BlockPacking> {
  static constexpr std::array<std::pair<BlockPacking, const char*>, 2> table{
      {{BlockPacking::stream, "stream"}, {BlockPacking::document, "document"}}};
};

// The split's documents in split order, each followed by `separator`.
std::vector<int32_t> token_stream(const TokenizedSplit& split, int32_t separator);

// The windows of `stream` as a split called `name`: window i holds
// stream[i * stride, min(i * stride + length + 1, stream.size())), and the
// windows go on until the stream's last token has been a target; the last
// window may be shorter (at least 2 tokens). labels[i] is not a class here
// but the number of leading targets of window i NOT to score, because an
// earlier window scored them: 0 for the first window and whenever
// stride == length, length - stride for the later windows of a sliding
// evaluation (always fewer than the window's targets). Throws DataError for
// length < 1, stride < 1, stride > length, or a stream of fewer than 2 tokens.
TokenizedSplit lm_blocks(const std::string& name, const std::vector<int32_t>& stream, int64_t length, int64_t stride);

// The windows of a split under `packing`, with starts[i] = the place of
// window i's first token in token_stream(split, separator). With `document`,
// each document is cut as lm_blocks cuts a stream (labels count the overlap
// within the document); a document without tokens has nothing to predict
// and no window. max_targets > 0 (a token budget for evaluation) keeps only
// the stream's first max_targets + 1 tokens, cutting the document they end
// in: cut at a multiple of every window length, each length scores the same
// targets.
struct StreamWindows {
  TokenizedSplit windows;
  std::vector<int64_t> starts;
};
StreamWindows lm_windows(const TokenizedSplit& split, int32_t separator, int64_t length, int64_t stride,
                         BlockPacking packing, int64_t max_targets = 0);

}  // namespace rotor
