// data.positions_field: a JSONL file gives each token its position; the
// positions travel with the tokens into the split, the cache and the batches.
#include "datasets/batcher.h"
#include "datasets/dataset.h"
#include "datasets/json_line.h"
#include "helpers.h"

using namespace rotor;
using Catch::Matchers::Contains;

namespace {

// Word tokens, so that a position per word is a position per token.
DataConfig positioned(const test::TempDir& dir, const std::string& train, const std::string& eval) {
  DataConfig c;
  c.cache = false;
  c.tokenizer = TokenizerKind::vocab;
  c.train_path = dir.write("train.jsonl", train);
  c.val_path = dir.write("val.jsonl", eval);
  c.test_path = dir.write("test.jsonl", eval);
  c.positions_field = "positions";
  return c;
}

const std::string kTrain =
    "{\"text\": \"a b c\", \"label\": \"x\", \"positions\": [0, 1, 2]}\n"
    "{\"text\": \"c b\", \"label\": \"y\", \"positions\": [5, 5]}\n"
    "{\"text\": \"b a c a\", \"label\": \"x\", \"positions\": [3, 2, 1, 1048576]}\n";
const std::string kEval = "{\"text\": \"a c\", \"label\": \"y\", \"positions\": [7, 0]}\n";

}  // namespace

TEST_CASE("parse_json_object keeps arrays of scalars and marks deeper ones nested", "[datasets][json]") {
  int64_t replaced = 0;
  const JsonObject o =
      parse_json_object(R"({"p": [3, 0, -1, 2.5, "x"], "q": [[1]], "r": [], "s": {"a": [1]}})", "f.jsonl:1", replaced);
  const JsonValue& p = *find_field(o, "p");
  REQUIRE(p.kind == JsonValue::Kind::array);
  REQUIRE(p.items.size() == 5);
  CHECK(p.items[0].text == "3");
  CHECK(p.items[2].text == "-1");
  CHECK(p.items[3].text == "2.5");
  CHECK(p.items[4].kind == JsonValue::Kind::string);
  CHECK(find_field(o, "q")->kind == JsonValue::Kind::nested);
  CHECK(find_field(o, "r")->kind == JsonValue::Kind::array);
  CHECK(find_field(o, "r")->items.empty());
  CHECK(find_field(o, "s")->kind == JsonValue::Kind::nested);
  CHECK(find_field(o, "s")->items.empty());
}

TEST_CASE("positions from a JSONL field reach the split and the batches", "[datasets][positions]") {
  test::TempDir dir;
  const Dataset d = load_dataset(positioned(dir, kTrain, kEval));
  const TokenizedSplit& train = d.split("train");
  REQUIRE(train.has_positions());
  CHECK(train.positions == std::vector<int32_t>{0, 1, 2, 5, 5, 3, 2, 1, 1048576});
  CHECK(d.split("val").positions == std::vector<int32_t>{7, 0});

  WindowConfig w;
  w.max_len = 3;  // the third document is cut to its first 3 tokens, positions alike
  const Batch b = make_batch(train, eval_windows(train, w), {0, 1, 2});
  REQUIRE(b.seq_len == 3);
  CHECK(b.positions == std::vector<int32_t>{0, 1, 2, 5, 5, 0, 3, 2, 1});
}

TEST_CASE("bad positions in a data file are refused naming the file, line and field", "[datasets][positions]") {
  test::TempDir dir;
  const auto error_for = [&](const std::string& line) {
    return test::data_error_of([&] { load_dataset(positioned(dir, kTrain + line, kEval)); });
  };
  const std::string at =
      "train.jsonl:4: field 'positions' (data.positions_field) must be a list of integers in "
      "[0, 1048576], one per token, found ";
  CHECK_THAT(error_for("{\"text\": \"a\", \"label\": \"x\"}\n"),
             Contains("train.jsonl:4: missing field 'positions' (data.positions_field: the run reads each "
                      "token's position from it)"));
  CHECK_THAT(error_for("{\"text\": \"a\", \"label\": \"x\", \"positions\": 3}\n"), Contains(at + "a number"));
  CHECK_THAT(error_for("{\"text\": \"a\", \"label\": \"x\", \"positions\": [-1]}\n"), Contains(at + "-1 at index 0"));
  CHECK_THAT(error_for("{\"text\": \"a b\", \"label\": \"x\", \"positions\": [0, 1.5]}\n"),
             Contains(at + "1.5 at index 1"));
  CHECK_THAT(error_for("{\"text\": \"a\", \"label\": \"x\", \"positions\": [1048577]}\n"),
             Contains(at + "1048577 at index 0"));
  CHECK_THAT(error_for("{\"text\": \"a\", \"label\": \"x\", \"positions\": [\"0\"]}\n"),
             Contains(at + "a string at index 0"));
  CHECK_THAT(error_for("{\"text\": \"a\", \"label\": \"x\", \"positions\": []}\n"), Contains(at + "an empty list"));
  CHECK_THAT(error_for("{\"text\": \"a b\", \"label\": \"x\", \"positions\": [0, 1, 2]}\n"),
             Contains("train.jsonl:4: 3 positions (data.positions_field) for a text of 2 tokens: give one position "
                      "per token of the run's tokenizer (vocab)"));
}

TEST_CASE("positions_field reads JSONL only, and no built-in task", "[datasets][positions]") {
  test::TempDir dir;
  DataConfig c = positioned(dir, kTrain, kEval);
  c.val_path = dir.write("val.csv", "text,label\na c,y\n");
  CHECK_THAT(test::data_error_of([&] { load_dataset(c); }),
             Contains("positions_field: '" + c.val_path +
                      "' is not JSONL; per-token positions are read from a JSONL "
                      "field"));
  DataConfig task;
  task.task = "listops-easy";
  task.positions_field = "positions";
  CHECK_THAT(test::data_error_of([&] { task.validate(); }), Contains("positions_field: reads per-token positions"));
}

TEST_CASE("the token cache keeps file positions and is keyed on the field", "[datasets][positions][cache]") {
  test::TempDir dir;
  DataConfig c = positioned(dir, kTrain, kEval);
  c.cache = true;
  c.cache_dir = dir.path("cache");
  const Dataset first = load_dataset(c);
  const Dataset cached = load_dataset(c);
  CHECK(cached.stats.from_cache);
  CHECK(cached.split("train").positions == first.split("train").positions);
  c.positions_field.clear();  // the same files without their positions: new tokens in the cache
  const Dataset plain = load_dataset(c);
  CHECK_FALSE(plain.stats.from_cache);
  CHECK_FALSE(plain.split("train").has_positions());
}
