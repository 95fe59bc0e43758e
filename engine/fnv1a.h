#pragma once
// 64-bit FNV-1a, the one stable non-cryptographic hash of bytes in rotor:
// random stream ids (random.h), checkpoint checksums and the ranks' state
// agreement (run_agreement.cpp) are built on it, so its values are part of
// saved files and of every random stream.
#include <cstddef>
#include <cstdint>

namespace rotor {

class Fnv1a {
 public:
  static constexpr uint64_t kOffsetBasis = 0xCBF29CE484222325ull;
  static constexpr uint64_t kPrime = 0x100000001B3ull;

  void bytes(const void* data, size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) {
      hash_ ^= p[i];
      hash_ *= kPrime;
    }
  }
  // The bytes of a trivially copyable value, in memory order.
  template <class T>
  void value(T v) {
    bytes(&v, sizeof v);
  }
  uint64_t hash() const { return hash_; }

 private:
  uint64_t hash_ = kOffsetBasis;
};

inline uint64_t fnv1a(const void* data, size_t n) {
  Fnv1a h;
  h.bytes(data, n);
  return h.hash();
}

}  // namespace rotor
