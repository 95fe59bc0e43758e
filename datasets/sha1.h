#pragma once
// SHA-1, used for stable keys (the hash split, cache keys), not for security.
// The hash split must agree with the reference notes, which bucket documents by
// int(sha1(key).hexdigest()[:8], 16) % 100.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace rotor {

class Sha1 {
 public:
  Sha1();
  void update(std::string_view bytes);
  // Finishes the hash; the object must not be updated afterwards.
  std::array<uint8_t, 20> digest();
  std::string hex_digest();

 private:
  void process_block(const uint8_t* block);

  std::array<uint32_t, 5> h_;
  std::array<uint8_t, 64> buffer_{};
  uint64_t total_bytes_ = 0;
};

std::string sha1_hex(std::string_view bytes);

}  // namespace rotor
