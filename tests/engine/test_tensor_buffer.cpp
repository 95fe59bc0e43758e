// Tensor storage: every buffer 64-byte aligned (the AVX-512 kernels' loads)
// and usable to its last byte, small and large, zero bytes included. That a
// steady-state step reuses freed memory without page faults is
// test_malloc_tuning.cpp's contract.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/tensor_buffer.h"

using namespace rotor;

TEST_CASE("acquire_buffer: 64-byte aligned at every size and writable to its end") {
  std::vector<std::shared_ptr<std::byte>> held;  // alive together, so no two share an address
  for (const size_t bytes : {size_t{0}, size_t{1}, size_t{63}, size_t{4096}, size_t{1} << 20, (size_t{3} << 20) + 64}) {
    INFO(bytes << " bytes");
    auto b = acquire_buffer(bytes);
    REQUIRE(b != nullptr);
    CHECK(reinterpret_cast<uintptr_t>(b.get()) % 64 == 0);
    std::memset(b.get(), 0x5a, bytes);  // ASan: the whole range belongs to the buffer
    for (const auto& other : held) CHECK(other.get() != b.get());
    held.push_back(b);
  }
}

TEST_CASE("tensor storage is counted while alive, and its peak since the last reset") {
  // Other tests' tensors may still be alive: every figure is relative to the start.
  const size_t base = tensor_bytes_live();
  reset_tensor_bytes_peak();
  CHECK(tensor_bytes_peak() == base);
  {
    auto a = acquire_buffer(1000);
    auto b = acquire_buffer(3000);
    CHECK(tensor_bytes_live() == base + 4000);
  }
  CHECK(tensor_bytes_live() == base);
  CHECK(tensor_bytes_peak() == base + 4000);
  auto c = acquire_buffer(500);
  CHECK(tensor_bytes_peak() == base + 4000);  // the peak stays until reset
  reset_tensor_bytes_peak();
  CHECK(tensor_bytes_peak() == base + 500);
}
