// A resume compares the data files with the checkpoint's record of them
// (issue 35 item 4): what it says for each kind of difference.
#include <catch2/catch.hpp>

#include "datasets/data_error.h"
#include "trainers/training/resume.h"

using namespace rotor;

namespace {

const std::string kA(40, 'a'), kB(40, 'b');

}  // namespace

TEST_CASE("resumed data: a changed, new or gone file is named, and the flag turns it into a warning", "[resume]") {
  const std::vector<SourceFingerprint> recorded{{"train.txt", kA}, {"val.txt", kB}};
  CHECK(check_resumed_data(recorded, recorded, "ck.h5", false).empty());
  // A resume from another folder: the same files by position.
  CHECK(check_resumed_data(recorded, {{"../x/train.txt", kA}, {"../x/val.txt", kB}}, "ck.h5", false).empty());

  const std::vector<SourceFingerprint> edited{{"train.txt", kB}, {"val.txt", kB}};
  CHECK_THROWS_WITH(check_resumed_data(recorded, edited, "ck.h5", false),
                    Catch::StartsWith("cannot resume ck.h5: the data changed since it was written: train.txt changed "
                                      "(SHA-1 aaaaaaaaaaaa... then, bbbbbbbbbbbb... now)") &&
                        Catch::Contains("--allow-data-change"));
  CHECK_THAT(check_resumed_data(recorded, edited, "ck.h5", true),
             Catch::StartsWith("warning: the data changed since ck.h5 was written: train.txt changed"));
  CHECK_THROWS_WITH(
      check_resumed_data(recorded, {{"train.txt", kA}, {"val.txt", kB}, {"more.txt", kA}}, "ck.h5", false),
      Catch::Contains("more.txt is new"));
  CHECK_THROWS_WITH(check_resumed_data(recorded, {{"train.txt", kA}}, "ck.h5", false),
                    Catch::Contains("val.txt is gone"));
}

TEST_CASE("resumed data: a checkpoint without the record resumes with a note", "[resume]") {
  CHECK_THAT(check_resumed_data(std::nullopt, {{"train.txt", kA}}, "old.h5", false),
             Catch::StartsWith("note: old.h5 does not record its data files"));
  CHECK(check_resumed_data(std::vector<SourceFingerprint>{}, {}, "generated.h5", false).empty());
}

TEST_CASE("resumed data: the record round-trips through its checkpoint text", "[resume]") {
  const std::vector<SourceFingerprint> sources{{"a dir/train file.txt", kA}, {"val.txt", kB}};
  const std::vector<SourceFingerprint> back = parse_fingerprints(fingerprints_text(sources), "data/sources");
  REQUIRE(back.size() == 2);
  CHECK((back[0].path == sources[0].path && back[0].sha1 == kA && back[1].path == "val.txt" && back[1].sha1 == kB));
  CHECK_THROWS_AS(parse_fingerprints("xyz  a.txt\n", "data/sources"), DataError);
}
