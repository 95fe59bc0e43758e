// Digit-vector arithmetic (datasets/tasks/digit_vectors.h) against uint64
// arithmetic on every small case, and against residues modulo a prime for
// numbers beyond 64 bits.
#include "datasets/tasks/digit_vectors.h"
#include "engine/random.h"
#include "helpers.h"

#include <cmath>
#include <cstdint>

using namespace rotor;

namespace {

Digits digits(uint64_t value, int base) {
  Digits out;
  for (; value > 0; value /= static_cast<uint64_t>(base)) out.push_back(static_cast<int>(value % base));
  return out;
}

uint64_t digit_residue(const Digits& number, int base, uint64_t prime) {
  uint64_t r = 0;
  for (size_t i = number.size(); i-- > 0;) r = (r * static_cast<uint64_t>(base) + number[i]) % prime;
  return r;
}

uint64_t isqrt64(uint64_t x) {
  const auto square = [](uint64_t r) { return static_cast<unsigned __int128>(r) * r; };  // no overflow
  auto root = static_cast<uint64_t>(std::sqrt(static_cast<double>(x)));
  while (square(root) > x) --root;
  while (square(root + 1) <= x) ++root;
  return root;
}

}  // namespace

TEST_CASE("digit vectors: add, multiply, subtract and compare agree with uint64 on small numbers", "[digit-vectors]") {
  for (int base : {2, 10}) {
    for (uint64_t a = 0; a < 130; ++a) {
      for (uint64_t b = 0; b < 130; ++b) {
        const Digits da = digits(a, base);
        const Digits db = digits(b, base);
        REQUIRE(add(da, db, base) == digits(a + b, base));
        REQUIRE(multiply(da, db, base) == digits(a * b, base));
        REQUIRE(compare(da, db) == (a < b ? -1 : a > b ? 1 : 0));
        if (a >= b) REQUIRE(subtract(da, db, base) == digits(a - b, base));
      }
    }
  }
}

TEST_CASE("digit vectors: binary_isqrt is the integer square root", "[digit-vectors]") {
  for (uint64_t x = 0; x < 20000; ++x) REQUIRE(binary_isqrt(digits(x, 2)) == digits(isqrt64(x), 2));
  for (uint64_t x : {uint64_t{1} << 62, (uint64_t{1} << 62) - 1, ~uint64_t{0}, uint64_t{999999999999}})
    CHECK(binary_isqrt(digits(x, 2)) == digits(isqrt64(x), 2));
}

TEST_CASE("digit vectors: numbers beyond 64 bits", "[digit-vectors]") {
  const Digits ones64(64, 1);  // 2^64 - 1
  Digits square(128, 1);       // (2^64 - 1)^2 = 2^128 - 2^65 + 1: bit 0, then bits 65..127
  for (size_t i = 1; i <= 64; ++i) square[i] = 0;
  CHECK(multiply(ones64, ones64, 2) == square);
  CHECK(binary_isqrt(square) == ones64);
  CHECK(binary_isqrt(Digits(128, 1)) == ones64);  // isqrt(2^128 - 1)
  Digits power(129, 0);                           // 2^128
  power.back() = 1;
  Digits root(65, 0);  // 2^64
  root.back() = 1;
  CHECK(binary_isqrt(power) == root);
  CHECK(add(Digits(70, 1), {1}, 2) == [] {
    Digits d(71, 0);
    d.back() = 1;
    return d;
  }());
  CHECK(subtract(power, {1}, 2) == Digits(128, 1));
}

TEST_CASE("digit vectors: 300-digit products and sums keep their residues", "[digit-vectors]") {
  // Residues modulo primes are computed digit by digit in uint64, independently
  // of the digit-vector code.
  const uint64_t prime = 1000000007;
  const RandomKey key{7, stream_id("digit-vectors"), 0};
  for (int base : {2, 10}) {
    for (uint64_t trial = 0; trial < 20; ++trial) {
      Digits a, b;
      for (uint64_t i = 0; i < 300; ++i) a.push_back(static_cast<int>(key.below(trial * 1000 + i, base)));
      for (uint64_t i = 0; i < 250; ++i) b.push_back(static_cast<int>(key.below(trial * 1000 + 500 + i, base)));
      a = trimmed(a);
      b = trimmed(b);
      REQUIRE(compare(a, b) > 0);
      const uint64_t ra = digit_residue(a, base, prime), rb = digit_residue(b, base, prime);
      CHECK(digit_residue(add(a, b, base), base, prime) == (ra + rb) % prime);
      CHECK(digit_residue(multiply(a, b, base), base, prime) == ra * rb % prime);
      CHECK(digit_residue(subtract(a, b, base), base, prime) == (ra + prime - rb) % prime);
    }
  }
}

TEST_CASE("digit vectors: binary_isqrt of 500-bit numbers brackets the number", "[digit-vectors]") {
  const RandomKey key{11, stream_id("isqrt"), 0};
  for (uint64_t trial = 0; trial < 20; ++trial) {
    Digits x;
    for (uint64_t i = 0; i < 500; ++i) x.push_back(static_cast<int>(key.below(trial * 1000 + i, 2)));
    x = trimmed(x);
    const Digits root = binary_isqrt(x);
    const Digits next = add(root, {1}, 2);
    CHECK(compare(multiply(root, root, 2), x) <= 0);
    CHECK(compare(multiply(next, next, 2), x) > 0);
  }
}
