// Truncation, random training windows and evaluation windows.
#include "datasets/windowing.h"
#include "helpers.h"

#include <numeric>
#include <set>

using namespace rotor;

namespace {

// Documents whose token i is 100 + i, with the given lengths.
TokenizedSplit counting_split(const std::vector<int64_t>& lengths) {
  TokenizedSplit s;
  s.name = "train";
  for (int64_t len : lengths) {
    std::vector<int32_t> doc(static_cast<size_t>(len));
    std::iota(doc.begin(), doc.end(), 100);
    s.add(doc, 0);
  }
  return s;
}

std::vector<int32_t> tokens_of(const TokenizedSplit& s, const Window& w) {
  std::vector<int32_t> out(static_cast<size_t>(w.length()));
  copy_window(s, w, out.data());
  return out;
}

std::vector<int32_t> range(int32_t first, int32_t count) {
  std::vector<int32_t> v(static_cast<size_t>(count));
  std::iota(v.begin(), v.end(), first);
  return v;
}

}  // namespace

TEST_CASE("truncation keeps the head, the tail, or both ends", "[datasets][windowing]") {
  const TokenizedSplit s = counting_split({10, 3});
  WindowConfig c;
  c.max_len = 4;
  c.eval_windows = EvalWindows::first;

  c.truncation = Truncation::head;
  auto w = eval_windows(s, c);
  REQUIRE(w.size() == 2);
  CHECK(tokens_of(s, w[0]) == range(100, 4));
  CHECK(tokens_of(s, w[1]) == range(100, 3));  // short documents are whole

  c.truncation = Truncation::tail;
  CHECK(tokens_of(s, eval_windows(s, c)[0]) == range(106, 4));

  c.truncation = Truncation::head_tail;
  c.max_len = 5;
  CHECK(tokens_of(s, eval_windows(s, c)[0]) == std::vector<int32_t>{100, 101, 102, 108, 109});
}

TEST_CASE("random training windows are deterministic per (seed, epoch) and re-drawn each epoch",
          "[datasets][windowing]") {
  const TokenizedSplit s = counting_split({50, 50, 50, 50, 50, 50, 50, 50, 5});
  WindowConfig c;
  c.max_len = 8;
  const auto a = train_windows(s, c, 7, 0);
  const auto b = train_windows(s, c, 7, 0);
  const auto next_epoch = train_windows(s, c, 7, 1);
  const auto other_seed = train_windows(s, c, 8, 0);
  REQUIRE(a.size() == 9);
  std::set<int64_t> starts;
  bool epoch_differs = false, seed_differs = false;
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].head_begin == b[i].head_begin);
    CHECK(a[i].head_begin + a[i].length() <= s.doc_length(a[i].doc));
    CHECK(a[i].length() == std::min<int64_t>(8, s.doc_length(a[i].doc)));
    CHECK(tokens_of(s, a[i]) ==
          range(100 + static_cast<int32_t>(a[i].head_begin), static_cast<int32_t>(a[i].length())));
    starts.insert(a[i].head_begin);
    epoch_differs = epoch_differs || a[i].head_begin != next_epoch[i].head_begin;
    seed_differs = seed_differs || a[i].head_begin != other_seed[i].head_begin;
  }
  CHECK(starts.size() > 3);
  CHECK(epoch_differs);
  CHECK(seed_differs);

  c.random_train_windows = false;  // then training truncates like evaluation
  for (const Window& w : train_windows(s, c, 7, 0)) CHECK(w.head_begin == 0);
}

TEST_CASE("all evaluation windows cover the document with full windows", "[datasets][windowing]") {
  const TokenizedSplit s = counting_split({25, 8, 3, 16});
  WindowConfig c;
  c.max_len = 8;
  c.eval_windows = EvalWindows::all;
  const auto w = eval_windows(s, c);
  // ceil(25/8) = 4 windows, then 1, 1, 2.
  REQUIRE(w.size() == 8);
  CHECK(w[0].head_begin == 0);
  CHECK(w[3].head_begin == 17);  // the last window ends at the end
  std::vector<bool> covered(25, false);
  for (int i = 0; i < 4; ++i) {
    CHECK(w[i].doc == 0);
    CHECK(w[i].index == i);
    CHECK(w[i].length() == 8);
    for (int64_t t = w[i].head_begin; t < w[i].head_begin + 8; ++t) covered[t] = true;
  }
  CHECK(std::all_of(covered.begin(), covered.end(), [](bool b) { return b; }));
  CHECK(w[4].length() == 8);
  CHECK(w[5].length() == 3);
  CHECK(w[6].head_begin == 0);
  CHECK(w[7].head_begin == 8);
}

TEST_CASE("window settings are checked", "[datasets][windowing]") {
  WindowConfig c;
  c.max_len = 0;
  CHECK_THAT(test::data_error_of([&] { train_windows(counting_split({3}), c, 0, 0); }),
             Catch::Matchers::Contains("max_len: expected at least 1"));
  CHECK_FALSE(parse_option<Truncation>("both"));  // the config loader names data.truncation (test_config_choices)
}
