// README.md's configuration reference is generated from the schema; this
// fails when the two drift apart (regenerate with tools/update-readme-reference.sh).
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "trainers/config/config_loader.h"

TEST_CASE("README's configuration reference matches the schema") {
  std::ifstream in(std::string(ROTOR_SOURCE_DIR) + "/README.md");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  const std::string readme = text.str();
  const std::string begin = "<!-- config-reference:begin -->\n", end = "<!-- config-reference:end -->";
  const size_t b = readme.find(begin), e = readme.find(end);
  REQUIRE(b != std::string::npos);
  REQUIRE(e != std::string::npos);
  const std::string block = readme.substr(b + begin.size(), e - b - begin.size());
  INFO("run tools/update-readme-reference.sh to regenerate README.md's reference");
  CHECK(block == rotor::config_reference(true));
}
