// load_dataset end to end on fixtures and generated data.
#include "datasets/dataset.h"
#include "datasets/vocab_tokenizer.h"
#include "helpers.h"

using namespace rotor;
using Catch::Matchers::Contains;
using test::fixture;

namespace {

DataConfig uncached() {
  DataConfig c;
  c.cache = false;
  return c;
}

}  // namespace

TEST_CASE("load_dataset reads explicit split files", "[datasets][dataset]") {
  DataConfig c = uncached();
  c.train_path = fixture("sample.jsonl");
  c.val_path = fixture("sample.csv");
  c.test_path = fixture("sample.jsonl");
  c.format = DataFormat::automatic;  // from the extensions
  c.key_field = "id";
  c.include_labels = {"animals", "finance"};  // sample.csv's pos/neg are dropped...
  CHECK_THAT(test::data_error_of([&] { load_dataset(c); }), Contains("split 'val' has no documents"));
  c.include_labels.clear();  // ... and without the filter they are unknown classes
  CHECK_THAT(test::data_error_of([&] { load_dataset(c); }), Contains("labels in val never seen in train: 'neg'"));

  c.val_path = fixture("sample.jsonl");
  const Dataset d = load_dataset(c);
  CHECK(d.labels.names() == std::vector<std::string>{"animals", "finance"});
  REQUIRE(d.splits.size() == 3);
  CHECK(d.split("train").num_docs() == 4);
  CHECK(d.split("train").labels == std::vector<int32_t>{0, 1, 0, 1});
  CHECK(d.split("train").doc_length(0) == 22);  // bytes of "the cat sat on the mat"
  CHECK(d.stats.tokenizer == "byte");
  CHECK(d.stats.vocab_size == 260);
  CHECK(d.stats.splits[0].docs_per_class == std::vector<int64_t>{2, 2});
  CHECK(d.stats.splits[0].tokens.max == 27);
  CHECK_THAT(d.stats.report(), Contains("tokenizer byte (260 ids), 2 classes"));
  CHECK_THAT(test::data_error_of([&] { d.split("dev"); }), Contains("no split 'dev' (splits: train, val, test)"));
}

TEST_CASE("the vocab tokenizer's word options come from the data config", "[datasets][dataset]") {
  DataConfig c = uncached();
  c.train_path = c.val_path = c.test_path = fixture("sample.jsonl");
  c.key_field = "id";
  c.lowercase = true;
  CHECK_THAT(test::data_error_of([&] { load_dataset(c); }),
             Contains("lowercase: applies to the vocab tokenizer only (tokenizer is byte)"));
  c.tokenizer = TokenizerKind::vocab;
  c.split_punctuation = true;
  const Dataset d = load_dataset(c);
  const auto* vocab = dynamic_cast<const VocabTokenizer*>(d.tokenizer.get());
  REQUIRE(vocab != nullptr);
  CHECK(vocab->options().lowercase);
  CHECK(vocab->options().split_punctuation);
}

TEST_CASE("load_dataset splits one source by hash and carves val from train", "[datasets][dataset]") {
  test::TempDir dir;
  std::string lines;
  for (int i = 0; i < 300; ++i) {
    lines += "{\"id\": \"doc" + std::to_string(i) + "\", \"text\": \"word" + std::to_string(i % 7) +
             " text\", \"label\": " + std::to_string(i % 3) + "}\n";
  }
  DataConfig c = uncached();
  c.source_path = dir.write("all.jsonl", lines);
  c.key_field = "id";
  const Dataset d = load_dataset(c);
  const int64_t train = d.split("train").num_docs(), val = d.split("val").num_docs(), test = d.split("test").num_docs();
  CHECK(train + val + test == 300);
  CHECK(train > 200);
  CHECK(val > 15);
  CHECK(test > 15);
  CHECK(d.labels.names() == std::vector<std::string>{"0", "1", "2"});

  // Explicit test split, val carved out of train: with test_fraction unused,
  // val takes the top 10 buckets, which the 3-way split gave to test.
  DataConfig carved = uncached();
  carved.train_path = c.source_path;
  carved.test_path = dir.write("test.jsonl",
                               "{\"id\": \"t1\", \"text\": \"a\", \"label\": 1}\n"
                               "{\"id\": \"t2\", \"text\": \"b\", \"label\": 10}\n"
                               "{\"id\": \"t3\", \"text\": \"c\", \"label\": 2}\n");
  carved.key_field = "id";
  carved.include_labels = {"0", "1", "2"};
  const Dataset e = load_dataset(carved);
  CHECK(e.split("val").tokens == d.split("test").tokens);
  CHECK(e.split("train").num_docs() == train + val);
  CHECK(e.split("test").num_docs() == 2);  // label 10 is filtered out
}

