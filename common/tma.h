// tma.h: tensor maps for cp.async.bulk.tensor, with the TMA rules checked on the host before encoding.
//
// The encoder (cuTensorMapEncodeTiled, a driver API function) is fetched through
// cudaGetDriverEntryPointByVersion, so nothing links libcuda and the binaries load on machines without a
// driver.
#pragma once

#include <cstdint>
#include <string>

#include <cuda.h>  // CUtensorMap (types only)

#include "common/descriptors.cuh"

namespace gemm {

// How many bytes the L2 fetches for a TMA read that misses it (CUtensorMapL2promotion): 256 for every map
// of the series but one. v8's decode kernels read B once, in boxes of 128-byte rows, and take 128: on an
// H200 they ran 1-6% faster with it (docs/performance/decode.md, "Which L2 promotion for B?").
enum class L2Promotion { None, B64, B128, B256 };

// A tiled tensor map, innermost dimension first (as cuTensorMapEncodeTiled takes it). rank 2..4.
struct TmaDesc {
  int rank            = 2;
  uint64_t dims[4]    = {};  // global extent of each dimension, in elements
  uint64_t strides[3] = {};  // byte stride of dimensions 1..rank-1 (dimension 0 is contiguous)
  uint32_t box[4]     = {};  // box extent of each dimension, in elements
  uint32_t elem_bytes = 2;
  Swizzle swizzle     = Swizzle::None;
  L2Promotion l2_promotion = L2Promotion::B256;
};

// Empty string if the descriptor obeys the TMA rules (cuTensorMapEncodeTiled in the CUDA Driver API
// reference): global address 16-B aligned; dims in [1, 2^32]; strides multiples of 16 B below 2^40; box dims
// in [1, 256]; the inner box row a multiple of 16 B and, with a swizzle, no wider than the swizzle span.
// Else a message naming the broken rule.
std::string validate_tma(const TmaDesc& d, const void* global_address);

// Validates, then encodes. On failure prints what was wrong (rule, or the driver's error) and exits(1).
CUtensorMap make_tensor_map(const TmaDesc& d, const void* global_address, const char* what);

// The two layouts of the series for a K-major bf16/fp8 operand [rows_total x k_total] with a
// [box_rows x box_k] tile:
//  - 2D: dims {k_total, rows_total}, box {box_k, box_rows} (box_k elements = one 16 B slice, or one swizzle
//    span); a kernel issues block_k / box_k of them per tile.
//  - 3D: dims {slice, rows_total, k_total/slice}, strides {row bytes, slice bytes}, box {slice, box_rows,
//    block_k/slice}: one TMA lands block_k/slice contiguous [box_rows x slice] slices.
TmaDesc kmajor_tma_2d(uint64_t rows_total, uint64_t k_total, uint32_t box_rows, uint32_t box_k,
                      uint32_t elem_bytes, Swizzle swizzle);
TmaDesc kmajor_tma_3d(uint64_t rows_total, uint64_t k_total, uint32_t box_rows, uint32_t block_k,
                      uint32_t slice_elems, uint32_t elem_bytes, Swizzle swizzle);
// The same 3D view from the numbers a stage writes out (v1, v2): box {slice, box_rows, slices per tile} and
// the byte stride of dimension 2, one slice along K; dims {box[0], rows_total, k_total / box[0]}, dimension
// 1's stride k_total * elem_bytes. The overload above builds its view through this one.
TmaDesc kmajor_tma_3d(uint64_t rows_total, uint64_t k_total, const uint32_t (&box)[3], uint32_t slice_bytes,
                      uint32_t elem_bytes, Swizzle swizzle);

// True if a 3D view with this box and dimension-2 stride lands tile t in its shared-memory layout
// (common/descriptors.cuh, KMajorTile): slices one layout slice wide (16 B, or the swizzle span), all of the
// tile's rows, all its slices, and consecutive slices one slice apart along K in global memory.
constexpr bool kmajor_tma_3d_lands(KMajorTile t, const uint32_t (&box)[3], uint32_t slice_bytes) {
  const uint32_t slice = kmajor_slice_bytes(t);
  return slice_bytes == slice && box[0] * uint32_t(t.elem_bytes) == slice && box[1] == uint32_t(t.rows) &&
         box[2] * slice == uint32_t(t.block_k) * uint32_t(t.elem_bytes);
}

}  // namespace gemm
