#pragma once
// The symbols the sequence tasks share: digits "0", "1", ... and uniform
// binary strings. Reading a symbol that is not one throws DataError naming it.
#include <cstdint>
#include <string>
#include <vector>

#include "datasets/tasks/number_symbols.h"  // number_symbol(): "0", "1", ..., "10", ...
#include "engine/random.h"

namespace rotor {

// The value of digit symbol `s` in [0, base).
int64_t digit_value(const std::string& s, int64_t base);
// The values of a string over {"0", "1"}.
std::vector<int64_t> bit_values(const std::vector<std::string>& symbols);
// n symbols over {"0", "1"}, uniform, from `key`'s draws 0..n-1.
std::vector<std::string> draw_bits(const RandomKey& key, int64_t n);
// a mod m in [0, m), also for negative a.
int64_t modulo(int64_t a, int64_t m);

}  // namespace rotor
