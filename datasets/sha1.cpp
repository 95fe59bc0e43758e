#include "datasets/sha1.h"

#include <cstring>

namespace rotor {
namespace {

uint32_t rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

}  // namespace

Sha1::Sha1() : h_{0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u} {}

void Sha1::update(std::string_view bytes) {
  for (char c : bytes) {
    buffer_[total_bytes_ % 64] = static_cast<uint8_t>(c);
    ++total_bytes_;
    if (total_bytes_ % 64 == 0) process_block(buffer_.data());
  }
}

void Sha1::process_block(const uint8_t* block) {
  uint32_t w[80];
  for (int i = 0; i < 16; ++i) {
    w[i] = static_cast<uint32_t>(block[4 * i]) << 24 | static_cast<uint32_t>(block[4 * i + 1]) << 16 |
           static_cast<uint32_t>(block[4 * i + 2]) << 8 | block[4 * i + 3];
  }
  for (int i = 16; i < 80; ++i) w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
  uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4];
  for (int i = 0; i < 80; ++i) {
    uint32_t f, k;
    if (i < 20) {
      f = (b & c) | (~b & d), k = 0x5A827999u;
    } else if (i < 40) {
      f = b ^ c ^ d, k = 0x6ED9EBA1u;
    } else if (i < 60) {
      f = (b & c) | (b & d) | (c & d), k = 0x8F1BBCDCu;
    } else {
      f = b ^ c ^ d, k = 0xCA62C1D6u;
    }
    const uint32_t t = rotl(a, 5) + f + e + k + w[i];
    e = d, d = c, c = rotl(b, 30), b = a, a = t;
  }
  h_[0] += a, h_[1] += b, h_[2] += c, h_[3] += d, h_[4] += e;
}

std::array<uint8_t, 20> Sha1::digest() {
  const uint64_t bit_length = total_bytes_ * 8;
  update(std::string_view("\x80", 1));
  while (total_bytes_ % 64 != 56) update(std::string_view("\0", 1));
  char length_bytes[8];
  for (int i = 0; i < 8; ++i) length_bytes[i] = static_cast<char>(bit_length >> (56 - 8 * i));
  update(std::string_view(length_bytes, 8));
  std::array<uint8_t, 20> out;
  for (int i = 0; i < 20; ++i) out[i] = static_cast<uint8_t>(h_[i / 4] >> (24 - 8 * (i % 4)));
  return out;
}

std::string Sha1::hex_digest() {
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  for (uint8_t byte : digest()) {
    out += kHex[byte >> 4];
    out += kHex[byte & 15];
  }
  return out;
}

std::string sha1_hex(std::string_view bytes) {
  Sha1 h;
  h.update(bytes);
  return h.hex_digest();
}

}  // namespace rotor
