#pragma once
// What this CPU can run, checked once at run time: kernels built for one
// instruction set take their portable path elsewhere.
namespace rotor::kernels {

// True when the CPU has AVX-512 BF16 dot products (vdpbf16ps): the bf16 GEMM
// and the fused attention's bf16 tiles then run their native kernels.
bool cpu_has_bf16_dot();

}  // namespace rotor::kernels
