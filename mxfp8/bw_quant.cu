// bw_quant.cu: the GPU block quantizers at the granularities Hopper can afford. bf16 or fp32 [rows, K] ->
// e4m3 data [rows, K] + fp32 scales, one per 1x128 block (activations) or per 128x128 block (weights), in
// cuBLASLt's VEC128_32F / BLK128x128_32F layouts, byte for byte what the CPU reference of mxfp8/bw_quant.h
// writes (rules, special cases, ragged shapes and padding are defined there).
//
// What it is: a memory-bound pass like the MX quantizer (mxfp8/mx_quant.cu), and measured the same way,
// against a device-to-device copy (mx_quant_bench --format 1x128 | 128x128). Per bf16 element: 2 bytes read,
// 1 + 4/128 (1x128) or 1 + 4/16384 (128x128) written.
//  1. 1x128 (bw_1x128_kernel): a warp takes a unit of 8 rows x one 128-wide K block. A row's block is 16
//     lanes' 16-byte chunks (bf16; 32 lanes for fp32), so each warp-wide load reads two rows' 256 contiguous
//     bytes (one row's 512 for fp32), and all of the unit's loads are in flight before the first is used.
//     The units are numbered row group first, K block second: consecutive warps read neighbouring K
//     blocks of the same 8 rows (a CTA's 8 warps: up to 2 KB contiguous per row, bf16). The 8 scales of a
//     unit are rows-contiguous in the VEC128 layout: one 32-byte sector. The block's amax is a butterfly over
//     the row's lanes.
//  2. 128x128 (bw_128x128_kernel): a CTA takes one 128x128 block. Every thread loads its 8 chunks (each
//     warp-wide load reads two rows' 256 contiguous bytes), keeps them in registers, and the block's amax
//     goes through a warp butterfly and one shared-memory exchange between warps (__syncthreads); then each
//     thread converts and stores its own chunks. The barrier sits between a CTA's loads and its stores, so
//     several CTAs per SM (8 for bf16) keep loads in flight while others convert.
//  3. In both: amax is taken on the bits (for |x| the fp32 bit patterns order like the values, and NaN and
//     infinity compare above every finite value), clamped to BW_AMAX_MIN on the bits; scale and inverse are
//     __fdiv_rn (IEEE division, round to nearest even, whatever the compiler flags), once per block per
//     lane; each element is __fmul_rn(v, inverse) then PTX cvt.rn.satfinite.e4m3x2.f32, as the reference.
//  4. Every byte of the outputs is written by the kernel, padding included: the 1x128 padding rows
//     [rows, round_up(rows, 4)) of each column belong to the last row group's unit (8 rows cover them), the
//     128x128 padding K blocks [L, round_up(L, 4)) to the last K block's CTA. No memset.
// Ragged shapes need no special path: lanes past the last row or past K load zeros (which cannot raise an
// amax) and store nothing.
// PTX ISA: cvt (the .e4m3x2 .satfinite forms, sm_89+), shfl.sync, bar.sync.
#include "mxfp8/bw_quant_gpu.h"

#include <cuda_bf16.h>

#include "common/check.h"
#include "mxfp8/fast_div.h"
#include "mxfp8/quant_device.cuh"  // unpack_chunk, cvt_e4m3x2

