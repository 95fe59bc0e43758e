// Causal LM windows: every target of the stream scored exactly once, with the
// context its window gives, for non-overlapping and sliding evaluation.
#include <random>

#include "datasets/lm_windows.h"
#include "helpers.h"

using namespace rotor;
using Catch::Matchers::Contains;

namespace {

// A stream whose token at position p is p, so a window's tokens say where it starts.
std::vector<int32_t> positions(int64_t size) {
  std::vector<int32_t> stream(static_cast<size_t>(size));
  for (int64_t p = 0; p < size; ++p) stream[static_cast<size_t>(p)] = static_cast<int32_t>(p);
  return stream;
}

// Checks the windows of `size` positions and returns how often each target was scored.
void check_blocks(int64_t size, int64_t length, int64_t stride) {
  INFO("stream " << size << ", length " << length << ", stride " << stride);
  const std::vector<int32_t> stream = positions(size);
  const TokenizedSplit blocks = lm_blocks("val", stream, length, stride);
  std::vector<int> scored(static_cast<size_t>(size), 0);
  for (int64_t w = 0; w < blocks.num_docs(); ++w) {
    const int64_t start = w * stride;
    const int64_t n = blocks.doc_length(w);
    const int32_t* tokens = blocks.doc_tokens(w);
    REQUIRE(n >= 2);
    REQUIRE(n <= length + 1);
    REQUIRE(start + n <= size);
    // The window's tokens are the stream's, from its start on.
    bool contiguous = true;
    for (int64_t k = 0; k < n; ++k) contiguous = contiguous && tokens[k] == start + k;
    REQUIRE(contiguous);
    // Only the last window is short, and it ends the stream.
    if (w + 1 < blocks.num_docs()) REQUIRE(n == length + 1);
    if (w + 1 == blocks.num_docs()) REQUIRE(start + n == size);
    const int32_t skip = blocks.labels[w];
    REQUIRE(skip == (w == 0 ? 0 : length - stride));
    REQUIRE(skip < n - 1);  // every window scores at least one target
    for (int64_t i = skip; i < n - 1; ++i) {
      // Input i predicts target i + 1 from the window's tokens 0..i: a context
      // of i + 1 tokens, all of the stream before the target in the first
      // window, and at least length - stride + 1 of them after it.
      const int64_t target = tokens[i + 1];
      REQUIRE(target == start + i + 1);
      REQUIRE(i + 1 >= std::min(target, length - stride + 1));
      ++scored[static_cast<size_t>(target)];
    }
  }
  CHECK(scored[0] == 0);  // the first token has no context to be predicted from
  for (int64_t t = 1; t < size; ++t) REQUIRE(scored[static_cast<size_t>(t)] == 1);
}

}  // namespace

TEST_CASE("lm_blocks: consecutive windows share one token when stride == length", "[datasets][lm]") {
  const TokenizedSplit blocks = lm_blocks("train", positions(10), 4, 4);
  REQUIRE(blocks.num_docs() == 3);
  CHECK(std::vector<int32_t>(blocks.doc_tokens(0), blocks.doc_tokens(1)) == std::vector<int32_t>{0, 1, 2, 3, 4});
  CHECK(std::vector<int32_t>(blocks.doc_tokens(1), blocks.doc_tokens(2)) == std::vector<int32_t>{4, 5, 6, 7, 8});
  CHECK(std::vector<int32_t>(blocks.doc_tokens(2), blocks.doc_tokens(2) + 2) == std::vector<int32_t>{8, 9});
  CHECK(blocks.labels == std::vector<int32_t>{0, 0, 0});
  CHECK(blocks.name == "train");
  // A stream of length + 1 tokens is one full window.
  CHECK(lm_blocks("train", positions(5), 4, 4).num_docs() == 1);
  CHECK(lm_blocks("train", positions(2), 4, 1).num_docs() == 1);
}

TEST_CASE("lm_blocks: a sliding window skips the targets the previous window scored", "[datasets][lm]") {
  const TokenizedSplit blocks = lm_blocks("val", positions(9), 4, 2);
  // Windows at 0, 2, 4: [0..4], [2..6], [4..8]; the later ones skip 4 - 2 targets.
  REQUIRE(blocks.num_docs() == 3);
  CHECK(blocks.labels == std::vector<int32_t>{0, 2, 2});
  CHECK(blocks.doc_tokens(2)[0] == 4);
  CHECK(blocks.doc_length(2) == 5);
}

