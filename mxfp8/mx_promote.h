// mx_promote.h: the arithmetic of the Hopper MXFP8 GEMM's promotion step, shared by the kernel
// (mxfp8/matmul_mxfp8_sm90.cu) and the CPU model that tests it (tests/test_mxfp8.cpp).
//
// Hopper has no block-scaled MMA. An fp8 wgmma m64nNk32 multiplies exactly one MX block (32 elements of K)
// of A by one of B, with no scales: the partial P[r][c] = sum over the block of e4m3(a) * e4m3(b). The kernel
// starts each block's partial from zero (scale-d = 0) and promotes it into an fp32 accumulator with the
// block's two scales:
//     acc[r][c] = fma(P[r][c], sa[r] * sb[c], acc[r][c])          sa = 2^(ea - 127), sb = 2^(eb - 127)
// sa * sb = 2^(ea + eb - 254) is an exact power of two whenever it is at least 2^-149 (fp32's smallest
// subnormal), so the product P * sa * sb is exact and the fma rounds once: each block adds exactly its
// dequantized contribution (as computed by the tensor core), rounded once into the fp32 sum.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "common/descriptors.cuh"  // GEMM_HD

namespace gemm {

// The fp32 value of an e8m0 scale byte, exactly: 0xFF is NaN (a NaN block stays NaN through the GEMM),
// 0x00 is 2^-127 (an fp32 subnormal, bits 0x00400000), any other byte s is 2^(s - 127), bits s << 23.
GEMM_HD inline float e8m0_to_float(uint32_t s) {
  const uint32_t bits = s == 0xFFu ? 0x7FC00000u : s == 0u ? 0x00400000u : s << 23;
#if defined(__CUDA_ARCH__)
  return __uint_as_float(bits);
#else
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
#endif
}

// One promotion: the block's partial into the accumulator, with the block's two scales (as fp32 values from
// e8m0_to_float). One FMUL (the scale of this row and column) and one FFMA per accumulator element and MX block.
GEMM_HD inline float mx_promote(float acc, float partial, float scale_a, float scale_b) {
  return fmaf(partial, scale_a * scale_b, acc);
}

}  // namespace gemm
