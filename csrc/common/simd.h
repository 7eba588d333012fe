// Instruction-set clones for loops that vectorise well.  Wheels target baseline
// x86-64 (SSE2: sixteen 4-float registers), where a 64-wide float output row does
// not fit in registers; with AVX2 it fits in eight.  A function marked
// WEFT_SIMD_CLONES is compiled twice and the dynamic loader picks the AVX2 body on
// CPUs that have it (GNU ifunc), so no -march flag is needed.  FMA is left out on
// purpose: a fused multiply-add rounds once instead of twice, and results would then
// depend on the machine.
#pragma once

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define WEFT_SIMD_CLONES __attribute__((target_clones("avx2", "default")))
// The same list as a string, for weft._C.build_info() (weft.show_config).
#define WEFT_SIMD_CLONE_TARGETS "avx2,default"
#else
#define WEFT_SIMD_CLONES
#define WEFT_SIMD_CLONE_TARGETS ""
#endif
