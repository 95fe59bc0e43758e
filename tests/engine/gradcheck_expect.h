#pragma once
#include <catch2/catch.hpp>

#include "gradcheck.h"

// Runs a gradient check and requires that the op was exercised and that
// analytic and numeric gradients agree to 1e-6 (float64, central differences).
#define CHECK_GRADIENTS(op, f, ...)                                                                \
  do {                                                                                             \
    const auto report = rotor::test::check_gradients(op, f, __VA_ARGS__);                          \
    INFO("max relative error " << report.max_error << " over " << report.elements << " elements"); \
    REQUIRE(report.op_found);                                                                      \
    REQUIRE(report.elements > 0);                                                                  \
    CHECK(report.max_error < 1e-6);                                                                \
  } while (0)
