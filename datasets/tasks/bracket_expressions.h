#pragma once
// The bracketed modular expressions of Deletang et al. 2023's
// modular-arithmetic-brackets and solve-equation
// (tasks/dcf/modular_arithmetic_brackets.py): drawn at a length in symbols
// and evaluated mod 5.
#include <cstdint>
#include <string>
#include <vector>

#include "datasets/tasks/draws.h"

namespace rotor {

inline constexpr int64_t kBracketModulus = 5;

// generate_one_expression_and_result: length 1..4 give d, -d, (d), (-d) for a
// uniform digit d; a longer one is (L op R) with |L| uniform in 1..length - 4,
// |R| = length - 3 - |L|, and op uniform over + - (and * when `multiply`).
std::vector<std::string> draw_bracket_expression(Draws& draws, int64_t length, bool multiply);

// The value mod 5 of symbols [begin, end) holding one expression; `x`, when
// not negative, is the value of the symbol "x". Throws DataError when the
// symbols are not an expression.
int64_t bracket_expression_value(const std::vector<std::string>& symbols, size_t begin, size_t end, int64_t x = -1);

}  // namespace rotor
