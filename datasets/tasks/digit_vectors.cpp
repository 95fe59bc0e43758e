#include "datasets/tasks/digit_vectors.h"

#include <algorithm>
#include <cassert>
#include <cstdint>

namespace rotor {

Digits trimmed(Digits digits) {
  while (!digits.empty() && digits.back() == 0) digits.pop_back();
  return digits;
}

Digits add(const Digits& a, const Digits& b, int base) {
  Digits sum;
  int carry = 0;
  for (size_t i = 0; i < std::max(a.size(), b.size()) || carry > 0; ++i) {
    const int column = (i < a.size() ? a[i] : 0) + (i < b.size() ? b[i] : 0) + carry;
    sum.push_back(column % base);
    carry = column / base;
  }
  return trimmed(sum);
}

Digits multiply(const Digits& a, const Digits& b, int base) {
  // Column sums stay below base * (base - 1) * min(|a|, |b|) + carry: far from
  // int64's range for the bases and sizes here.
  std::vector<int64_t> columns(a.size() + b.size(), 0);
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < b.size(); ++j) columns[i + j] += static_cast<int64_t>(a[i]) * b[j];
  Digits product;
  int64_t carry = 0;
  for (int64_t column : columns) {
    column += carry;
    product.push_back(static_cast<int>(column % base));
    carry = column / base;
  }
  for (; carry > 0; carry /= base) product.push_back(static_cast<int>(carry % base));
  return trimmed(product);
}

int compare(const Digits& a, const Digits& b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  for (size_t i = a.size(); i-- > 0;)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

Digits subtract(const Digits& a, const Digits& b, int base) {
  assert(compare(trimmed(a), trimmed(b)) >= 0);
  Digits difference;
  int borrow = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    int column = a[i] - (i < b.size() ? b[i] : 0) - borrow;
    borrow = column < 0 ? 1 : 0;
    difference.push_back(column + borrow * base);
  }
  return trimmed(difference);
}

Digits binary_isqrt(const Digits& bits) {
  // Restoring square root: with root y of the bits above, bring down the next
  // pair into the remainder r = 4r + pair; the next root bit is 1 exactly when
  // r >= 4y + 1 (as (2y + 1)^2 - (2y)^2 = 4y + 1), and then r -= 4y + 1.
  Digits root;
  Digits remainder;
  for (size_t pair = (bits.size() + 1) / 2; pair-- > 0;) {
    const size_t low = 2 * pair;
    remainder.insert(remainder.begin(), {bits[low], low + 1 < bits.size() ? bits[low + 1] : 0});
    remainder = trimmed(remainder);
    Digits trial = root;
    trial.insert(trial.begin(), {1, 0});
    trial = trimmed(trial);  // 4 * 0 + 1 is {1}
    const bool one = compare(remainder, trial) >= 0;
    if (one) remainder = subtract(remainder, trial, 2);
    root.insert(root.begin(), one ? 1 : 0);
  }
  return trimmed(root);
}

}  // namespace rotor
