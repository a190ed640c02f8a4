// mx_scale_layout.h: where each e8m0 scale factor of an MXFP8 operand lives in the blocked layout that
// cuBLASLt reads (CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0) and tcgen05.cp copies into tensor memory as is.
//
// Layout (cuBLAS documentation, "1D Block Scaling Factors Layout"; the same 128x4 tiles are the tcgen05
// block-scaling scale-factor layout that one tcgen05.cp .32x128b.warpx4 moves per 512-byte tile):
//  - an operand of `rows` rows (M for A, N for B) and K columns has one scale per 32 consecutive K elements:
//    a rows x ceil(K / 32) grid of scales, row r and scale column j scaling elements [32j, 32j + 32) of row
//    r;
//  - the grid is padded to a multiple of 128 rows and of 4 scale columns;
//  - it is cut into tiles of 128 rows x 4 scale columns, 512 contiguous bytes each, stored row-block-major:
//    all the K tiles of rows [0, 128) first, then those of rows [128, 256), ...;
//  - inside a tile, scale (r, j) is at byte (r % 32) * 16 + ((r % 128) / 32) * 4 + (j % 4): 32 lines of
//    16 bytes, line i holding rows i, i + 32, i + 64, i + 96 with their 4 scales each.
// Padding bytes are never read for real rows or columns; cuBLAS documents no value for them.
#pragma once

#include <cstdint>

#include "common/descriptors.cuh"  // GEMM_HD

namespace gemm {

constexpr int MX_BLOCK_K       = 32;   // K elements sharing one scale (OCP MX: block size 32)
constexpr int MX_SF_TILE_ROWS  = 128;  // rows of one scale tile
constexpr int MX_SF_TILE_COLS  = 4;    // scale columns of one scale tile (4 x 32 = 128 K elements)
constexpr int MX_SF_TILE_BYTES = MX_SF_TILE_ROWS * MX_SF_TILE_COLS;  // 512

GEMM_HD constexpr int mx_round_up(int x, int multiple) {
  return (x + multiple - 1) / multiple * multiple;
}

// Scale columns of a K-long row: one per 32 elements.
GEMM_HD constexpr int mx_scale_cols(int k) {
  return (k + MX_BLOCK_K - 1) / MX_BLOCK_K;
}

// The padded grid: rows to a multiple of 128, scale columns to a multiple of 4.
GEMM_HD constexpr int mx_padded_rows(int rows) {
  return mx_round_up(rows, MX_SF_TILE_ROWS);
}
GEMM_HD constexpr int mx_padded_scale_cols(int scale_cols) {
  return mx_round_up(scale_cols, MX_SF_TILE_COLS);
}

// Bytes of the whole scale tensor of a rows x scale_cols grid.
GEMM_HD constexpr uint64_t mx_scale_bytes(int rows, int scale_cols) {
  return uint64_t(mx_padded_rows(rows)) * uint64_t(mx_padded_scale_cols(scale_cols));
}

// Byte offset of the 512-byte tile of rows [128 * row_block, +128), scale columns [4 * col_block, +4).
GEMM_HD constexpr uint64_t mx_scale_tile_offset(int row_block, int col_block, int scale_cols) {
  const int col_blocks = mx_padded_scale_cols(scale_cols) / MX_SF_TILE_COLS;
  return (uint64_t(row_block) * uint64_t(col_blocks) + uint64_t(col_block)) * MX_SF_TILE_BYTES;
}

// Byte offset of scale (row, scale_col) in the scale tensor of a grid with `scale_cols` scale columns.
GEMM_HD constexpr uint64_t mx_scale_offset(int row, int scale_col, int scale_cols) {
  return mx_scale_tile_offset(row / MX_SF_TILE_ROWS, scale_col / MX_SF_TILE_COLS, scale_cols) +
         uint64_t((row % 32) * 16 + ((row % MX_SF_TILE_ROWS) / 32) * 4 + scale_col % MX_SF_TILE_COLS);
}

}  // namespace gemm
