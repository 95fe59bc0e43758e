// ListOps: every generated expression is re-evaluated by an independent
// evaluator written from the spec, and lengths, labels and determinism are
// checked.
#include "datasets/tasks/builtin_tasks.h"
#include "datasets/tasks/listops.h"
#include "helpers.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <sstream>

using namespace rotor;
using Catch::Matchers::Contains;

namespace {

// Recursive-descent evaluation of a space-separated ListOps expression; also
// checks the grammar and returns the nesting depth (a digit alone is depth 1).
struct Evaluated {
  int value;
  int depth;
  int max_args;
};

Evaluated evaluate(const std::vector<std::string>& tokens, size_t& pos) {
  REQUIRE(pos < tokens.size());
  const std::string tok = tokens[pos++];
  if (tok.size() == 1 && tok[0] >= '0' && tok[0] <= '9') return {tok[0] - '0', 1, 0};
  REQUIRE((tok == "[MIN" || tok == "[MAX" || tok == "[MED" || tok == "[SM"));
  std::vector<int> args;
  int depth = 0, max_args = 0;
  while (pos < tokens.size() && tokens[pos] != "]") {
    const Evaluated e = evaluate(tokens, pos);
    args.push_back(e.value);
    depth = std::max(depth, e.depth);
    max_args = std::max(max_args, e.max_args);
  }
  REQUIRE(pos < tokens.size());  // the closing bracket
  ++pos;
  REQUIRE(args.size() >= 2);
  max_args = std::max(max_args, static_cast<int>(args.size()));
  std::sort(args.begin(), args.end());
  int value;
  if (tok == "[MIN") {
    value = args.front();
  } else if (tok == "[MAX") {
    value = args.back();
  } else if (tok == "[MED") {
    // numpy.median, then int(): the mean of the middle pair, truncated.
    const size_t n = args.size();
    value = n % 2 ? args[n / 2] : static_cast<int>((args[n / 2 - 1] + args[n / 2]) / 2.0);
  } else {
    value = std::accumulate(args.begin(), args.end(), 0) % 10;
  }
  return {value, depth + 1, max_args};
}

Evaluated evaluate(const std::string& text, size_t& length) {
  std::istringstream in(text);
  std::vector<std::string> tokens;
  for (std::string t; in >> t;) tokens.push_back(t);
  size_t pos = 0;
  const Evaluated e = evaluate(tokens, pos);
  CHECK(pos == tokens.size());
  length = tokens.size();
  return e;
}

void check_samples(const ListOpsConfig& config, const ListOpsData& data) {
  REQUIRE(data.splits.size() == config.splits.size());
  std::set<std::string> distinct;
  for (size_t i = 0; i < config.splits.size(); ++i) {
    const ListOpsSplit& spec = config.splits[i];
    REQUIRE(static_cast<int64_t>(data.splits[i].size()) == spec.size);
    for (const ListOpsSample& s : data.splits[i]) {
      size_t length = 0;
      const Evaluated e = evaluate(s.text, length);
      CHECK(e.value == s.value);
      CHECK(static_cast<int64_t>(length) == s.length);
      CHECK(s.length >= spec.min_tokens);
      CHECK(s.length <= spec.max_tokens);
      CHECK(e.depth <= config.max_depth);
      CHECK(e.max_args <= config.max_args);
      CHECK(s.text.find('(') == std::string::npos);
      distinct.insert(s.text);
    }
  }
  int64_t total = 0;
  for (const auto& s : data.splits) total += static_cast<int64_t>(s.size());
  CHECK(static_cast<int64_t>(distinct.size()) == total);  // deduplicated across splits
}

}  // namespace

TEST_CASE("the independent evaluator follows the spec", "[datasets][listops]") {
  size_t n = 0;
  CHECK(evaluate("[MAX 2 9 [MIN 4 7 ] 0 ]", n).value == 9);
  CHECK(n == 9);
  CHECK(evaluate("[MED 1 2 3 9 ]", n).value == 2);  // median 2.5 -> 2
  CHECK(evaluate("[MED 7 1 5 ]", n).value == 5);
  CHECK(evaluate("[SM 9 8 [MIN 7 3 ] ]", n).value == 0);
  CHECK(evaluate("[MIN [MAX 1 8 ] [SM 5 6 ] ]", n).depth == 3);  // the root is depth 1, as in gen()
}

TEST_CASE("generated ListOps expressions evaluate to their labels (LRA grammar)", "[datasets][listops]") {
  ListOpsConfig config;  // depth 10, 10 args
  config.splits = {{"train", 300, 20, 300}, {"val", 50, 20, 300}, {"test", 50, 301, 600}};
  const ListOpsData data = generate_listops(config, 42);
  check_samples(config, data);
  CHECK(data.attempts > 400);

  // Labels: all ten values occur; MIN/MAX make 0 and 9 the most frequent, as in LRA.
  std::vector<int> counts(10, 0);
  for (const auto& s : data.splits[0]) ++counts[s.value];
  for (int v = 0; v < 10; ++v) CHECK(counts[v] > 0);
  CHECK(*std::max_element(counts.begin(), counts.end()) < 300 * 30 / 100);
}

