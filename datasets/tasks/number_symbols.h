#pragma once
// Integers and digit vectors written as task symbols: the integer k is the
// symbol "k" ("0", "1", ..., "99"), so the authors' integer tokens keep their
// names. Reading a symbol checks it, since the tasks' answers are also computed
// for hand-written inputs.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "datasets/tasks/digit_vectors.h"

namespace rotor {

using Symbols = std::vector<std::string>;

std::string number_symbol(int64_t k);
// The integer a symbol names, in [0, count); DataError naming `task` otherwise.
int64_t symbol_number(const std::string& symbol, int64_t count, const char* task);
// DataError "task '<task>': <what>" unless `ok`.
void require_input(bool ok, const char* task, const std::string& what);
// Checks that `input` is non-empty and each symbol names an integer in
// [0, count).
void check_symbols(const Symbols& input, int64_t count, const char* task);
// `input`'s symbols (checked as above) in increasing order of value.
Symbols sorted_numbers(const Symbols& input, int64_t count, const char* task);
// The digits that `symbols` write least significant first (each a digit of
// `base`), trimmed.
Digits digits_of(const Symbols& symbols, int base, const char* task);
// The two numbers of `first op second`, each written least significant digit
// first in `base`; DataError unless `op` occurs once with digits on both sides.
std::pair<Digits, Digits> operands_of(const Symbols& input, const std::string& op, int base, const char* task);
// `digits` written least significant first, padded with "0" to `width` and
// never shorter than one digit (zero is "0").
Symbols written(const Digits& digits, size_t width);

}  // namespace rotor
