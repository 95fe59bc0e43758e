// JSONL, CSV/TSV and folder-per-class readers on well-formed fixtures.
#include "datasets/csv_reader.h"
#include "datasets/folder_reader.h"
#include "datasets/jsonl_reader.h"
#include "helpers.h"

using namespace rotor;
using test::fixture;

TEST_CASE("read_jsonl reads text, label and key fields", "[datasets][jsonl]") {
  Utf8Repairs repairs;
  const auto docs = read_jsonl(fixture("sample.jsonl"), FieldNames{"text", "label", "id"}, repairs);
  REQUIRE(docs.size() == 4);  // the blank line is skipped
  CHECK(docs[0].text == "the cat sat on the mat");
  CHECK(docs[0].label == "animals");
  CHECK(docs[0].key == "a1");
  CHECK(docs[1].text == "stocks fell sharply \"today\"");
  CHECK(docs[2].text == "caf\xC3\xA9 \xF0\x9F\x98\x80 dogs bark");
  CHECK(docs[2].key == "3");  // numeric keys keep their literal
  CHECK(docs[2].where == fixture("sample.jsonl") + ":4");
  CHECK(docs[3].text == "bonds rally\nas rates drop");
  CHECK(repairs.count == 0);
}

TEST_CASE("read_jsonl accepts integer labels and uses the text as default key", "[datasets][jsonl]") {
  Utf8Repairs repairs;
  const auto docs = read_jsonl(fixture("int_labels.jsonl"), FieldNames{}, repairs);
  REQUIRE(docs.size() == 4);
  CHECK(docs[0].label == "0");
  CHECK(docs[2].label == "10");
  CHECK(docs[1].key == "three");
}

TEST_CASE("read_jsonl rejects labels that are neither strings nor integers", "[datasets][jsonl]") {
  test::TempDir dir;
  const auto path = dir.write("l.jsonl", "{\"text\": \"a\", \"label\": 1.5}\n");
  Utf8Repairs repairs;
  CHECK_THAT(test::data_error_of([&] { read_jsonl(path, FieldNames{}, repairs); }),
             Catch::Matchers::Contains(path + ":1: field 'label' must be a string or an integer, found 1.5"));
  const auto text_path = dir.write("t.jsonl", "{\"text\": 5, \"label\": 1}\n");
  CHECK_THAT(test::data_error_of([&] { read_jsonl(text_path, FieldNames{}, repairs); }),
             Catch::Matchers::Contains(":1: field 'text' must be a string, found a number"));
}

TEST_CASE("read_csv handles RFC 4180 quoting, CRLF and multi-line fields", "[datasets][csv]") {
  Utf8Repairs repairs;
  const auto docs = read_csv(fixture("sample.csv"), ',', FieldNames{"text", "label", "id"}, repairs);
  REQUIRE(docs.size() == 4);
  CHECK(docs[0].text == "plain text");
  CHECK(docs[0].key == "1");
  CHECK(docs[1].text == "a, quoted \"field\"");
  CHECK(docs[1].label == "neg");
  CHECK(docs[2].text == "spans\ntwo lines");
  CHECK(docs[2].where == fixture("sample.csv") + ":4");
  CHECK(docs[3].text == "last");
  CHECK(docs[3].where == fixture("sample.csv") + ":7");  // after the blank line
}

TEST_CASE("read_csv reads TSV with a tab delimiter", "[datasets][csv]") {
  Utf8Repairs repairs;
  const auto docs = read_csv(fixture("sample.tsv"), '\t', FieldNames{}, repairs);
  REQUIRE(docs.size() == 2);
  CHECK(docs[0].text == "first doc");
  CHECK(docs[1].text == "quoted\twith tab");
  CHECK(docs[1].label == "y");
}

TEST_CASE("read_csv reports malformed rows with their line", "[datasets][csv]") {
  test::TempDir dir;
  Utf8Repairs repairs;
  struct Case {
    std::string content, message;
  };
  const Case cases[] = {
      {"text,label\na,b,c\n", "f.csv:2: expected 2 fields as in the header, found 3"},
      {"text,label\nab\"c,d\n", "f.csv:2:3: quote inside an unquoted field"},
      {"text,label\n\"ab\"c,d\n", "f.csv:2:5: expected a delimiter or end of line after a closing quote"},
      {"name,label\nx,y\n", "f.csv:1: no column 'text' in the header (columns: name, label)"},
  };
  for (const Case& c : cases) {
    const auto path = dir.write("f.csv", c.content);
    CHECK_THAT(test::data_error_of([&] { read_csv(path, ',', FieldNames{}, repairs); }),
               Catch::Matchers::EndsWith(c.message));
  }
}

TEST_CASE("read_folder reads <dir>/<label>/*.txt in sorted order", "[datasets][folder]") {
  Utf8Repairs repairs;
  const auto docs = read_folder(fixture("folder/train"), repairs);
  REQUIRE(docs.size() == 4);  // notes.md is not a .txt file
  CHECK(docs[0].label == "neg");
  CHECK(docs[0].text == "a bad film\n");
  CHECK(docs[0].key == "neg/001.txt");
  CHECK(docs[3].label == "pos");
  CHECK(docs[3].key == "pos/002.txt");
  CHECK(docs[3].where == fixture("folder/train/pos/002.txt"));
}
