#pragma once
// Tensor storage: 64-byte aligned buffers from the system allocator.
//
// A training step frees and re-allocates the same big activations every step.
// With glibc's defaults each large one was a fresh mmap whose pages the kernel
// faulted in and zeroed again every step; acquire_buffer therefore applies
// tune_malloc_for_repeated_steps (engine/malloc_tuning.h) before the first
// tensor, after which freed memory stays in the heap and serves later blocks
// of any size. An earlier size-keyed pool on top of that was removed: against
// the tuned heap alone it was no faster and held 7-8% more peak memory
// (bench/README.md, "Page faults per step").
#include <cstddef>
#include <memory>

namespace rotor {

// A 64-byte aligned, uninitialised buffer of `bytes`, freed when the last
// owner lets go. Thread-safe.
std::shared_ptr<std::byte> acquire_buffer(size_t bytes);

// Bytes of tensor storage alive now, and the most alive at once since the
// last reset_tensor_bytes_peak(): what the tensors need, before the
// allocator's own overhead and fragmentation (which peak RSS adds).
size_t tensor_bytes_live();
size_t tensor_bytes_peak();
void reset_tensor_bytes_peak();

}  // namespace rotor
