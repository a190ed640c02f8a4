// mx_quant.cu: the GPU MXFP8 quantizer. bf16 or fp32 [rows, K] -> e4m3 data [rows, K] + e8m0 scales in the
// blocked layout, byte for byte what the CPU reference of mxfp8/mx_quant.h writes (rules, special cases and
// padding are defined there).
//
// What it is: a memory-bound elementwise pass (bf16 in: 2 bytes read, 1 + 1/32 written per element), so
// the only goal is to keep HBM busy, measured against a device-to-device copy (mxfp8/mx_quant_bench.cpp).
//  1. The operand is one flat sequence of 32-element blocks: rows are contiguous and K is a multiple of 32,
//     so block b is row b / (K/32), scale column b % (K/32); rows need no special handling. The division
//     is a multiply and a shift (mxfp8/fast_div.h), not the compiler's ~15-instruction generic division.
//  2. A warp takes a unit of LOADS_PER_LANE warp-wide 16-byte loads: load j, lane l reads the 16-byte chunk
//     32 j + l, so each warp-wide load is 512 contiguous bytes (fully used 32-byte sectors), and all the
//     unit's loads are in flight before the first is used. A block (64 bytes of bf16) is the chunks of 4
//     neighbouring lanes (8 for fp32): its amax is two (three) butterfly shuffles of the lanes' maxima.
//  3. amax is taken on the bits: for |x| the fp32 bit patterns order like the values, and every NaN and
//     infinity compares above every finite value (fmaxf would drop a NaN). The scale exponent comes from
//     amax's exponent field, plus one under RCEIL when its significand is above 1.75 (bits > 0x600000).
//  4. v * 2^-e is one exact fp32 multiply (2^-e is a normal fp32 for every e in [-127, 120]), then PTX
//     cvt.rn.satfinite.e4m3x2.f32 (sm_89+, two elements per instruction) rounds to nearest even and
//     saturates, as the reference does. Each lane stores its 8 output bytes (4 for fp32): each warp-wide
//     store is 256 contiguous bytes.
//  5. Scales: when K/32 is a multiple of 4, the 4 scales of 4 consecutive blocks are 4 contiguous bytes of
//     the blocked layout (one row, scale columns 4t..4t+3): gathered by shuffles, one 32-bit store. Else
//     one byte per block. Padding bytes come from a memset before the kernel, only for shapes that have
//     them.
// PTX ISA: cvt (the .e4m3x2 .satfinite forms, sm_89+), shfl.sync.
#include "mxfp8/mx_quant_gpu.h"

#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include "common/check.h"
#include "mxfp8/fast_div.h"
#include "mxfp8/quant_device.cuh"  // unpack_chunk, cvt_e4m3x2