TEST_CASE("lm_blocks: every target scored exactly once with its window's context (property)", "[datasets][lm]") {
  std::mt19937_64 rng(23);
  for (const int64_t length : {1, 2, 3, 7, 64, 255, 4096}) {
    std::vector<int64_t> strides{length, 1, std::max<int64_t>(1, length / 2), std::max<int64_t>(1, length - 1)};
    strides.push_back(1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(length)));
    for (const int64_t stride : strides) {
      if (length == 4096 && stride < 64) continue;  // a window per token over 10^4 tokens: slow, and covered above
      for (int trial = 0; trial < 4; ++trial) {
        const int64_t size = 2 + static_cast<int64_t>(rng() % static_cast<uint64_t>(3 * length + 20));
        check_blocks(size, length, stride);
      }
      check_blocks(length + 1, length, stride);  // exactly one window
      check_blocks(length + 2, length, stride);  // one token over
    }
  }
  check_blocks(100000, 128, 128);  // positions up to 1e5
  check_blocks(100000, 512, 384);
}

TEST_CASE("token_stream: documents in order, each followed by the separator", "[datasets][lm]") {
  TokenizedSplit split;
  split.add({5, 6, 7}, 0);
  split.add({8}, 0);
  split.add({9, 10}, 0);
  CHECK(token_stream(split, 2) == std::vector<int32_t>{5, 6, 7, 2, 8, 2, 9, 10, 2});
  CHECK(token_stream(TokenizedSplit{}, 2).empty());
}

TEST_CASE("lm_blocks: bad lengths and strides are errors", "[datasets][lm][bad]") {
  const std::vector<int32_t> stream = positions(10);
  CHECK(test::data_error_of([&] { lm_blocks("val", stream, 0, 1); }) == "lm windows: length must be at least 1, got 0");
  CHECK(test::data_error_of([&] { lm_blocks("val", stream, 4, 0); }) ==
        "lm windows: stride must be in [1, length = 4], got 0");
  CHECK(test::data_error_of([&] { lm_blocks("val", stream, 4, 5); }) ==
        "lm windows: stride must be in [1, length = 4], got 5");
  CHECK(test::data_error_of([&] { lm_blocks("val", positions(1), 4, 4); }) ==
        "lm windows: split 'val' has 1 tokens; a window needs at least 2 (an input and its target)");
}

namespace {

// Documents of the given lengths whose tokens are their places in the joined
// stream (documents each followed by a separator), so a window's tokens say
// where it sits; the separator is -1 so it stands out.
TokenizedSplit documents_at_their_places(const std::vector<int64_t>& lengths) {
  TokenizedSplit split;
  split.name = "val";
  int32_t place = 0;
  for (const int64_t n : lengths) {
    std::vector<int32_t> doc;
    for (int64_t i = 0; i < n; ++i) doc.push_back(place++);
    split.add(doc, 0);
    ++place;  // the separator's place
  }
  return split;
}

}  // namespace

