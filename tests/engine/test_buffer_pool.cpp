// The tensor buffer pool hands a released large buffer out again for the same
// size, and leaves small buffers to the system allocator.
#include <catch2/catch.hpp>

#include <cstdint>

#include "engine/buffer_pool.h"

using namespace rotor;

TEST_CASE("a released large buffer is reused for the same size, aligned to 64 bytes") {
  const size_t bytes = kMinPooledBytes * 3 + 64;
  auto a = acquire_buffer(bytes);
  std::byte* first = a.get();
  CHECK(reinterpret_cast<uintptr_t>(first) % 64 == 0);
  a.reset();
  auto b = acquire_buffer(bytes);
  CHECK(b.get() == first);
  auto c = acquire_buffer(bytes);  // b still holds the cached one
  CHECK(c.get() != first);
}
