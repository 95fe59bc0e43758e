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