namespace gemm {
namespace {

// ---- configuration ----
constexpr int ROW_THREADS   = 256;  // 1x128: 8 warps per CTA, one unit each
constexpr int ROW_WARPS     = ROW_THREADS / 32;
constexpr int ROWS_PER_UNIT = 8;  // 1x128: a warp's unit is 8 rows x one K block (8 scales: 32 bytes)
constexpr int BLOCK_CHUNKS_PER_THREAD = 8;  // 128x128: 16-byte chunks each thread loads and keeps

// 1x128: how a warp's unit of 8 rows x 128 columns maps onto its lanes.
template <typename In>
struct RowCfg {
  static constexpr int ELEMS         = quant_chunk_elems<In>;          // 8 bf16 or 4 fp32 per 16-byte chunk
  static constexpr int LANES_PER_ROW = BW_BLOCK / ELEMS;               // 16 or 32 lanes hold one row's block
  static constexpr int ROWS_PER_LOAD = 32 / LANES_PER_ROW;             // 2 or 1 rows per warp-wide load
  static constexpr int LOADS         = ROWS_PER_UNIT / ROWS_PER_LOAD;  // 4 or 8 loads per lane in flight
  static_assert(32 % LANES_PER_ROW == 0 && ROWS_PER_UNIT % ROWS_PER_LOAD == 0,
                "a warp-wide load must hold whole rows of one block");
  static_assert(ROWS_PER_UNIT % BW_LD_ALIGN == 0,
                "the last unit of a column must cover its padding rows, up to round_up(rows, 4)");
};

// 128x128: how a CTA's 128 x 128 block maps onto its threads.
template <typename In>
struct BlockCfg {
  static constexpr int ELEMS          = quant_chunk_elems<In>;
  static constexpr int CHUNKS_PER_ROW = BW_BLOCK / ELEMS;                                     // 16 or 32
  static constexpr int THREADS        = BW_BLOCK * CHUNKS_PER_ROW / BLOCK_CHUNKS_PER_THREAD;  // 256 or 512
  static constexpr int WARPS          = THREADS / 32;
  static constexpr int ROWS_PER_PASS  = THREADS / CHUNKS_PER_ROW;  // rows one load of every thread covers
  static_assert(THREADS % CHUNKS_PER_ROW == 0, "a thread's chunks must all sit in the same columns");
  static_assert(ROWS_PER_PASS * BLOCK_CHUNKS_PER_THREAD == BW_BLOCK,
                "the threads' chunks must cover 128 rows");
  static_assert(THREADS <= 1024 && THREADS % 32 == 0, "a CTA of whole warps");
};

// ---- device helpers ----
constexpr uint32_t ABS_MASK    = 0x7FFFFFFFu;
constexpr uint32_t INF_BITS    = 0x7F800000u;  // |x| bits >= this: infinity or NaN
constexpr uint32_t E4M3_NAN_X4 = 0x7F7F7F7Fu;

// The largest |x| of a chunk, on the bits.
template <int N>
__device__ __forceinline__ uint32_t chunk_amax_bits(const float (&v)[N]) {
  uint32_t amax = 0;
#pragma unroll
  for (int i = 0; i < N; ++i) amax = max(amax, __float_as_uint(v[i]) & ABS_MASK);
  return amax;
}

// scale = amax / 448 and inverse = 448 / amax of a block whose |x| maximum has bits amax_bits (finite),
// amax clamped to BW_AMAX_MIN: mxfp8/bw_quant.h, steps 2 and 3.
struct DeviceScale {
  float scale, inverse;
};
__device__ __forceinline__ DeviceScale block_scale(uint32_t amax_bits) {
  const float amax = __uint_as_float(max(amax_bits, BW_AMAX_MIN_BITS));
  return {__fdiv_rn(amax, BW_E4M3_MAX), __fdiv_rn(BW_E4M3_MAX, amax)};
}

// A chunk's elements to e4m3: 8 bytes (bf16 chunk) or 4 (fp32 chunk), first element in the low byte.
template <int N>
__device__ __forceinline__ uint2 encode_chunk(const float (&v)[N], float inverse, bool finite) {
  uint32_t w[2] = {0, 0};
#pragma unroll
  for (int i = 0; i < N; i += 4)
    w[i / 4] = cvt_e4m3x2(__fmul_rn(v[i], inverse), __fmul_rn(v[i + 1], inverse)) |
               cvt_e4m3x2(__fmul_rn(v[i + 2], inverse), __fmul_rn(v[i + 3], inverse)) << 16;
  if (!finite) w[0] = w[1] = E4M3_NAN_X4;
  return make_uint2(w[0], w[1]);
}

// Stores the e4m3 bytes of the chunk whose first element is element `first` of the operand.
template <int N>
__device__ __forceinline__ void store_chunk(uint8_t* data, uint64_t first, uint2 bytes) {
  if constexpr (N == 8)
    reinterpret_cast<uint2*>(data)[first / 8] = bytes;
  else
    reinterpret_cast<uint32_t*>(data)[first / 4] = bytes.x;
}

// ---- 1x128 ----
template <typename In>
__global__ void __launch_bounds__(ROW_THREADS)
    bw_1x128_kernel(const uint4* __restrict__ in, uint32_t rows, uint32_t k, uint32_t units, FastDiv k_blocks,
                    uint32_t col_stride, uint8_t* __restrict__ data, float* __restrict__ scales) {
  using C             = RowCfg<In>;
  const int lane      = threadIdx.x % 32;
  const uint32_t unit = blockIdx.x * ROW_WARPS + threadIdx.x / 32;
  if (unit >= units) return;  // the whole warp: the shuffles below need every lane
  const uint32_t group = fast_div(unit, k_blocks), kb = unit - group * k_blocks.divisor;
  const uint32_t col = kb * BW_BLOCK + (lane % C::LANES_PER_ROW) * C::ELEMS;  // this lane's first column
  auto row_of = [&](int j) { return group * ROWS_PER_UNIT + j * C::ROWS_PER_LOAD + lane / C::LANES_PER_ROW; };

  // -- load: all the unit's chunks in flight at once; lanes past the last row or past K hold zeros --
  uint4 raw[C::LOADS];
#pragma unroll
  for (int j = 0; j < C::LOADS; ++j) {
    const uint32_t row = row_of(j);
    raw[j] =
        row < rows && col < k ? __ldcs(in + (uint64_t(row) * k + col) / C::ELEMS) : make_uint4(0, 0, 0, 0);
  }

#pragma unroll
  for (int j = 0; j < C::LOADS; ++j) {
    const uint32_t row = row_of(j);
    float v[C::ELEMS];
    unpack_chunk<In>(raw[j], v);

    // -- amax of the row's block: a butterfly over the lanes that hold it --
    uint32_t amax = chunk_amax_bits(v);
#pragma unroll
    for (int s = 1; s < C::LANES_PER_ROW; s *= 2) amax = max(amax, __shfl_xor_sync(0xFFFFFFFFu, amax, s));
    const bool finite   = amax < INF_BITS;
    const DeviceScale d = block_scale(amax);

    // -- data: ELEMS bytes per lane --
    if (row < rows && col < k)
      store_chunk<C::ELEMS>(data, uint64_t(row) * k + col, encode_chunk(v, d.inverse, finite));

    // -- scale: one lane per row; rows past the last real one, up to the column's padded length, write 0 --
    if (lane % C::LANES_PER_ROW == 0 && row < col_stride)
      scales[uint64_t(kb) * col_stride + row] = row >= rows ? BW_SCALE_PAD
                                                : finite    ? d.scale
                                                            : __uint_as_float(BW_SCALE_NAN_BITS);
  }
}

// ---- 128x128 ----
template <typename In>
__global__ void __launch_bounds__(BlockCfg<In>::THREADS)
    bw_128x128_kernel(const uint4* __restrict__ in, uint32_t rows, uint32_t k, FastDiv k_blocks,
                      uint32_t col_stride, uint8_t* __restrict__ data, float* __restrict__ scales) {
  using C = BlockCfg<In>;
  __shared__ uint32_t warp_amax[C::WARPS];
  const uint32_t row_block = fast_div(blockIdx.x, k_blocks), kb = blockIdx.x - row_block * k_blocks.divisor;
  const uint32_t col = kb * BW_BLOCK + (threadIdx.x % C::CHUNKS_PER_ROW) * C::ELEMS;  // for every chunk
  auto row_of        = [&](int j) {
    return row_block * BW_BLOCK + j * C::ROWS_PER_PASS + threadIdx.x / C::CHUNKS_PER_ROW;
  };

  // -- load: the thread's chunks of the block, all in flight; past the last row or past K: zeros --
  uint4 raw[BLOCK_CHUNKS_PER_THREAD];
#pragma unroll
  for (int j = 0; j < BLOCK_CHUNKS_PER_THREAD; ++j) {
    const uint32_t row = row_of(j);
    raw[j] =
        row < rows && col < k ? __ldcs(in + (uint64_t(row) * k + col) / C::ELEMS) : make_uint4(0, 0, 0, 0);
  }

  // -- amax of the block: the thread's chunks, a warp butterfly, then the warps through shared memory --
  uint32_t amax = 0;
#pragma unroll
  for (int j = 0; j < BLOCK_CHUNKS_PER_THREAD; ++j) {
    float v[C::ELEMS];
    unpack_chunk<In>(raw[j], v);
    amax = max(amax, chunk_amax_bits(v));
  }
#pragma unroll
  for (int s = 1; s < 32; s *= 2) amax = max(amax, __shfl_xor_sync(0xFFFFFFFFu, amax, s));
  if (threadIdx.x % 32 == 0) warp_amax[threadIdx.x / 32] = amax;
  __syncthreads();
#pragma unroll
  for (int w = 0; w < C::WARPS; ++w) amax = max(amax, warp_amax[w]);
  const bool finite   = amax < INF_BITS;
  const DeviceScale d = block_scale(amax);

  // -- data: each thread its own chunks --
#pragma unroll
  for (int j = 0; j < BLOCK_CHUNKS_PER_THREAD; ++j) {
    const uint32_t row = row_of(j);
    float v[C::ELEMS];
    unpack_chunk<In>(raw[j], v);
    if (row < rows && col < k)
      store_chunk<C::ELEMS>(data, uint64_t(row) * k + col, encode_chunk(v, d.inverse, finite));
  }

  // -- scale, and after the last K block the column's padding floats --
  if (threadIdx.x == 0) {
    float* column = scales + uint64_t(row_block) * col_stride;
    column[kb]    = finite ? d.scale : __uint_as_float(BW_SCALE_NAN_BITS);
    if (kb + 1 == k_blocks.divisor)
      for (uint32_t pad = kb + 1; pad < col_stride; ++pad) column[pad] = BW_SCALE_PAD;
  }
}

template <typename In>
void launch(const void* in, int64_t rows, int64_t k, BwGranularity g, void* data, float* scales,
            cudaStream_t stream) {
  const int k_blocks = bw_k_blocks(int(k));
  const auto* in4    = static_cast<const uint4*>(in);
  auto* out          = static_cast<uint8_t*>(data);
  if (g == BwGranularity::Row1x128) {
    const uint32_t groups = uint32_t((rows + ROWS_PER_UNIT - 1) / ROWS_PER_UNIT);
    const uint32_t units  = groups * uint32_t(k_blocks);
    const unsigned ctas   = (units + ROW_WARPS - 1) / ROW_WARPS;
    bw_1x128_kernel<In><<<ctas, ROW_THREADS, 0, stream>>>(
        in4, uint32_t(rows), uint32_t(k), units, make_fast_div(uint32_t(k_blocks)),
        uint32_t(bw_1x128_column_stride(int(rows))), out, scales);
  } else {
    const unsigned ctas = unsigned(bw_row_blocks(int(rows))) * unsigned(k_blocks);
    bw_128x128_kernel<In><<<ctas, BlockCfg<In>::THREADS, 0, stream>>>(
        in4, uint32_t(rows), uint32_t(k), make_fast_div(uint32_t(k_blocks)),
        uint32_t(bw_128x128_column_stride(int(k))), out, scales);
  }
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace

std::string bw_quantize_gpu(const void* in, MxInput input, int64_t rows, int64_t k, BwGranularity g,
                            void* data, float* scales, cudaStream_t stream) {
  const std::string shape = bw_check_shape(rows, k);
  if (!shape.empty()) return shape;
  if (!in || !data || !scales) return "the input, data and scale pointers must all be non-null";
  if (reinterpret_cast<uintptr_t>(in) % 16 || reinterpret_cast<uintptr_t>(data) % 16 ||
      reinterpret_cast<uintptr_t>(scales) % 16)
    return "the input, data and scale pointers must be 16-byte aligned (the quantizer moves 16-byte chunks, "
           "and cuBLASLt asks for 16-byte aligned scales; cudaMalloc gives 256-byte alignment)";
  if (input == MxInput::Bf16)
    launch<__nv_bfloat16>(in, rows, k, g, data, scales, stream);
  else
    launch<float>(in, rows, k, g, data, scales, stream);
  return "";
}

}  // namespace gemm