TEST_CASE("lm_windows: document packing never crosses a document and keeps stream places", "[datasets][lm]") {
  std::mt19937_64 rng(7);
  for (const auto& [length, stride] : std::vector<std::pair<int64_t, int64_t>>{{4, 4}, {4, 1}, {8, 3}, {16, 16}}) {
    std::vector<int64_t> lengths{0, 1, 3, 4, 5, 0};
    for (int i = 0; i < 30; ++i) lengths.push_back(static_cast<int64_t>(rng() % 40));
    const TokenizedSplit split = documents_at_their_places(lengths);
    const std::vector<int32_t> stream = token_stream(split, -1);
    const StreamWindows cut = lm_windows(split, -1, length, stride, BlockPacking::document);
    REQUIRE(cut.starts.size() == static_cast<size_t>(cut.windows.num_docs()));
    std::vector<int> scored(stream.size(), 0);
    for (int64_t w = 0; w < cut.windows.num_docs(); ++w) {
      const int64_t start = cut.starts[static_cast<size_t>(w)], n = cut.windows.doc_length(w);
      INFO("length " << length << ", stride " << stride << ", window " << w << " at " << start);
      REQUIRE(n >= 2);
      REQUIRE(n <= length + 1);
      for (int64_t t = 0; t < n; ++t) CHECK(cut.windows.doc_tokens(w)[t] == stream[static_cast<size_t>(start + t)]);
      // Only the window's last token may be a separator: its document ends there.
      for (int64_t t = 0; t + 1 < n; ++t) CHECK(cut.windows.doc_tokens(w)[t] != -1);
      for (int64_t t = cut.windows.labels[w] + 1; t < n; ++t) ++scored[static_cast<size_t>(start + t)];
    }
    // Every token that has a token of its own document (or the document's start) before it is a target
    // exactly once; a document's first token is not (nothing of its document precedes it).
    int64_t place = 0;
    for (const int64_t n : lengths) {
      for (int64_t i = 0; i <= n; ++i) CHECK(scored[static_cast<size_t>(place + i)] == (i == 0 || n == 0 ? 0 : 1));
      place += n + 1;
    }
  }
}

TEST_CASE("lm_windows: stream packing is lm_blocks with starts at multiples of the stride", "[datasets][lm]") {
  const TokenizedSplit split = documents_at_their_places({5, 0, 7, 2});
  const StreamWindows cut = lm_windows(split, -1, 4, 3, BlockPacking::stream);
  const TokenizedSplit blocks = lm_blocks("val", token_stream(split, -1), 4, 3);
  CHECK(cut.windows.tokens == blocks.tokens);
  CHECK(cut.windows.labels == blocks.labels);
  REQUIRE(cut.starts.size() == static_cast<size_t>(blocks.num_docs()));
  for (size_t i = 0; i < cut.starts.size(); ++i) CHECK(cut.starts[i] == static_cast<int64_t>(3 * i));
  CHECK(test::data_error_of([] {
          lm_windows(documents_at_their_places({0, 0}), -1, 4, 4, BlockPacking::document);
        }) == "lm windows: split 'val' has no document with a token to predict");
}

namespace {

// The stream places a cut scores, in order.
std::vector<int64_t> scored_places(const StreamWindows& cut) {
  std::vector<int64_t> places;
  for (int64_t w = 0; w < cut.windows.num_docs(); ++w)
    for (int64_t t = cut.windows.labels[w] + 1; t < cut.windows.doc_length(w); ++t)
      places.push_back(cut.starts[static_cast<size_t>(w)] + t);
  return places;
}

}  // namespace

TEST_CASE("lm_windows: a token budget scores the stream's first targets, the same at every length", "[datasets][lm]") {
  std::mt19937_64 rng(11);
  std::vector<int64_t> lengths{3, 0, 9};
  for (int i = 0; i < 40; ++i) lengths.push_back(static_cast<int64_t>(rng() % 30));
  const TokenizedSplit split = documents_at_their_places(lengths);
  const auto stream_size = static_cast<int64_t>(token_stream(split, -1).size());
  for (const BlockPacking packing : {BlockPacking::stream, BlockPacking::document}) {
    const std::vector<int64_t> all = scored_places(lm_windows(split, -1, 8, 8, packing));
    for (const int64_t budget : {int64_t{1}, int64_t{48}, int64_t{97}, stream_size - 1, stream_size + 50}) {
      std::vector<int64_t> expected;  // the unbudgeted targets up to place `budget`
      for (const int64_t p : all)
        if (p <= budget) expected.push_back(p);
      for (const auto& [length, stride] : std::vector<std::pair<int64_t, int64_t>>{{4, 4}, {8, 8}, {16, 16}, {8, 3}}) {
        INFO("packing " << option_name(packing) << ", budget " << budget << ", length " << length << ", stride "
                        << stride);
        const StreamWindows cut = lm_windows(split, -1, length, stride, packing, budget);
        CHECK(scored_places(cut) == expected);
        for (int64_t w = 0; w < cut.windows.num_docs(); ++w) CHECK(cut.windows.doc_length(w) <= length + 1);
      }
    }
  }
}
