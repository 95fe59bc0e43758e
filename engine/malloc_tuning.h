#pragma once
// The memory allocator set up for a process that repeats the same training step.
//
// A step frees and re-allocates the same big tensors every step. With glibc's
// defaults each block above its mmap threshold (dynamic, at most 32 MiB) is a
// fresh mmap, unmapped on free, and the heap's free top goes back to the
// kernel: every step faults in (and the kernel zeroes) the same memory again,
// ~18k minor faults a step on bench config S (bench/README.md, "Page faults
// per step"). Freed memory has to stay with the process.
//
// rotor links tcmalloc (CMake option ROTOR_TCMALLOC, the default): its page
// heap serves large blocks best-fit from spans, which keeps peak RSS 5-9%
// above the peak of live tensors (bench configs S, XL and XXL) even though the
// graph frees values in a new order (engine/var.h); its release rate is set to
// 0 so freed spans are not returned to the kernel piecemeal. Without tcmalloc,
// glibc malloc gets mmap off and trimming off: no faults after a few steps
// either, but its heap fragments (peak RSS ~1.6x the live tensors on S).
namespace rotor {

// Applies the settings once per process (later calls do nothing); true when
// they took effect. Off glibc without tcmalloc, or under a preloaded
// allocator that ignores mallopt, it changes nothing that allocator does.
bool tune_malloc_for_repeated_steps();

}  // namespace rotor
