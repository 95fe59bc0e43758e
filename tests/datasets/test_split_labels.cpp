// Hash split and label vocabulary.
#include "datasets/label_vocab.h"
#include "datasets/split.h"
#include "helpers.h"

using namespace rotor;
using Catch::Matchers::Contains;

TEST_CASE("hash buckets agree with int(sha1(key).hexdigest()[:8], 16) % 100", "[datasets][split]") {
  // Expected values from `printf %s KEY | sha1sum`.
  CHECK(hash_bucket("abc") == 38);
  CHECK(hash_bucket("one") == 92);
  CHECK(hash_bucket("two") == 69);
  CHECK(hash_bucket("1790_george_washington_n") == 40);
  CHECK(hash_split("abc", 0.1, 0.1) == SplitPart::train);
  CHECK(hash_split("one", 0.1, 0.1) == SplitPart::test);
  CHECK(hash_split("1790_george_washington_n", 0.1, 0.1) == SplitPart::train);
  CHECK(hash_split("two", 0.25, 0.1) == SplitPart::val);  // 65 <= 69 < 90
}

TEST_CASE("hash split is stable and independent of the other documents", "[datasets][split]") {
  std::vector<Document> docs;
  for (int i = 0; i < 5000; ++i) docs.push_back(Document{"t", "l", "doc-" + std::to_string(i), ""});
  const SplitDocuments all = split_by_hash(docs, 0.1, 0.1);
  // About 80/10/10.
  CHECK(all.train.size() > 3800);
  CHECK(all.train.size() < 4200);
  CHECK(all.val.size() > 400);
  CHECK(all.test.size() > 400);
  // A document's split depends on its key alone: reversing the input or
  // dropping half of the documents changes no assignment.
  std::vector<Document> subset;
  for (size_t i = docs.size(); i-- > 0;) {
    if (i % 2 == 0) subset.push_back(docs[i]);
  }
  const SplitDocuments part = split_by_hash(subset, 0.1, 0.1);
  for (const Document& d : part.val) CHECK(hash_split(d.key, 0.1, 0.1) == SplitPart::val);
  size_t even_val = 0;
  for (const Document& d : all.val) even_val += std::stoi(d.key.substr(4)) % 2 == 0;
  CHECK(part.val.size() == even_val);
}

TEST_CASE("hash split fractions are checked", "[datasets][split]") {
  CHECK_THAT(test::data_error_of([] { hash_split("a", 1.5, 0.1); }), Contains("val_fraction: expected a fraction"));
  CHECK_THAT(test::data_error_of([] { hash_split("a", 0.5, 0.5); }), Contains("nothing left for train"));
}

TEST_CASE("label vocabulary: numeric order for integers, byte order otherwise", "[datasets][labels]") {
  auto docs = [](std::vector<std::string> labels) {
    std::vector<Document> out;
    for (auto& l : labels) out.push_back(Document{"x", l, "k", "f:1"});
    return out;
  };
  const LabelVocab ints = LabelVocab::build(docs({"10", "2", "0", "2", "-1"}));
  CHECK(ints.names() == std::vector<std::string>{"-1", "0", "2", "10"});
  const LabelVocab words = LabelVocab::build(docs({"neg", "pos", "10", "neg"}));
  CHECK(words.names() == std::vector<std::string>{"10", "neg", "pos"});
  CHECK(words.find("pos") == 2);
  CHECK(words.find("unsup") == -1);
  CHECK(words.encode(docs({"pos", "neg"}), "val") == std::vector<int32_t>{2, 1});

  const LabelVocab loaded = LabelVocab::load(words.save());
  CHECK(loaded.names() == words.names());
  CHECK_THAT(test::data_error_of([] {
               LabelVocab(std::vector<std::string>{"a", "b", "a"});
             }),
             Contains("duplicate class 'a'"));
  CHECK_THAT(test::data_error_of([&] { LabelVocab::build({}); }), Contains("training split is empty"));
}
