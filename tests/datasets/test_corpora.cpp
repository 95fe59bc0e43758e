// The fetched corpora against the counts in the reference notes. Skipped (with
// a message) when tools/fetch/*.sh have not been run.
#include "datasets/dataset.h"
#include "helpers.h"

#include <cstdlib>
#include <numeric>

using namespace rotor;

namespace {

std::string data_dir() {
  const char* env = std::getenv("ROTOR_DATA");
  return env != nullptr && *env != '\0' ? env : std::string(ROTOR_SOURCE_DIR) + "/data";
}

bool fetched(const std::string& file) {
  if (std::filesystem::exists(data_dir() + "/" + file)) return true;
  WARN("skipped: " << data_dir() << "/" << file << " is missing (run tools/fetch/*.sh to test the real corpora)");
  return false;
}

DataConfig corpus(const std::string& task) {
  DataConfig c;
  c.task = task;
  c.data_dir = data_dir();
  c.cache = false;
  return c;
}

}  // namespace

TEST_CASE("Brown corpus: 500 documents, 302/105/93 by file number, 15 and 4 genres", "[datasets][corpora]") {
  if (!fetched("brown/train.jsonl")) return;
  const Dataset d = load_dataset(corpus("brown"));
  CHECK(d.split("train").num_docs() == 302);
  CHECK(d.split("val").num_docs() == 105);
  CHECK(d.split("test").num_docs() == 93);
  REQUIRE(d.labels.size() == 15);
  CHECK(d.labels.name(0) == "adventure");
  // Per-genre counts from the reference notes, in the label order (sorted names).
  const std::vector<std::pair<std::string, int64_t>> genres = {
      {"adventure", 29}, {"belles_lettres", 75}, {"editorial", 27}, {"fiction", 29}, {"government", 30},
      {"hobbies", 36},   {"humor", 9},           {"learned", 80},   {"lore", 48},    {"mystery", 24},
      {"news", 44},      {"religion", 17},       {"reviews", 17},   {"romance", 29}, {"science_fiction", 6}};
  for (size_t g = 0; g < genres.size(); ++g) {
    INFO(genres[g].first);
    CHECK(d.labels.name(static_cast<int32_t>(g)) == genres[g].first);
    int64_t docs = 0;
    for (const SplitStats& s : d.stats.splits) docs += s.docs_per_class[g];
    CHECK(docs == genres[g].second);
  }
  // Untagged text: median 12,240 bytes per document.
  CHECK(d.stats.splits[0].tokens.median > 11500);
  CHECK(d.stats.splits[0].tokens.median < 13000);

  const Dataset coarse = load_dataset(corpus("brown-4"));
  CHECK(coarse.labels.names() == std::vector<std::string>{"fiction", "learned", "nonfiction", "press"});
  CHECK(coarse.split("train").num_docs() == 302);

  // A language model reads the same documents without their genres.
  DataConfig text_only = corpus("brown");
  text_only.labelled = false;
  const Dataset text = load_dataset(text_only);
  CHECK(text.labels.size() == 0);
  CHECK(text.split("train").tokens == d.split("train").tokens);
  CHECK(text.split("train").labels == std::vector<int32_t>(302, 0));
}

TEST_CASE("State of the Union: 233 speeches, 9 periods, split by speech", "[datasets][corpora]") {
  if (!fetched("sotu/speeches.jsonl")) return;
  const Dataset d = load_dataset(corpus("sotu"));
  int64_t speeches = 0;
  for (const SplitStats& s : d.stats.splits) speeches += s.docs;
  CHECK(speeches == 233);
  CHECK(d.labels.names() ==
        std::vector<std::string>{"1790", "1815", "1840", "1865", "1890", "1915", "1940", "1965", "1990"});
  CHECK(d.split("train").num_docs() > 160);
  CHECK(d.split("val").num_docs() > 10);
  CHECK(d.split("test").num_docs() > 10);
}

TEST_CASE("Austen: 269 chapters of six novels, 219/25/25 by chapter number, unlabelled", "[datasets][corpora]") {
  if (!fetched("austen/train.jsonl")) return;
  DataConfig c = corpus("austen");
  c.labelled = false;
  const Dataset d = load_dataset(c);
  CHECK(d.split("train").num_docs() == 219);
  CHECK(d.split("val").num_docs() == 25);
  CHECK(d.split("test").num_docs() == 25);
  CHECK(d.labels.size() == 0);
  // Byte tokens: 4,019,314 bytes of text, the title pages dropped.
  int64_t bytes = 0;
  for (const TokenizedSplit& s : d.splits) bytes += static_cast<int64_t>(s.tokens.size());
  CHECK(bytes == 4019314);
  // Book order: the first training chapter opens Emma.
  const std::vector<int32_t> opening = d.tokenizer->encode("Emma Woodhouse, handsome");
  const int32_t* first = d.split("train").doc_tokens(0);
  CHECK(std::vector<int32_t>(first, first + opening.size()) == opening);
}
