// byte, vocab and sentencepiece tokenizers, and their saved form.
#include "datasets/byte_tokenizer.h"
#include "datasets/sentencepiece_tokenizer.h"
#include "datasets/vocab_tokenizer.h"
#include "helpers.h"

#include <algorithm>

using namespace rotor;
using Catch::Matchers::Contains;

namespace {

// A small corpus with enough repetition for SentencePiece to learn pieces.
std::vector<std::string> tokenizer_corpus() {
  const char* words[] = {"the", "model",  "reads",  "long",      "documents", "and",  "learns",    "positions",
                         "of",  "tokens", "rotary", "encodings", "relative",  "bias", "sinusoidal"};
  std::vector<std::string> texts;
  for (int d = 0; d < 40; ++d) {
    std::string text;
    for (int line = 0; line < 5; ++line) {
      for (int w = 0; w < 12; ++w) text += std::string(words[(d * 7 + line * 3 + w * w) % 15]) + " ";
      text += "\n";
    }
    texts.push_back(text);
  }
  return texts;
}

std::vector<std::string_view> views(const std::vector<std::string>& texts) {
  return std::vector<std::string_view>(texts.begin(), texts.end());
}

}  // namespace

TEST_CASE("byte tokenizer maps bytes after the special tokens", "[datasets][tokenizer]") {
  ByteTokenizer t;
  CHECK(t.vocab_size() == 260);
  CHECK(t.pad_id() == 0);
  CHECK(t.cls_id() == 1);
  CHECK(t.sep_id() == 2);
  CHECK(t.unk_id() == 3);
  CHECK(t.encode("A\xC3\xA9") == std::vector<int32_t>{4 + 65, 4 + 0xC3, 4 + 0xA9});  // no CLS, no SEP
  CHECK(t.encode("").empty());
  const auto loaded = load_tokenizer(t.save());
  CHECK(loaded->name() == "byte");
  CHECK(loaded->encode("xyz") == t.encode("xyz"));
}

TEST_CASE("vocab tokenizer orders by frequency and maps unseen words to UNK", "[datasets][tokenizer]") {
  const std::vector<std::string> texts = {"b a c a", "a\tb\n d", "c a"};
  const auto t = VocabTokenizer::train(views(texts), 0, 1);
  CHECK(t->tokens() == std::vector<std::string>{"a", "b", "c", "d"});  // a:4, b:2, c:2 (ties by bytes), d:1
  CHECK(t->vocab_size() == 8);
  CHECK(t->encode("  a d\tzzz b ") == std::vector<int32_t>{4, 7, Tokenizer::kUnkId, 5});

  const auto frequent = VocabTokenizer::train(views(texts), 0, 2);
  CHECK(frequent->tokens() == std::vector<std::string>{"a", "b", "c"});
  const auto small = VocabTokenizer::train(views(texts), 6, 1);  // 4 special + 2
  CHECK(small->tokens() == std::vector<std::string>{"a", "b"});
  CHECK_THAT(test::data_error_of([&] { VocabTokenizer::train(views(texts), 3, 1); }), Contains("vocab_size"));

  const auto loaded = load_tokenizer(t->save());
  CHECK(loaded->name() == "vocab");
  CHECK(loaded->vocab_size() == t->vocab_size());
  CHECK(loaded->encode("d c b a q") == t->encode("d c b a q"));
}

TEST_CASE("vocab tokenizer: lowercase and split_punctuation for natural-language text", "[datasets][tokenizer]") {
  const std::vector<std::string> texts = {"In the beginning God created the heaven and the earth.",
                                          "And the earth was without form; and God said, Let there be light."};
  SECTION("off by default: case-sensitive, punctuation attached") {
    const auto t = VocabTokenizer::train(views(texts), 0, 1);
    CHECK(t->encode("earth.") != t->encode("earth"));
    CHECK(t->encode("The") == std::vector<int32_t>{Tokenizer::kUnkId});
    CHECK(t->save().find("options") == std::string::npos);  // saved as before the options existed
  }
  SECTION("lowercase") {
    const auto t = VocabTokenizer::train(views(texts), 0, 1, VocabOptions{true, false});
    CHECK(t->encode("THE The the") == std::vector<int32_t>(3, t->encode("the")[0]));
    CHECK(std::count(t->tokens().begin(), t->tokens().end(), "and") == 1);  // "And" counted as "and"
    CHECK(t->encode("earth.") != t->encode("earth"));
  }
  SECTION("split_punctuation") {
    const auto t = VocabTokenizer::train(views(texts), 0, 1, VocabOptions{false, true});
    const std::vector<int32_t> earth_dot = t->encode("earth.");
    REQUIRE(earth_dot.size() == 2);
    CHECK(earth_dot[0] == t->encode("earth")[0]);
    CHECK(earth_dot[0] != Tokenizer::kUnkId);
    CHECK(earth_dot[1] == t->encode(".")[0]);
    CHECK(t->encode("said,Let;").size() == 4);    // said , Let ;
    CHECK(t->encode("And") != t->encode("and"));  // case kept
  }
  SECTION("both, and the options survive save and load") {
    const auto t = VocabTokenizer::train(views(texts), 0, 1, VocabOptions{true, true});
    CHECK(t->encode("The EARTH, and light.") == t->encode("the earth , and light ."));
    const std::string saved = t->save();
    CHECK(saved.rfind("rotor-tokenizer vocab\noptions lowercase split_punctuation\n", 0) == 0);
    const auto loaded = load_tokenizer(saved);
    CHECK(loaded->vocab_size() == t->vocab_size());
    CHECK(loaded->encode("Let THERE be Light!") == t->encode("Let THERE be Light!"));
    CHECK(load_tokenizer(load_tokenizer(saved)->save())->save() == saved);
  }
  SECTION("a damaged options line is named") {
    CHECK_THAT(test::data_error_of([] { load_tokenizer("rotor-tokenizer vocab\noptions uppercase\na\n"); }),
               Contains("unknown option 'uppercase'"));
    CHECK_THAT(test::data_error_of([] { load_tokenizer("rotor-tokenizer vocab\nflags lowercase\na\n"); }),
               Contains("expected a first line 'options ...'"));
  }
}

