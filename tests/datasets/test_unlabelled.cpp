// Unlabelled data for language models: data.format text (a folder of .txt
// files, or one file cut at blank lines), and labelled = false on any source.
#include "datasets/dataset.h"
#include "datasets/split.h"
#include "datasets/token_options.h"
#include "helpers.h"

using namespace rotor;
using Catch::Matchers::Contains;
using test::fixture;

namespace {

DataConfig unlabelled() {
  DataConfig c;
  c.cache = false;
  c.labelled = false;
  return c;
}

// A folder of `count` one-line .txt files, half of them one level down.
std::string text_folder(const test::TempDir& tmp, int count) {
  std::filesystem::create_directories(tmp.path("books/part"));
  for (int i = 0; i < count; ++i) {
    const std::string name = (i % 2 ? "books/part/" : "books/") + std::to_string(100 + i) + ".txt";
    tmp.write(name, "document " + std::to_string(i) + "\n");
  }
  tmp.write("books/notes.md", "not a .txt file");
  return tmp.path("books");
}

}  // namespace

TEST_CASE("text: a folder gives one document per .txt file, sorted, keyed by relative path", "[datasets][text]") {
  test::TempDir tmp;
  const std::string dir = text_folder(tmp, 4);
  const std::vector<Document> docs = read_documents(dir, unlabelled(), Labelled::yes);
  REQUIRE(docs.size() == 4);
  CHECK(docs[0].key == "100.txt");
  CHECK(docs[1].key == "102.txt");
  CHECK(docs[2].key == "part/101.txt");
  CHECK(docs[3].key == "part/103.txt");
  CHECK(docs[2].text == "document 1\n");
  CHECK(docs[2].label.empty());
  CHECK(docs[2].where == dir + "/part/101.txt");
}

TEST_CASE("text: a single file is cut into documents at blank lines", "[datasets][text]") {
  test::TempDir tmp;
  const std::string file = tmp.write("book.txt",
                                     "\xEF\xBB\xBF"
                                     "Chapter one.\nIt begins.\n\n  \t\nChapter two.\n\n\nEnd.");
  const std::vector<Document> docs = read_documents(file, unlabelled(), Labelled::yes);
  REQUIRE(docs.size() == 3);
  CHECK(docs[0].text == "Chapter one.\nIt begins.");
  CHECK(docs[0].key == docs[0].text);
  CHECK(docs[0].where == file + ":1");
  CHECK(docs[1].where == file + ":5");
  CHECK(docs[2].text == "End.");
  CHECK(docs[2].where == file + ":8");
  // Invalid UTF-8 is repaired and reported once.
  std::vector<std::string> warnings;
  const std::string bad = tmp.write("bad.txt", "a\xFFz\n\nb\xFE");
  const std::vector<Document> repaired =
      read_documents(bad, unlabelled(), Labelled::yes, [&](const std::string& w) { warnings.push_back(w); });
  CHECK(repaired[0].text == "a\xEF\xBF\xBDz");
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Contains("2 sequences in " + bad));
}

TEST_CASE("text: errors name the file", "[datasets][text][bad]") {
  test::TempDir tmp;
  const DataConfig c = unlabelled();
  std::filesystem::create_directories(tmp.path("empty"));
  CHECK(test::data_error_of([&] { read_documents(tmp.path("empty"), c, Labelled::yes); }) ==
        tmp.path("empty") + ": no documents (expected *.txt files in the folder or below it)");
  const std::string blank = tmp.write("blank.txt", "\n  \n\t\n");
  CHECK(test::data_error_of([&] { read_documents(blank, c, Labelled::yes); }) ==
        blank + ": no documents (the file has no text)");
  std::filesystem::create_directories(tmp.path("dir"));
  tmp.write("dir/a.txt", "text");
  const std::string empty = tmp.write("dir/b.txt", "");
  CHECK(test::data_error_of([&] { read_documents(tmp.path("dir"), c, Labelled::yes); }) == empty + ": empty text");
  CHECK(test::data_error_of([&] { read_documents(tmp.path("nope.txt"), c, Labelled::yes); }) ==
        "cannot open '" + tmp.path("nope.txt") + "': no such file");
  // A classifier cannot read text: it has no labels.
  DataConfig labelled = c;
  labelled.labelled = true;
  CHECK_THAT(test::data_error_of([&] { read_documents(blank, labelled, Labelled::yes); }),
             Contains("format: '" + blank + "' is text, which has no labels"));
}

TEST_CASE("unlabelled: a text folder splits by hash of the relative path, every label 0", "[datasets][text]") {
  test::TempDir tmp;
  DataConfig c = unlabelled();
  c.source_path = text_folder(tmp, 40);
  const Dataset d = load_dataset(c);
  CHECK(d.labels.size() == 0);
  CHECK(d.stats.classes.empty());
  CHECK_THAT(d.stats.report(), Contains("unlabelled") && !Contains("docs per class"));
  int64_t docs = 0;
  for (const TokenizedSplit& s : d.splits) {
    docs += s.num_docs();
    CHECK(s.labels == std::vector<int32_t>(static_cast<size_t>(s.num_docs()), 0));
  }
  CHECK(docs == 40);
  // The split of each file is that of its key's hash, as for any source_path.
  int64_t train = 0;
  for (int i = 0; i < 40; ++i) {
    const std::string key = (i % 2 ? "part/" : "") + std::to_string(100 + i) + ".txt";
    train += hash_split(key, 0.1, 0.1) == SplitPart::train;
  }
  CHECK(d.split("train").num_docs() == train);
}

TEST_CASE("unlabelled: labelled sources are read without their labels", "[datasets][text]") {
  test::TempDir tmp;
  DataConfig c = unlabelled();
  // No label field at all, and a single "class" would be no error.
  c.train_path = tmp.write("train.jsonl", "{\"text\": \"one\"}\n{\"text\": \"two\"}\n");
  c.val_path = c.test_path = tmp.write("held.jsonl", "{\"text\": \"three\", \"label\": \"x\"}\n");
  const Dataset d = load_dataset(c);
  CHECK(d.labels.size() == 0);
  CHECK(d.split("train").num_docs() == 2);
  // A class folder is read as text, every file below it a document.
  const std::vector<Document> docs = read_documents(fixture("folder/train"), unlabelled(), Labelled::yes);
  REQUIRE(docs.size() == 4);
  CHECK(docs[0].key == "neg/001.txt");
  CHECK(docs[0].label.empty());
  // include_labels filters by label: an error without labels.
  c.include_labels = {"x"};
  CHECK(test::data_error_of([&] { load_dataset(c); }) ==
        "data.include_labels: applies to labelled data only (this run reads unlabelled text)");
}

TEST_CASE("unlabelled: labelled is part of the cache key, austen needs it false", "[datasets][text][cache]") {
  DataConfig c;
  c.task = "listops-easy";
  const std::string labelled_key = token_cache_key(c, "", {});
  c.labelled = false;
  CHECK(token_cache_key(c, "", {}) != labelled_key);
  DataConfig austen;
  austen.task = "austen";
  CHECK_THAT(test::data_error_of([&] { load_dataset(austen); }),
             Contains("task: 'austen' is unlabelled text for language models"));
}
