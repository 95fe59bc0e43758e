// Every registered op must have a gradient-check case (see gradcheck.h).
#include <catch2/catch.hpp>
#include <string>

#include "gradcheck.h"

TEST_CASE("every registered op has a gradient check") {
  std::string missing;
  for (size_t k = 1; k < rotor::kOpNames.size(); ++k)  // 0 is `leaf`
    if (!rotor::test::checked_ops().count(static_cast<rotor::OpKind>(k)))
      missing += std::string(missing.empty() ? "" : ", ") + std::string(rotor::kOpNames[k]);
  INFO("ops without a gradient check: " << missing);
  CHECK(missing.empty());
}
