#include "engine/random.h"

#include <cmath>

namespace rotor {
namespace {

constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> c, std::array<uint32_t, 2> k) {
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(kMul0) * c[0];
    const uint64_t p1 = static_cast<uint64_t>(kMul1) * c[2];
    c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<uint32_t>(p0)};
    k[0] += kWeyl0;
    k[1] += kWeyl1;
  }
  return c;
}

uint64_t stream_id(std::string_view name) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char ch : name) {
    h ^= ch;
    h *= 0x100000001B3ull;
  }
  return splitmix64(h);
}

std::array<uint32_t, 4> RandomKey::bits(uint64_t index) const {
  // The key mixes seed and stream; the counter carries step and index.
  const uint64_t key = splitmix64(seed ^ splitmix64(stream));
  return philox4x32({static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32),
                     static_cast<uint32_t>(step), static_cast<uint32_t>(step >> 32)},
                    {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)});
}

float RandomKey::uniform_float(uint64_t index) const {
  return static_cast<float>(bits(index)[0] >> 8) * (1.0f / 16777216.0f);
}

double RandomKey::uniform_double(uint64_t index) const {
  const auto b = bits(index);
  const uint64_t x = (static_cast<uint64_t>(b[0]) << 32 | b[1]) >> 11;
  return static_cast<double>(x) * (1.0 / 9007199254740992.0);
}

double RandomKey::normal(uint64_t index) const {
  const auto b = bits(index);
  const uint64_t x = (static_cast<uint64_t>(b[0]) << 32 | b[1]) >> 11;
  const uint64_t y = (static_cast<uint64_t>(b[2]) << 32 | b[3]) >> 11;
  const double u1 = (static_cast<double>(x) + 1.0) * (1.0 / 9007199254740993.0);  // (0, 1]
  const double u2 = static_cast<double>(y) * (1.0 / 9007199254740992.0);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

uint64_t RandomKey::below(uint64_t index, uint64_t n) const {
  const auto b = bits(index);
  const uint64_t x = static_cast<uint64_t>(b[0]) << 32 | b[1];
  return static_cast<uint64_t>((static_cast<unsigned __int128>(x) * n) >> 64);
}

}  // namespace rotor
