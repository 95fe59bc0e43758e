// Every bad-input case of the datasets issue: a DataError whose message names
// the file, the line where there is one, and what was expected.
#include "datasets/csv_reader.h"
#include "datasets/dataset.h"
#include "datasets/folder_reader.h"
#include "datasets/jsonl_reader.h"
#include "helpers.h"

#include <functional>

using namespace rotor;
using Catch::Matchers::Contains;
using test::data_error_of;
using test::fixture;

namespace {

// A files-only config without cache, reading fixtures.
DataConfig files_config(const std::string& train, const std::string& val = "", const std::string& test = "") {
  DataConfig c;
  c.train_path = train;
  c.val_path = val;
  c.test_path = test;
  c.cache = false;
  return c;
}

}  // namespace

TEST_CASE("bad input: missing file", "[datasets][bad]") {
  Utf8Repairs r;
  const std::string path = fixture("bad/no_such_file.jsonl");
  CHECK(data_error_of([&] { read_jsonl(path, FieldNames{}, r); }) == "cannot open '" + path + "': no such file");
  CHECK_THAT(data_error_of([&] { read_csv(fixture("bad/none.csv"), ',', FieldNames{}, r); }),
             Contains("bad/none.csv': no such file"));
  CHECK_THAT(data_error_of([&] { read_folder(fixture("bad/no_folder"), r); }),
             Contains("cannot open folder '" + fixture("bad/no_folder") + "'"));
  CHECK_THAT(data_error_of([&] { read_jsonl(fixture("bad"), FieldNames{}, r); }), Contains("expected a regular file"));
}

TEST_CASE("bad input: empty dataset", "[datasets][bad]") {
  Utf8Repairs r;
  CHECK(data_error_of([&] { read_jsonl(fixture("bad/empty.jsonl"), FieldNames{}, r); }) ==
        fixture("bad/empty.jsonl") + ": no documents (expected one JSON object per line)");
  CHECK_THAT(data_error_of([&] { read_csv(fixture("bad/header_only.csv"), ',', FieldNames{}, r); }),
             Contains("header_only.csv: no documents (only a header row)"));
  test::TempDir dir;
  std::filesystem::create_directories(dir.path("split/label"));
  CHECK_THAT(data_error_of([&] { read_folder(dir.path("split"), r); }), Contains("split: no documents"));
  // A split that ends up empty is an error too.
  DataConfig c = files_config(fixture("bad/train_ab.jsonl"));
  c.val_fraction = 0.0;
  CHECK_THAT(data_error_of([&] { load_dataset(c); }), Contains("split 'val' has no documents"));
}

TEST_CASE("bad input: missing field", "[datasets][bad]") {
  Utf8Repairs r;
  CHECK(data_error_of([&] { read_jsonl(fixture("bad/missing_field.jsonl"), FieldNames{}, r); }) ==
        fixture("bad/missing_field.jsonl") + ":3: missing field 'label'");
  CHECK_THAT(data_error_of([&] {
               read_jsonl(fixture("sample.jsonl"), FieldNames{"body", "label", ""}, r);
             }),
             Contains("sample.jsonl:1: missing field 'body'"));
  CHECK_THAT(data_error_of([&] {
               read_csv(fixture("sample.csv"), ',', FieldNames{"text", "class", ""}, r);
             }),
             Contains("sample.csv:1: no column 'class' in the header (columns: id, text, label)"));
}

TEST_CASE("bad input: malformed JSON names line and column", "[datasets][bad]") {
  Utf8Repairs r;
  CHECK(data_error_of([&] { read_jsonl(fixture("bad/malformed.jsonl"), FieldNames{}, r); }) ==
        fixture("bad/malformed.jsonl") +
            ":2:25: syntax error while parsing object - unexpected string literal; expected '}'");
}

TEST_CASE("bad input: CSV with an unclosed quote names the line it opens on", "[datasets][bad]") {
  Utf8Repairs r;
  CHECK(data_error_of([&] { read_csv(fixture("bad/unclosed_quote.csv"), ',', FieldNames{}, r); }) ==
        fixture("bad/unclosed_quote.csv") +
            ":3: unclosed quote (a quoted field starts here and the file ends before its closing '\"')");
}

