// bw_scale_layout.h: where each fp32 scale of a block-scaled fp8 operand lives, at the two granularities
// Hopper can afford (DeepSeek-V3's recipe): 1x128 (one scale per row per 128 elements of K, for
// activations) and 128x128 (one scale per 128-row x 128-column block, for weights). Exactly the layouts
// cuBLASLt reads on sm_90 with the scale modes CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F and
// CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F.
//
// Source: the cuBLAS documentation, "128-element 1D and 128x128 2D Block Scaling For FP8 Data Types" >
// "Scaling factors layouts" (the modes exist since cuBLAS 12.9; cublasLt.h only names them and says "see
// documentation for layout information"). An operand here is [rows, K], K-major (A is [M, K], B is [N, K]);
// L = ceil(K / 128).
//  - VEC128_32F: "M-major for A with shape M x L (elements along the M dimension are contiguous in
//    memory), N-major for B with shape N x L". So scale (row, kb) is at float index kb * rows + row: each
//    128-wide K block is one column of `rows` contiguous floats. The documentation also says "M and N must be
//    multiples of 4"; for other row counts this file pads each column to round_up(rows, 4) floats, the
//    16-byte aligned column that a TMA load of a column needs (DeepGEMM's "TMA-aligned" MN-major scale
//    layout). Where cuBLASLt accepts the shape the two are the same layout.
//  - BLK128x128_32F: "K-major and the stride between the consecutive columns must be a multiple of 4. Let
//    L4 = L rounded up to a multiple of 4: the shape of the scaling factors is L4 x ceil(M / 128)" (N for B).
//    So scale (row block p, kb) is at float index p * L4 + kb: each 128-row block is one column of L4
//    floats, the L scales of its K blocks followed by L4 - L padding floats.
//  - "Starting addresses of scaling factors must be 16B aligned."
// Padding floats (rows round_up(rows, 4) - rows of every 1x128 column, K blocks L4 - L of every 128x128
// column) are +0.0f: the quantizers write them (mxfp8/bw_quant.h says why 0).
#pragma once

#include <cstdint>

#include "common/descriptors.cuh"  // GEMM_HD

namespace gemm {

constexpr int BW_BLOCK       = 128;  // elements of K (and rows, for 128x128) sharing one scale
constexpr int BW_LD_ALIGN    = 4;    // floats: the 16-byte alignment of every scale column
constexpr float BW_SCALE_PAD = 0.0f;

GEMM_HD constexpr int bw_round_up(int x, int multiple) {
  return (x + multiple - 1) / multiple * multiple;
}

// L: the 128-wide blocks of a K-long row, the last one partial when K % 128 != 0.
GEMM_HD constexpr int bw_k_blocks(int k) {
  return (k + BW_BLOCK - 1) / BW_BLOCK;
}
// The 128-row blocks of `rows` rows, the last one partial when rows % 128 != 0.
GEMM_HD constexpr int bw_row_blocks(int rows) {
  return (rows + BW_BLOCK - 1) / BW_BLOCK;
}

// ---- 1x128 (cuBLASLt VEC128_32F): L columns of round_up(rows, 4) floats, rows contiguous ----
GEMM_HD constexpr int bw_1x128_column_stride(int rows) {
  return bw_round_up(rows, BW_LD_ALIGN);
}
GEMM_HD constexpr uint64_t bw_1x128_scale_count(int rows, int k) {
  return uint64_t(bw_k_blocks(k)) * uint64_t(bw_1x128_column_stride(rows));
}
// Float index of the scale of row `row`, K block `kb` (elements [128 kb, 128 kb + 128) of the row).
GEMM_HD constexpr uint64_t bw_1x128_scale_index(int row, int kb, int rows) {
  return uint64_t(kb) * uint64_t(bw_1x128_column_stride(rows)) + uint64_t(row);
}

// ---- 128x128 (cuBLASLt BLK128x128_32F): ceil(rows / 128) columns of L4 floats, K blocks contiguous ----
GEMM_HD constexpr int bw_128x128_column_stride(int k) {
  return bw_round_up(bw_k_blocks(k), BW_LD_ALIGN);
}
GEMM_HD constexpr uint64_t bw_128x128_scale_count(int rows, int k) {
  return uint64_t(bw_row_blocks(rows)) * uint64_t(bw_128x128_column_stride(k));
}
// Float index of the scale of the block of rows [128 p, 128 p + 128) and K elements [128 kb, 128 kb + 128).
GEMM_HD constexpr uint64_t bw_128x128_scale_index(int row_block, int kb, int k) {
  return uint64_t(row_block) * uint64_t(bw_128x128_column_stride(k)) + uint64_t(kb);
}

}  // namespace gemm
