// SHA-1, UTF-8 repair and the JSON line parser.
#include "datasets/json_line.h"
#include "datasets/sha1.h"
#include "datasets/utf8.h"
#include "helpers.h"

using namespace rotor;
using Catch::Matchers::Contains;

TEST_CASE("sha1 matches the standard test vectors", "[datasets][sha1]") {
  CHECK(sha1_hex("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  CHECK(sha1_hex("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d");
  CHECK(sha1_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  // Spanning many blocks, fed in uneven pieces.
  Sha1 h;
  for (int i = 0; i < 1000; ++i) h.update(std::string(1000, 'a'));
  CHECK(h.hex_digest() == "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

TEST_CASE("repair_utf8 keeps valid text and replaces each invalid subpart", "[datasets][utf8]") {
  int64_t replaced = 0;
  const std::string valid = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80z";  // a é € 😀 z
  CHECK(repair_utf8(valid, replaced) == valid);
  CHECK(replaced == 0);

  const std::string fffd = "\xEF\xBF\xBD";
  struct Case {
    std::string in, out;
    int64_t count;
  };
  const Case cases[] = {
      {"a\xFF"
       "b",
       "a" + fffd + "b", 1},                               // never valid
      {"\xC0\xAF", fffd + fffd, 2},                        // overlong lead, then a stray continuation
      {"x\xE2\x82", "x" + fffd, 1},                        // truncated at the end: one maximal subpart
      {"\xED\xA0\x80", fffd + fffd + fffd, 3},             // a UTF-16 surrogate
      {"\xF4\x90\x80\x80", fffd + fffd + fffd + fffd, 4},  // above U+10FFFF
      {"\xE2\x82 ok", fffd + " ok", 1},                    // interrupted sequence, next byte kept
  };
  for (const Case& c : cases) {
    replaced = 0;
    CHECK(repair_utf8(c.in, replaced) == c.out);
    CHECK(replaced == c.count);
  }
}

TEST_CASE("parse_json_object reads scalar fields and skips nested values", "[datasets][json]") {
  int64_t replaced = 0;
  const JsonObject o = parse_json_object(
      R"( {"s": "a\"b\\c\/d\n\t\u00e9\ud83d\ude00", "n": -12.5e+3, "i": 0, "t": true, "f": false, "z": null,)"
      R"( "nest": {"a": [1, 2, {"b": []}], "c": "}"}, "e": {}} )",
      "f.jsonl:1", replaced);
  REQUIRE(o.size() == 8);
  CHECK(find_field(o, "s")->text == "a\"b\\c/d\n\t\xC3\xA9\xF0\x9F\x98\x80");
  CHECK(find_field(o, "n")->kind == JsonValue::Kind::number);
  CHECK(find_field(o, "n")->text == "-12.5e+3");
  CHECK(find_field(o, "i")->text == "0");
  CHECK(find_field(o, "t")->text == "true");
  CHECK(find_field(o, "f")->text == "false");
  CHECK(find_field(o, "z")->kind == JsonValue::Kind::null);
  CHECK(find_field(o, "nest")->kind == JsonValue::Kind::nested);
  CHECK(find_field(o, "missing") == nullptr);
  CHECK(replaced == 0);
}

TEST_CASE("parse_json_object replaces lone surrogates and invalid bytes", "[datasets][json][utf8]") {
  int64_t replaced = 0;
  const JsonObject o = parse_json_object(R"({"a": "x\ud800y\udc00z", "b": "\ud83d\u0041"})", "f:1", replaced);
  CHECK(find_field(o, "a")->text == "x\xEF\xBF\xBDy\xEF\xBF\xBDz");
  CHECK(find_field(o, "b")->text ==
        "\xEF\xBF\xBD"
        "A");
  CHECK(replaced == 3);
  replaced = 0;
  parse_json_object("{\"a\": \"raw \xFF byte\"}", "f:1", replaced);
  CHECK(replaced == 1);
}

TEST_CASE("parse_json_object errors name the line and column", "[datasets][json]") {
  struct Case {
    std::string line, message;
  };
  const Case cases[] = {
      // Messages are nlohmann's; the column is where the parser stopped.
      {R"({"a" 1})",
       "f.jsonl:7:6: syntax error while parsing object separator - unexpected number literal; "
       "expected ':'"},
      {R"({"a": 1,})", "f.jsonl:7:9: syntax error while parsing object key - unexpected '}'; expected string"},
      {R"({"a": "open)", "f.jsonl:7:12: syntax error while parsing value - invalid string: missing closing quote"},
      {R"({"a": 1} x)",
       "f.jsonl:7:10: syntax error while parsing value - invalid literal; last read: '1} x'; "
       "expected end of input"},
      {R"({"a": 1, "a": 2})", "f.jsonl:7:10: duplicate field 'a'"},
      {R"({"a": {"b": 1}, "c": 2, "a": 3})", "f.jsonl:7:25: duplicate field 'a'"},
      {R"({"a": "\q"})",
       "f.jsonl:7:9: syntax error while parsing value - invalid string: forbidden character after "
       "backslash"},
      {R"({"a": "\u12g4"})",
       "f.jsonl:7:12: syntax error while parsing value - invalid string: '\\u' must be "
       "followed by 4 hex digits"},
      {R"({"a": 01})", "f.jsonl:7:8: syntax error while parsing object - unexpected number literal; expected '}'"},
      {R"({"a": -})", "f.jsonl:7:8: syntax error while parsing value - invalid number; expected digit after '-'"},
      {R"({"a": 1.})", "f.jsonl:7:9: syntax error while parsing value - invalid number; expected digit after '.'"},
      {R"({"a": tru})", "f.jsonl:7:10: syntax error while parsing value - invalid literal"},
      {R"({"a": [1 2]})", "f.jsonl:7:10: syntax error while parsing array - unexpected number literal; expected ']'"},
      {R"([1, 2])", "f.jsonl:7:1: expected '{'"},
      {R"(  "text")", "f.jsonl:7:3: expected '{'"},
      {"{\"a\": \"tab\there\"}",
       "f.jsonl:7:11: syntax error while parsing value - invalid string: control "
       "character U+0009 (HT) must be escaped"},
      {"{\"a\": " + std::string(70, '[') + std::string(70, ']') + "}", "nested deeper than 64"},
  };
  for (const Case& c : cases) {
    INFO(c.line);
    int64_t replaced = 0;
    CHECK_THAT(test::data_error_of([&] { parse_json_object(c.line, "f.jsonl:7", replaced); }), Contains(c.message));
  }
}