TEST_CASE("listops-easy is shallow, short, nested and balanced", "[datasets][listops]") {
  DataConfig c;
  c.task = "listops-easy";
  const ListOpsConfig config = listops_task_config(c);
  CHECK(config.max_depth == 3);
  const ListOpsData data = generate_listops(config, 0);
  check_samples(config, data);
  std::vector<int> counts(10, 0);
  for (const auto& s : data.splits[0]) {
    ++counts[s.value];
    CHECK(std::count(s.text.begin(), s.text.end(), '[') >= 2);
  }
  for (int v = 0; v < 10; ++v) {
    CHECK(counts[v] > 10000 * 6 / 100);
    CHECK(counts[v] < 10000 * 15 / 100);
  }
}

TEST_CASE("ListOps data is a pure function of config and seed", "[datasets][listops]") {
  ListOpsConfig config;
  config.max_depth = 4;
  config.max_args = 5;
  config.splits = {{"train", 200, 5, 60}};
  const ListOpsData a = generate_listops(config, 1);
  const ListOpsData b = generate_listops(config, 1);
  const ListOpsData c = generate_listops(config, 2);
  REQUIRE(a.splits[0].size() == b.splits[0].size());
  for (size_t i = 0; i < a.splits[0].size(); ++i) CHECK(a.splits[0][i].text == b.splits[0][i].text);
  CHECK(a.attempts == b.attempts);
  CHECK(a.splits[0][0].text != c.splits[0][0].text);
  // A draw depends on its number alone, not on the draws before it.
  const auto again = draw_listops(config, 1, 17, 1000);
  CHECK(again.has_value());
  CHECK(again->text == draw_listops(config, 1, 17, 1000)->text);
}

TEST_CASE("ListOps presets and size overrides", "[datasets][listops]") {
  DataConfig c;
  c.task = "listops-2k";
  ListOpsConfig lra = listops_task_config(c);
  CHECK(lra.max_depth == 10);
  CHECK(lra.max_args == 10);
  REQUIRE(lra.splits.size() == 3);
  CHECK(lra.splits[0].size == 96000);
  CHECK(lra.splits[0].min_tokens == 501);
  CHECK(lra.splits[0].max_tokens == 1999);
  c.task = "listops-extrap";
  c.train_size = 100;
  c.eval_size = 10;
  const ListOpsConfig ex = listops_task_config(c);
  REQUIRE(ex.splits.size() == 4);
  CHECK(ex.splits[0].size == 100);
  CHECK(ex.splits[0].max_tokens == 1000);
  CHECK(ex.splits[2].min_tokens == 1001);
  CHECK(ex.splits[3].name == "test_4k");
  CHECK(ex.splits[3].size == 10);
  CHECK(ex.splits[3].max_tokens == 4096);
  c.task = "listops-512";
  CHECK(listops_task_config(c).splits[1].max_tokens == 512);
}

TEST_CASE("listops-short reaches 1024 tokens with shallow trees and balanced values", "[datasets][listops]") {
  DataConfig c;
  c.task = "listops-short";
  c.train_size = 100;
  c.eval_size = 20;
  const ListOpsConfig config = listops_task_config(c);
  CHECK(config.max_depth == 4);
  CHECK(config.balanced);
  REQUIRE(config.splits.size() == 6);
  CHECK(config.splits[0].max_tokens == 128);
  CHECK(config.splits[5].name == "test_1024");
  CHECK(config.splits[5].min_tokens == 513);
  CHECK(config.splits[5].max_tokens == 1024);
  const ListOpsData data = generate_listops(config, 0);
  check_samples(config, data);
  for (size_t i = 0; i < data.splits.size(); ++i) {
    std::vector<int> counts(10, 0);
    for (const auto& s : data.splits[i]) ++counts[s.value];
    const int share = static_cast<int>(config.splits[i].size / 10);
    CHECK(counts == std::vector<int>(10, share));
  }
}

TEST_CASE("balanced ListOps splits take size / 10 trees of each value, the first values one more",
          "[datasets][listops]") {
  ListOpsConfig config;
  config.max_depth = 3;
  config.max_args = 5;
  config.balanced = true;
  config.splits = {{"train", 23, 5, 40}};
  const ListOpsData data = generate_listops(config, 3);
  std::vector<int> counts(10, 0);
  for (const auto& s : data.splits[0]) ++counts[s.value];
  CHECK(counts == std::vector<int>{3, 3, 3, 2, 2, 2, 2, 2, 2, 2});
}

TEST_CASE("ListOps configs are checked", "[datasets][listops]") {
  ListOpsConfig c;
  c.max_args = 1;
  CHECK_THAT(test::data_error_of([&] { generate_listops(c, 0); }), Contains("listops.max_args"));
  c = ListOpsConfig{};
  c.splits = {{"val", 5, 1, 10}};
  CHECK_THAT(test::data_error_of([&] { generate_listops(c, 0); }), Contains("first split to be 'train'"));
  c.splits = {{"train", 5, 10, 5}};
  CHECK_THAT(test::data_error_of([&] { generate_listops(c, 0); }), Contains("min_tokens <= max_tokens"));
  // Depth 2 with 3 args cannot exceed 5 tokens.
  c.max_depth = 2;
  c.max_args = 3;
  c.splits = {{"train", 5, 50, 60}};
  CHECK_THAT(test::data_error_of([&] { generate_listops(c, 0); }), Contains("only 0 of 5 samples"));
}