TEST_CASE("load_dataset reads folder-per-class splits", "[datasets][dataset]") {
  DataConfig c = uncached();
  c.train_path = fixture("folder/train");
  c.val_path = fixture("folder/test");
  c.test_path = fixture("folder/test");
  c.tokenizer = TokenizerKind::vocab;
  const Dataset d = load_dataset(c);
  CHECK(d.labels.names() == std::vector<std::string>{"neg", "pos"});
  CHECK(d.split("train").num_docs() == 4);
  CHECK(d.split("test").num_docs() == 2);
  CHECK(d.stats.tokenizer == "vocab");
  // "great" and "awful" are not in the training vocabulary.
  CHECK(d.split("test").tokens == std::vector<int32_t>{Tokenizer::kUnkId, Tokenizer::kUnkId});
}

TEST_CASE("a saved tokenizer and label vocabulary are reused", "[datasets][dataset]") {
  DataConfig c = uncached();
  c.train_path = c.val_path = c.test_path = fixture("sample.jsonl");
  c.tokenizer = TokenizerKind::sentencepiece;
  c.vocab_size = 40;
  const Dataset first = load_dataset(c);
  CHECK(first.stats.tokenizer == "sentencepiece");
  // Reusing the run's tokenizer even though the config now says byte.
  c.tokenizer = TokenizerKind::byte;
  LoadOptions reuse;
  reuse.tokenizer = first.tokenizer->save();
  reuse.labels = {"finance", "animals"};
  const Dataset again = load_dataset(c, reuse);
  CHECK(again.stats.tokenizer == "sentencepiece");
  CHECK(again.split("train").tokens == first.split("train").tokens);
  CHECK(again.split("train").labels == std::vector<int32_t>{1, 0, 1, 0});
}

TEST_CASE("listops-easy loads with the vocab tokenizer and feeds samplers", "[datasets][dataset][listops]") {
  DataConfig c = uncached();
  c.task = "listops-easy";
  c.train_size = 2000;
  c.eval_size = 200;
  c.max_len = 64;
  c.batch_size = 50;
  const Dataset d = load_dataset(c);
  CHECK(d.stats.tokenizer == "vocab");
  CHECK(d.stats.vocab_size == 4 + 4 + 1 + 10);  // specials, operators, "]", digits
  CHECK(d.labels.size() == 10);
  CHECK(d.labels.name(7) == "7");
  CHECK(d.split("train").num_docs() == 2000);
  CHECK(d.stats.generated_attempts > 2400);
  CHECK(d.stats.splits[0].tokens.min >= 8);
  CHECK(d.stats.splits[0].tokens.max <= 64);
  CHECK_THAT(d.stats.report(), Contains("acceptance"));

  Sampler train = make_sampler(d, c, "train");
  CHECK(train.batches_in_epoch() == 40);
  Batch b;
  REQUIRE(train.next(b));
  CHECK(b.batch_size == 50);
  for (int32_t t : b.tokens) CHECK(t < d.stats.vocab_size);
  Sampler test = make_sampler(d, c, "test");
  int64_t rows = 0;
  while (test.next(b)) rows += b.batch_size;
  CHECK(rows == 200);
}

