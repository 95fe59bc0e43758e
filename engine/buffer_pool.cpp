#include "engine/buffer_pool.h"

#include <map>
#include <mutex>
#include <new>

#include "engine/malloc_tuning.h"

namespace rotor {
namespace {

constexpr std::align_val_t kAlign{64};

class BufferPool {
 public:
  std::byte* take(size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      live_ += bytes;
      if (live_ > peak_) peak_ = live_;
      auto it = cached_.find(bytes);
      if (it != cached_.end()) {
        std::byte* p = it->second;
        cached_.erase(it);
        cached_bytes_ -= bytes;
        return p;
      }
      evict_over_peak();
    }
    return static_cast<std::byte*>(::operator new(bytes, kAlign));
  }

  void give_back(std::byte* p, size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    live_ -= bytes;
    cached_.emplace(bytes, p);
    cached_bytes_ += bytes;
  }

 private:
  // Frees the largest cached buffers until live + cached fits under the peak.
  void evict_over_peak() {
    while (!cached_.empty() && live_ + cached_bytes_ > peak_) {
      auto last = std::prev(cached_.end());
      ::operator delete(last->second, kAlign);
      cached_bytes_ -= last->first;
      cached_.erase(last);
    }
  }

  std::mutex mutex_;
  std::multimap<size_t, std::byte*> cached_;
  size_t cached_bytes_ = 0, live_ = 0, peak_ = 0;
};

BufferPool& pool() {
  static BufferPool* p = new BufferPool;  // never destroyed: tensors may outlive static destructors
  return *p;
}

}  // namespace

std::shared_ptr<std::byte> acquire_buffer(size_t bytes) {
  // Before the first tensor: every allocation of the run, tensor or scratch,
  // then reuses freed memory rather than faulting in fresh pages each step.
  tune_malloc_for_repeated_steps();
  if (bytes < kMinPooledBytes) {
    auto* p = static_cast<std::byte*>(::operator new(bytes ? bytes : 1, kAlign));
    return std::shared_ptr<std::byte>(p, [](std::byte* q) { ::operator delete(q, kAlign); });
  }
  return std::shared_ptr<std::byte>(pool().take(bytes), [bytes](std::byte* q) { pool().give_back(q, bytes); });
}

}  // namespace rotor
