// A UTF-8 byte order mark at the start of a data file is accepted, as in
// configs (issue 11): editors on Windows write one. (JSONL: nlohmann's parser
// skips it; CSV: the reader strips it from the header.)
#include "datasets/csv_reader.h"
#include "datasets/jsonl_reader.h"
#include "helpers.h"

using namespace rotor;

TEST_CASE("readers skip a UTF-8 byte order mark at the start of the file", "[datasets][bom]") {
  test::TempDir dir;
  Utf8Repairs repairs;
  SECTION("JSONL") {
    const std::string path = dir.write("bom.jsonl",
                                       "\xEF\xBB\xBF{\"text\": \"a b\", \"label\": \"x\"}\n"
                                       "{\"text\": \"c\", \"label\": \"y\"}\n");
    const auto docs = read_jsonl(path, FieldNames{}, repairs);
    REQUIRE(docs.size() == 2);
    CHECK(docs[0].text == "a b");
  }
  SECTION("CSV: the first header name is 'text', not BOM + 'text'") {
    const std::string path = dir.write("bom.csv", "\xEF\xBB\xBFtext,label\na b,x\nc,y\n");
    const auto docs = read_csv(path, ',', FieldNames{}, repairs);
    REQUIRE(docs.size() == 2);
    CHECK(docs[1].text == "c");
  }
  CHECK(repairs.count == 0);
}