TEST_CASE("eval_max_len gives longer evaluation windows", "[datasets][dataset]") {
  DataConfig c = uncached();
  c.train_path = c.val_path = c.test_path = fixture("sample.jsonl");
  c.max_len = 8;
  c.eval_max_len = 16;
  c.eval_windows = EvalWindows::all;
  const Dataset d = load_dataset(c);
  CHECK(window_config(c, "train").max_len == 8);
  CHECK(window_config(c, "val").max_len == 16);
  Sampler val = make_sampler(d, c, "val");
  Batch b;
  REQUIRE(val.next(b));
  CHECK(b.seq_len == 16);
  CHECK(d.stats.splits[1].windows == 2 + 2 + 2 + 2);  // 22, 27, 20, 25 bytes in windows of 16
}

TEST_CASE("corpus tasks name the fetch script when the data is missing", "[datasets][dataset]") {
  test::TempDir dir;
  DataConfig c = uncached();
  c.data_dir = dir.path("nothing");
  c.task = "brown-4";
  CHECK_THAT(
      test::data_error_of([&] { load_dataset(c); }),
      Contains("task 'brown': '" + dir.path("nothing") + "/brown/train.jsonl' is missing; run tools/fetch/brown.sh"));
  c.task = "sotu";
  CHECK_THAT(test::data_error_of([&] { load_dataset(c); }), Contains("run tools/fetch/sotu.sh"));
}

TEST_CASE("read_documents honours data.format and reads unlabelled sources", "[datasets][dataset]") {
  test::TempDir tmp;
  DataConfig c = uncached();
  // An unknown extension says nothing: data.format decides.
  const std::string csv = tmp.write("docs.dat", "text,label\nthe cat,animals\nthe bank,finance\n");
  CHECK_THAT(test::data_error_of([&] { read_documents(csv, c, Labelled::yes); }), Contains("cannot tell the format"));
  c.format = DataFormat::csv;
  const std::vector<Document> labelled = read_documents(csv, c, Labelled::yes);
  REQUIRE(labelled.size() == 2);
  CHECK(labelled[1].label == "finance");

  const std::string jsonl = tmp.write("texts.jsonl", "{\"text\": \"a b\"}\n\n{\"text\": \"c\xff\"}\n");
  c.format = DataFormat::automatic;
  CHECK_THAT(test::data_error_of([&] { read_documents(jsonl, c, Labelled::yes); }), Contains("missing field 'label'"));
  std::vector<std::string> warnings;
  const std::vector<Document> texts =
      read_documents(jsonl, c, Labelled::no, [&](const std::string& w) { warnings.push_back(w); });
  REQUIRE(texts.size() == 2);
  CHECK(texts[0].label.empty());
  CHECK(texts[1].text == "c\xEF\xBF\xBD");
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Contains("texts.jsonl:3: invalid UTF-8 replaced by U+FFFD (1 sequences"));

  const std::string empty = tmp.write("empty.jsonl", "{\"text\": \"a\"}\n{\"text\": \" \"}\n");
  CHECK_THAT(test::data_error_of([&] { read_documents(empty, c, Labelled::no); }),
             Contains("empty.jsonl:2: empty text in field 'text'"));
}

