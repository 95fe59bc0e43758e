#include "engine/tensor_buffer.h"

#include <new>

#include "engine/malloc_tuning.h"

namespace rotor {

std::shared_ptr<std::byte> acquire_buffer(size_t bytes) {
  constexpr std::align_val_t kAlign{64};
  // Before the first tensor: every allocation of the run, tensor or scratch,
  // then reuses freed memory rather than faulting in fresh pages each step.
  tune_malloc_for_repeated_steps();
  auto* p = static_cast<std::byte*>(::operator new(bytes ? bytes : 1, kAlign));
  return std::shared_ptr<std::byte>(p, [](std::byte* q) { ::operator delete(q, kAlign); });
}

}  // namespace rotor
