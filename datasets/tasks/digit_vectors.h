#pragma once
// Natural numbers of any size as digit vectors, for the arithmetic tasks
// (binary addition, multiplication and square root at 500 input symbols are
// numbers of some 250 bits; decimal addition of 250-digit numbers). Schoolbook
// arithmetic on digits is enough at these sizes and is easy to check by hand.
#include <vector>

namespace rotor {

// The digits of a natural number in some base, least significant first, with
// no zero at the most significant end: zero is the empty vector.
using Digits = std::vector<int>;

// `digits` with its most significant zeros removed.
Digits trimmed(Digits digits);
Digits add(const Digits& a, const Digits& b, int base);
Digits multiply(const Digits& a, const Digits& b, int base);
// -1, 0 or 1 as a < b, a == b, a > b (trimmed inputs).
int compare(const Digits& a, const Digits& b);
// a - b for a >= b.
Digits subtract(const Digits& a, const Digits& b, int base);
// floor(sqrt(x)) of a binary number, digit pair by digit pair from the top.
Digits binary_isqrt(const Digits& bits);

}  // namespace rotor
