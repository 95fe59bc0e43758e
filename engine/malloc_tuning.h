#pragma once
// glibc malloc set up for a process that repeats the same training step.
//
// By default glibc serves a block above its mmap threshold (dynamic, at most
// 32 MiB) with a fresh mmap and unmaps it on free, and returns the free top of
// its heap to the kernel once it exceeds the trim threshold: every step then
// faults in (and the kernel zeroes) the same memory again, ~18k minor faults a
// step on bench config S (bench/README.md, "Page faults per step"). With mmap
// off and trimming off, freed memory stays in the heap and serves the next
// step's blocks of any size: after a few steps a step faults nothing. The cost:
// memory freed once is not given back to the kernel before exit (resident
// memory stays at the run's high-water mark, a few percent above the peak of
// live memory on S and L).
namespace rotor {

// Applies the settings once per process (later calls do nothing); true when
// they took effect. Off glibc, or under a preloaded allocator that ignores
// mallopt, it changes nothing that allocator does.
bool tune_malloc_for_repeated_steps();

}  // namespace rotor