TEST_CASE("documents to label carry their id: data.key_field, or id where present", "[datasets][dataset]") {
  test::TempDir tmp;
  DataConfig c = uncached();
  SECTION("JSONL: an id field where present, else no id") {
    const std::string path = tmp.write("in.jsonl",
                                       "{\"text\": \"a\", \"id\": \"doc-1\"}\n{\"text\": \"b\"}\n"
                                       "{\"text\": \"c\", \"id\": 7}\n");
    const std::vector<Document> docs = read_documents(path, c, Labelled::no);
    REQUIRE(docs.size() == 3);
    CHECK(docs[0].key == "doc-1");
    CHECK(docs[1].key.empty());
    CHECK(docs[2].key == "7");
  }
  SECTION("CSV and TSV: an id column") {
    c.format = DataFormat::csv;
    CHECK(read_documents(tmp.write("in.csv", "id,text\nx1,the cat\nx2,the dog\n"), c, Labelled::no)[1].key == "x2");
    c.format = DataFormat::tsv;
    const std::vector<Document> plain = read_documents(tmp.write("in.tsv", "text\nthe cat\n"), c, Labelled::no);
    REQUIRE(plain.size() == 1);
    CHECK(plain[0].key.empty());
  }
  SECTION("data.key_field names the id and is then required") {
    c.key_field = "name";
    c.format = DataFormat::csv;
    CHECK(read_documents(tmp.write("k.csv", "name,id,text\nn1,i1,the cat\n"), c, Labelled::no)[0].key == "n1");
    CHECK_THAT(test::data_error_of([&] { read_documents(tmp.write("nok.csv", "id,text\ni1,a\n"), c, Labelled::no); }),
               Contains("no column 'name'"));
  }
  SECTION("labelled documents still key by the text when key_field is empty") {
    const std::string path = tmp.write("l.jsonl", "{\"text\": \"a\", \"label\": \"x\", \"id\": \"z\"}\n");
    CHECK(read_documents(path, c, Labelled::yes)[0].key == "a");
  }
}

TEST_CASE("evaluation samplers use the effective evaluation length", "[datasets][dataset]") {
  DataConfig c = uncached();
  c.max_len = 8;
  CHECK(eval_max_len(c) == 8);
  c.eval_max_len = 3;
  CHECK(eval_max_len(c) == 3);
  const std::unique_ptr<Tokenizer> bytes = train_tokenizer(TokenizerConfig{}, {});
  const std::vector<Document> docs = {{"abcdefgh", "", "k", "f:1"}};
  const TokenizedSplit split = tokenize_documents("train", docs, *bytes, nullptr);
  CHECK(split.labels == std::vector<int32_t>{0});
  Sampler sampler = make_eval_sampler(split, c);  // a split called "train" is still evaluated
  Batch batch;
  REQUIRE(sampler.next(batch));
  CHECK(batch.seq_len == 3);
}

TEST_CASE("evaluation batches hold no more padded tokens than a training batch", "[datasets][dataset]") {
  DataConfig c = uncached();
  c.max_len = 512;
  c.batch_size = 32;
  CHECK(eval_batch_config(c, 512).batch_size == 32);  // at the training length: training's batches
  CHECK(eval_batch_config(c, 256).batch_size == 32);  // shorter windows: never more windows than training
  CHECK(eval_batch_config(c, 2048).batch_size == 8);
  CHECK(eval_batch_config(c, 3000).batch_size == 5);     // 32 * 512 / 3000 = 5.46: rounded down
  CHECK(eval_batch_config(c, 1 << 20).batch_size == 1);  // at least one window
  c.batch_tokens = 4096;                                 // a token budget caps every batch already
  CHECK(eval_batch_config(c, 2048).batch_size == 32);
  CHECK(eval_batch_config(c, 2048).batch_tokens == 4096);

  c.batch_tokens = 0;
  c.max_len = 4;
  c.batch_size = 6;
  c.eval_max_len = 8;  // twice the training length: 3 windows per batch
  const std::unique_ptr<Tokenizer> bytes = train_tokenizer(TokenizerConfig{}, {});
  std::vector<Document> docs;
  for (int i = 0; i < 7; ++i) docs.push_back({"abcdefgh", "", "k", "f:" + std::to_string(i)});
  const TokenizedSplit split = tokenize_documents("test", docs, *bytes, nullptr);
  Sampler sampler = make_eval_sampler(split, c);
  Batch batch;
  std::vector<int64_t> sizes;
  while (sampler.next(batch)) sizes.push_back(batch.batch_size);
  CHECK(sizes == std::vector<int64_t>{3, 3, 1});
}
