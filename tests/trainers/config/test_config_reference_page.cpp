// docs/reference/config.md's configuration reference is generated from the
// schema; this fails when the two drift apart (regenerate with
// tools/update-reference.sh; CTest docs_reference_current checks the command
// pages beside it the same way).
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "trainers/config/config_loader.h"
#include "trainers/config/config_schema.h"

TEST_CASE("docs/reference/config.md matches the schema") {
  std::ifstream in(std::string(ROTOR_SOURCE_DIR) + "/docs/reference/config.md");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  const std::string page = text.str();
  const std::string begin = "<!-- config-reference:begin -->\n", end = "<!-- config-reference:end -->";
  const size_t b = page.find(begin), e = page.find(end);
  REQUIRE(b != std::string::npos);
  REQUIRE(e != std::string::npos);
  const std::string block = page.substr(b + begin.size(), e - b - begin.size());
  INFO("run tools/update-reference.sh to regenerate docs/reference/config.md");
  CHECK(block == rotor::config_reference(true));
}