TEST_CASE("sentencepiece trains, keeps the special ids and round-trips", "[datasets][tokenizer][sentencepiece]") {
  const auto texts = tokenizer_corpus();
  for (const SpmModelType type : {SpmModelType::unigram, SpmModelType::bpe}) {
    INFO(option_name(type));
    const auto t = SentencePieceTokenizer::train(views(texts), 60, type);
    CHECK(t->vocab_size() <= 60);
    CHECK(t->vocab_size() > 20);
    const std::string sample = "the rotary model reads relative positions";
    const auto ids = t->encode(sample);
    REQUIRE(!ids.empty());
    for (int32_t id : ids) {
      CHECK(id >= Tokenizer::kNumSpecial);  // no PAD/CLS/SEP added, nothing unknown here
      CHECK(id < t->vocab_size());
    }
    const auto unseen = t->encode("\xE2\x98\x83");  // a character never seen in training
    CHECK(std::find(unseen.begin(), unseen.end(), Tokenizer::kUnkId) != unseen.end());

    // Saved bytes rebuild the same tokenizer; training is deterministic.
    const auto loaded = load_tokenizer(t->save());
    CHECK(loaded->name() == "sentencepiece");
    CHECK(loaded->encode(sample) == ids);
    CHECK(SentencePieceTokenizer::train(views(texts), 60, type)->save() == t->save());
    CHECK(t->decode(ids) == sample);
  }
}

TEST_CASE("sentencepiece rejects bad settings", "[datasets][tokenizer][sentencepiece]") {
  const auto texts = tokenizer_corpus();
  CHECK_THAT(test::data_error_of([&] { SentencePieceTokenizer::train(views(texts), 4, SpmModelType::unigram); }),
             Contains("vocab_size"));
  const std::vector<std::string> blank = {" \n\n "};
  CHECK_THAT(test::data_error_of([&] { SentencePieceTokenizer::train(views(blank), 60, SpmModelType::unigram); }),
             Contains("no training text"));
}

TEST_CASE("load_tokenizer rejects unknown or damaged bytes", "[datasets][tokenizer]") {
  CHECK_THAT(test::data_error_of([] { load_tokenizer("hello"); }), Contains("expected a header"));
  CHECK_THAT(test::data_error_of([] { load_tokenizer("rotor-tokenizer wordpiece\n"); }),
             Contains("unknown kind 'wordpiece'"));
  CHECK_THAT(test::data_error_of([] { load_tokenizer("rotor-tokenizer sentencepiece\nnot a model"); }),
             Contains("sentencepiece model: cannot load"));
  CHECK_THAT(test::data_error_of([] { load_tokenizer("rotor-tokenizer vocab\na\na\n"); }),
             Contains("duplicate token 'a'"));
}

TEST_CASE("decode is encode's inverse, special tokens written out", "[datasets][tokenizer][decode]") {
  ByteTokenizer bytes;
  CHECK(bytes.decode(bytes.encode("A\xC3\xA9 b\n")) == "A\xC3\xA9 b\n");
  CHECK(bytes.decode({4 + 'x', Tokenizer::kSepId, 4 + 'y'}) == "x[SEP]y");
  const std::vector<std::string> texts = {"b a c a"};
  const auto vocab = VocabTokenizer::train(views(texts), 0, 1);
  CHECK(vocab->decode(vocab->encode("  c\ta  b ")) == "c a b");
  CHECK(vocab->decode({4, Tokenizer::kUnkId, 5}) == "a [UNK] b");
  CHECK(vocab->decode({}).empty());
}
