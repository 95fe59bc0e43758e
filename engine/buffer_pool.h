#pragma once
// Recycles large tensor buffers. A training step frees and re-allocates the
// same big activations every step; through malloc each one is a fresh mmap
// whose pages the kernel faults in and zeroes again (a quarter of a step's
// time in profiles, bench/README.md). Buffers of at least kMinPooledBytes are
// kept on release and handed out again for a request of the same size.
//
// The pool never holds more than the peak of live pooled bytes seen so far
// minus what is live now: live + cached <= peak live, so the process's
// resident memory does not grow beyond what the same run needs without it.
#include <cstddef>
#include <memory>

namespace rotor {

constexpr size_t kMinPooledBytes = size_t{1} << 20;

// A 64-byte aligned, uninitialised buffer of `bytes`; freed (or pooled) when
// the last owner lets go. Thread-safe.
std::shared_ptr<std::byte> acquire_buffer(size_t bytes);

}  // namespace rotor
