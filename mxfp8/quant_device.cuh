// quant_device.cuh: the device helpers the quantizers share (mxfp8/mx_quant.cu, mxfp8/bw_quant.cu): one
// 16-byte chunk of bf16 or fp32 input widened to fp32, and two fp32 values rounded to two e4m3 bytes by the
// hardware (PTX ISA "cvt": the .e4m3x2 .satfinite form, sm_89+).
#pragma once

#include <cstdint>

#include <cuda_fp8.h>

namespace gemm {

constexpr int QUANT_CHUNK_BYTES = 16;  // one ld.global.v4 per lane

// Elements of one 16-byte chunk: 8 bf16 or 4 fp32.
template <typename In>
constexpr int quant_chunk_elems = QUANT_CHUNK_BYTES / int(sizeof(In));

__device__ __forceinline__ float bf16_to_float(uint32_t bits16) {
  return __uint_as_float(bits16 << 16);  // bf16 is the top half of an fp32: exact
}

// The lane's elements of one chunk, as fp32, in memory order.
template <typename In>
__device__ __forceinline__ void unpack_chunk(const uint4& raw, float (&v)[quant_chunk_elems<In>]) {
  const uint32_t w[4] = {raw.x, raw.y, raw.z, raw.w};
  if constexpr (sizeof(In) == 2) {
    for (int i = 0; i < 4; ++i) {
      v[2 * i]     = bf16_to_float(w[i] & 0xFFFFu);
      v[2 * i + 1] = bf16_to_float(w[i] >> 16);
    }
  } else {
    for (int i = 0; i < 4; ++i) v[i] = __uint_as_float(w[i]);
  }
}

// Two elements to two e4m3 bytes (low byte = first element), rounded to nearest even and saturated to
// ±448: cvt.rn.satfinite.e4m3x2.f32.
__device__ __forceinline__ uint32_t cvt_e4m3x2(float first, float second) {
  return uint32_t(__nv_cvt_float2_to_fp8x2(make_float2(first, second), __NV_SATFINITE, __NV_E4M3));
}

}  // namespace gemm