namespace gemm {
namespace {

// ---- configuration ----
constexpr int THREADS        = 256;  // 8 warps per CTA, one unit each
constexpr int WARPS          = THREADS / 32;
constexpr int LOADS_PER_LANE = 4;  // 16-byte loads per lane per unit: 2 KB in flight per warp

template <typename In>
struct Cfg {
  static constexpr int ELEMS           = quant_chunk_elems<In>;  // 8 bf16 or 4 fp32 per 16-byte chunk
  static constexpr int LANES_PER_BLOCK = MX_BLOCK_K / ELEMS;     // 4 or 8 lanes share a block
  static constexpr int BLOCKS_PER_LOAD = 32 / LANES_PER_BLOCK;   // 8 or 4 blocks per warp-wide load
  static constexpr int BLOCKS_PER_UNIT = BLOCKS_PER_LOAD * LOADS_PER_LANE;
  static constexpr int LANES_PER_PACK  = 4 * LANES_PER_BLOCK;  // lanes holding 4 consecutive blocks
  static_assert(MX_BLOCK_K % ELEMS == 0, "a 16-byte chunk must lie inside one 32-element block");
  static_assert(32 % LANES_PER_BLOCK == 0 && BLOCKS_PER_LOAD % 4 == 0,
                "a warp-wide load must hold whole groups of 4 blocks (one 32-bit scale store each)");
};

// ---- kernel ----
template <typename In, bool RCEIL>
__global__ void __launch_bounds__(THREADS)
    mx_quantize_kernel(const uint4* __restrict__ in, uint32_t total_blocks, FastDiv scale_cols,
                       bool pack_scales, uint8_t* __restrict__ data, uint8_t* __restrict__ scales) {
  using C                  = Cfg<In>;
  const int lane           = threadIdx.x % 32;
  const uint64_t unit      = uint64_t(blockIdx.x) * WARPS + threadIdx.x / 32;
  const uint64_t chunk0    = unit * (32 * LOADS_PER_LANE);  // first 16-byte chunk of the unit
  const uint32_t first_blk = uint32_t(unit * C::BLOCKS_PER_UNIT);

  // -- load: all the unit's chunks in flight at once; lanes past the end hold zeros (the shuffles below
  //    need every lane of the warp) --
  uint4 raw[LOADS_PER_LANE];
#pragma unroll
  for (int j = 0; j < LOADS_PER_LANE; ++j) {
    const uint32_t blk = first_blk + uint32_t((j * 32 + lane) / C::LANES_PER_BLOCK);
    raw[j]             = blk < total_blocks ? __ldcs(in + chunk0 + j * 32 + lane) : make_uint4(0, 0, 0, 0);
  }

#pragma unroll
  for (int j = 0; j < LOADS_PER_LANE; ++j) {
    const uint32_t blk = first_blk + uint32_t((j * 32 + lane) / C::LANES_PER_BLOCK);
    const bool valid   = blk < total_blocks;  // the same for the lanes of one block
    float v[C::ELEMS];
    unpack_chunk<In>(raw[j], v);

    // -- amax of the block, on the bits of |v|: NaN > Inf > every finite value --
    uint32_t amax = 0;
#pragma unroll
    for (int i = 0; i < C::ELEMS; ++i) amax = max(amax, __float_as_uint(v[i]) & 0x7FFFFFFFu);
#pragma unroll
    for (int s = 1; s < C::LANES_PER_BLOCK; s *= 2) amax = max(amax, __shfl_xor_sync(0xFFFFFFFFu, amax, s));
    const bool finite = amax < 0x7F800000u;

    // -- scale exponent: floor(log2 amax) - 8 (+1 under RCEIL above 1.75 * 2^k), clamped to -127 --
    int e = int(amax >> 23) - 127 - E4M3_EMAX;
    if (RCEIL && (amax & 0x7FFFFFu) > 0x600000u) e += 1;
    e                     = max(e, MX_SCALE_EXP_MIN);
    const uint32_t scale  = finite ? uint32_t(e + E8M0_BIAS) : E8M0_NAN;
    const float inv_scale = __uint_as_float(uint32_t(127 - e) << 23);  // 2^-e, exact

    // -- data: ELEMS bytes per lane --
    if constexpr (C::ELEMS == 8) {
      uint32_t lo = cvt_e4m3x2(v[0] * inv_scale, v[1] * inv_scale) |
                    cvt_e4m3x2(v[2] * inv_scale, v[3] * inv_scale) << 16;
      uint32_t hi = cvt_e4m3x2(v[4] * inv_scale, v[5] * inv_scale) |
                    cvt_e4m3x2(v[6] * inv_scale, v[7] * inv_scale) << 16;
      if (!finite) lo = hi = 0x7F7F7F7Fu;
      if (valid) reinterpret_cast<uint2*>(data)[chunk0 + j * 32 + lane] = make_uint2(lo, hi);
    } else {
      uint32_t word = cvt_e4m3x2(v[0] * inv_scale, v[1] * inv_scale) |
                      cvt_e4m3x2(v[2] * inv_scale, v[3] * inv_scale) << 16;
      if (!finite) word = 0x7F7F7F7Fu;
      if (valid) reinterpret_cast<uint32_t*>(data)[chunk0 + j * 32 + lane] = word;
    }

    // -- scales, in the blocked layout --
    if (pack_scales) {  // uniform: K/32 % 4 == 0, so blocks 4t..4t+3 are 4 contiguous scale bytes
      const int base  = lane & ~(C::LANES_PER_PACK - 1);
      uint32_t packed = 0;
#pragma unroll
      for (int t = 0; t < 4; ++t)
        packed |= __shfl_sync(0xFFFFFFFFu, scale, base + t * C::LANES_PER_BLOCK) << (8 * t);
      if (valid && lane % C::LANES_PER_PACK == 0) {
        const uint32_t row = fast_div(blk, scale_cols), col = blk - row * scale_cols.divisor;
        *reinterpret_cast<uint32_t*>(scales + mx_scale_offset(int(row), int(col), int(scale_cols.divisor))) =
            packed;
      }
    } else if (valid && lane % C::LANES_PER_BLOCK == 0) {
      const uint32_t row = fast_div(blk, scale_cols), col = blk - row * scale_cols.divisor;
      scales[mx_scale_offset(int(row), int(col), int(scale_cols.divisor))] = uint8_t(scale);
    }
  }
}

template <typename In>
void launch(const void* in, int64_t rows, int64_t k, MxRule rule, void* data, void* scales,
            cudaStream_t stream) {
  const int scale_cols        = mx_scale_cols(int(k));
  const uint32_t total_blocks = uint32_t(rows * scale_cols);
  const uint64_t units        = (total_blocks + Cfg<In>::BLOCKS_PER_UNIT - 1) / Cfg<In>::BLOCKS_PER_UNIT;
  const unsigned ctas         = unsigned((units + WARPS - 1) / WARPS);
  const bool pack_scales      = scale_cols % MX_SF_TILE_COLS == 0;
  auto kernel = rule == MxRule::Rceil ? mx_quantize_kernel<In, true> : mx_quantize_kernel<In, false>;
  kernel<<<ctas, THREADS, 0, stream>>>(static_cast<const uint4*>(in), total_blocks,
                                       make_fast_div(uint32_t(scale_cols)), pack_scales,
                                       static_cast<uint8_t*>(data), static_cast<uint8_t*>(scales));
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace

std::string mx_quantize_gpu(const void* in, MxInput input, int64_t rows, int64_t k, MxRule rule, void* data,
                            void* scales, cudaStream_t stream) {
  const std::string shape = mx_check_shape(rows, k);
  if (!shape.empty()) return shape;
  if (!in || !data || !scales) return "the input, data and scale pointers must all be non-null";
  if (reinterpret_cast<uintptr_t>(in) % 16 || reinterpret_cast<uintptr_t>(data) % 16 ||
      reinterpret_cast<uintptr_t>(scales) % 4)
    return "the input and data pointers must be 16-byte aligned and the scale pointer 4-byte aligned "
           "(the quantizer moves 16-byte chunks; cudaMalloc gives 256-byte alignment)";
  const int scale_cols = mx_scale_cols(int(k));
  if (rows % MX_SF_TILE_ROWS != 0 || scale_cols % MX_SF_TILE_COLS != 0)
    CUDA_CHECK(cudaMemsetAsync(scales, MX_SCALE_PAD, mx_scale_tensor_bytes(rows, k), stream));
  if (input == MxInput::Bf16)
    launch<__nv_bfloat16>(in, rows, k, rule, data, scales, stream);
  else
    launch<float>(in, rows, k, rule, data, scales, stream);
  return "";
}

}  // namespace gemm