TEST_CASE("bad input: invalid UTF-8 is replaced, counted and warned once", "[datasets][bad][utf8]") {
  Utf8Repairs r;
  const auto docs = read_jsonl(fixture("bad/invalid_utf8.jsonl"), FieldNames{}, r);
  CHECK(docs[0].text == "good \xEF\xBF\xBD\xEF\xBF\xBD bytes");
  CHECK(docs[1].text == "more \xEF\xBF\xBD bad");
  CHECK(r.count == 3);
  CHECK(r.first_at == fixture("bad/invalid_utf8.jsonl") + ":1");

  DataConfig c = files_config(fixture("bad/invalid_utf8.jsonl"), fixture("bad/invalid_utf8.jsonl"),
                              fixture("bad/invalid_utf8.jsonl"));
  std::vector<std::string> warnings;
  const Dataset data = load_dataset(c, LoadOptions{{}, {}, [&](const std::string& w) { warnings.push_back(w); }});
  REQUIRE(warnings.size() == 1);  // three sources, nine repairs, one warning
  CHECK_THAT(warnings[0], Contains("invalid_utf8.jsonl:1: invalid UTF-8 replaced by U+FFFD (9 sequences"));
  CHECK(data.stats.invalid_utf8 == 9);
}

TEST_CASE("bad input: a val/test label never seen in train is listed", "[datasets][bad]") {
  const DataConfig c =
      files_config(fixture("bad/train_ab.jsonl"), fixture("bad/val_acd.jsonl"), fixture("bad/train_ab.jsonl"));
  CHECK(data_error_of([&] { load_dataset(c); }) == "labels in val never seen in train: 'c' (" +
                                                       fixture("bad/val_acd.jsonl") + ":2), 'd' (" +
                                                       fixture("bad/val_acd.jsonl") + ":3)");
}

TEST_CASE("bad input: a single-class training set", "[datasets][bad]") {
  const DataConfig c =
      files_config(fixture("bad/single_class.jsonl"), fixture("bad/train_ab.jsonl"), fixture("bad/train_ab.jsonl"));
  CHECK(data_error_of([&] { load_dataset(c); }) ==
        "training split has a single class 'a' (2 documents); classification needs at least two");
}

TEST_CASE("bad input: an empty text", "[datasets][bad]") {
  Utf8Repairs r;
  CHECK(data_error_of([&] { read_jsonl(fixture("bad/empty_text.jsonl"), FieldNames{}, r); }) ==
        fixture("bad/empty_text.jsonl") + ":2: empty text in field 'text'");
  CHECK(data_error_of([&] { read_csv(fixture("bad/empty_text.csv"), ',', FieldNames{}, r); }) ==
        fixture("bad/empty_text.csv") + ":3: empty text in field 'text'");
  test::TempDir dir;
  std::filesystem::create_directories(dir.path("split/pos"));
  dir.write("split/pos/1.txt", "\n");
  CHECK(data_error_of([&] { read_folder(dir.path("split"), r); }) == dir.path("split/pos/1.txt") + ": empty text");
}

TEST_CASE("bad input: unknown settings name the config key", "[datasets][bad]") {
  struct Case {
    std::function<void(DataConfig&)> change;
    std::string message;
  };
  const Case cases[] = {
      {[](DataConfig& c) { c.task = "imdb"; }, "task: unknown task 'imdb' (known: listops-easy"},
      {[](DataConfig& c) { c.train_path = fixture("bad/train_ab.dat"); }, "format: cannot tell the format"},
      {[](DataConfig& c) { c.train_path = fixture("bad/train_ab.txt"); }, "is text, which has no labels"},
      {[](DataConfig& c) { c.max_len = 0; }, "max_len: expected at least 1"},
  };
  for (const Case& k : cases) {
    DataConfig c = files_config(fixture("bad/train_ab.jsonl"));
    k.change(c);
    CHECK_THAT(data_error_of([&] { load_dataset(c); }), Contains(k.message));
  }
}
