// After tune_malloc_for_repeated_steps (acquire_buffer applies it before the
// first tensor), memory freed by one step serves the next step's blocks of any
// size without new page faults: the contract behind a steady-state training
// step that faults nothing (bench/README.md, "Page faults per step").
#include <sys/resource.h>

#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdlib>

#include "engine/malloc_tuning.h"
#include "engine/tensor_buffer.h"

using namespace rotor;

#if defined(__SANITIZE_ADDRESS__)
#define ROTOR_SANITIZED_ALLOCATOR
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || __has_feature(thread_sanitizer)
#define ROTOR_SANITIZED_ALLOCATOR
#endif
#endif

namespace {

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// Allocates `bytes`, writes one byte per page (volatile: the writes, and so the
// allocation, cannot be optimised away), frees it.
void touch_and_free(size_t bytes) {
  auto* p = static_cast<volatile char*>(std::malloc(bytes));
  REQUIRE(p != nullptr);
  for (size_t i = 0; i < bytes; i += 4096) p[i] = 1;
  std::free(const_cast<char*>(p));
}

}  // namespace

TEST_CASE("after acquire_buffer tunes malloc, later blocks of any size reuse freed pages without faults") {
  acquire_buffer(64);  // as the first tensor of a run does
#if defined(__GLIBC__) && !defined(ROTOR_SANITIZED_ALLOCATOR)
  REQUIRE(tune_malloc_for_repeated_steps());
#else
  // Off glibc, or under a sanitizer's allocator (which ignores mallopt), nothing is promised.
  if (!tune_malloc_for_repeated_steps()) return;
#endif
  constexpr size_t kMiB = size_t{1} << 20;
  touch_and_free(64 * kMiB);  // above glibc's largest mmap threshold: mmap'd and unmapped untuned
  const long before = minor_faults();
  touch_and_free(64 * kMiB);
  touch_and_free(40 * kMiB);
  touch_and_free(3 * kMiB);
  CHECK(minor_faults() - before < 64);  // untuned: ~27k (one per 4 KiB page)
}
