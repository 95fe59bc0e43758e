#include "engine/tensor_buffer.h"

#include <atomic>
#include <new>

#include "engine/malloc_tuning.h"

namespace rotor {
namespace {

std::atomic<size_t> g_live{0}, g_peak{0};

void count_acquired(size_t bytes) {
  const size_t live = g_live.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  size_t peak = g_peak.load(std::memory_order_relaxed);
  while (live > peak && !g_peak.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
  }
}

}  // namespace

std::shared_ptr<std::byte> acquire_buffer(size_t bytes) {
  constexpr std::align_val_t kAlign{64};
  // Before the first tensor: every allocation of the run, tensor or scratch,
  // then reuses freed memory rather than faulting in fresh pages each step.
  tune_malloc_for_repeated_steps();
  auto* p = static_cast<std::byte*>(::operator new(bytes ? bytes : 1, kAlign));
  count_acquired(bytes);
  return std::shared_ptr<std::byte>(p, [bytes](std::byte* q) {
    ::operator delete(q, kAlign);
    g_live.fetch_sub(bytes, std::memory_order_relaxed);
  });
}

size_t tensor_bytes_live() { return g_live.load(std::memory_order_relaxed); }
size_t tensor_bytes_peak() { return g_peak.load(std::memory_order_relaxed); }
void reset_tensor_bytes_peak() { g_peak.store(g_live.load(std::memory_order_relaxed), std::memory_order_relaxed); }

}  // namespace rotor
