// edge.h: the arithmetic of "any M and N" (v6 on): tiles by ceil-division, the valid part of an edge tile,
// the K tiles with a short last one, and the one rule left on the shape, for host and device.
//
// Stages v1-v5 take whole tiles only (ShapeRule{BLOCK_M, BLOCK_N, BLOCK_K}). From v6 the kernels take any
// M >= 1 and N >= 1, because TMA does the edge work:
//  - A load whose box reaches past the tensor's extent fills the missing elements with zeros (a box wholly
//    outside too, such as the A rows of a 2-CTA pair's padding tile, scheduler.h: expected from the PTX ISA's
//    out-of-bound rule, to be confirmed on the GPU; a kernel may skip that load instead). Zero rows of
//    A or columns of B give zero rows or columns of C, and zero K columns add nothing to the dot products.
//    So the main loop needs no branch: an edge tile is a full tile whose outer part is discarded, and a short
//    last K tile is a full K tile whose tail is zeros.
//  - The complete_tx byte count of a box is its full size, zero-filled part included (CUTLASS arms its
//    barriers with the same constant bytes for every K tile, edge or not): the expect_tx of a stage does not
//    change at the edges. Confirmed on the H100 for boxes PARTLY outside the tensor (rows past M or N, K
//    past a short last K tile): the Hopper v6 arms every stage with full boxes' bytes, and its ragged GPU
//    tests pass under -DGEMM_DEBUG_HANG=ON (a short count would hang the stage: the bounded wait traps).
//    Boxes WHOLLY outside are not issued by the Hopper v6 (nor counted), so that case stays unverified.
//  - The output of an edge tile must be clipped: a TMA store clips the box to the tensor by itself; a
//    direct (st.global) store needs a predicate, row < rows valid and col < cols valid (tile_extent below).
//
// What stays: TMA global strides are multiples of 16 bytes (cuTensorMapEncodeTiled; tma.h validate_tma).
// A and B are K-major, their row stride is K * sizeof(element), so K must be a multiple of 8 for bf16 (16
// for fp8). The same rule applies to C's row stride, N * 2 bytes, for a TMA store of C: a kernel with a
// TMA-store epilogue needs N % 8 == 0, or a predicated direct store for other N (tma_row_stride_ok(N, 2)).
// And a 3D tensor map that cuts K into slices (tma.h kmajor_tma_3d: 8 elements without swizzle, 64 with the
// 128B swizzle) needs K to be a multiple of its slice: its K extent is K / slice whole slices, so a K tail
// would be dropped (or, with one more slice, read from the next row) instead of being zero-filled. Ragged K
// with 64-element slices takes the 2D maps, whose K extent is K itself.
#pragma once

#include <cstdint>

#include "common/descriptors.cuh"  // GEMM_HD

namespace gemm {

GEMM_HD constexpr int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// Tiles of `block` elements covering `extent` (>= 1) elements: the last one may be partial.
GEMM_HD constexpr int num_tiles(int64_t extent, int block) {
  return int(ceil_div(extent, block));
}

// Elements of tile `tile` that lie inside [0, extent): `block` for an interior tile, fewer for the last,
// and 0 for a tile wholly outside (the padding tile of a 2-CTA pair when tiles_m is odd).
GEMM_HD constexpr int tile_extent(int64_t extent, int block, int tile) {
  const int64_t left = extent - int64_t(tile) * block;
  return left <= 0 ? 0 : (left < block ? int(left) : block);
}

// K tiles of the main loop, the short last one included, and the K elements of that last one (the rest of
// its box is zero-filled by TMA).
GEMM_HD constexpr int num_k_tiles(int64_t k, int block_k) {
  return num_tiles(k, block_k);
}
GEMM_HD constexpr int last_k_tile_extent(int64_t k, int block_k) {
  return tile_extent(k, block_k, num_k_tiles(k, block_k) - 1);
}

// TMA: a global stride is a multiple of this many bytes (cuTensorMapEncodeTiled, globalStrides).
constexpr int64_t TMA_GLOBAL_STRIDE_ALIGN = 16;

// Does a row of `row_elems` elements of `elem_bytes` bytes make a valid TMA global stride?
GEMM_HD constexpr bool tma_row_stride_ok(int64_t row_elems, int elem_bytes) {
  return row_elems * elem_bytes % TMA_GLOBAL_STRIDE_ALIGN == 0;
}

// The multiple K must be for K-major operands of `elem_bytes`-byte elements: 8 for bf16, 16 for fp8.
GEMM_HD constexpr int64_t tma_k_multiple(int elem_bytes) {
  return TMA_GLOBAL_STRIDE_ALIGN / elem_bytes;
}

}  // namespace gemm
