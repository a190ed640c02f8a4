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

namespace gemm {

// ---- the scale tile in shared memory and in tensor memory (Blackwell, mxfp8/matmul_mxfp8.cu) ----
//
// tcgen05.cp .32x128b reads a 32-row x 128-bit (16-byte) source through a shared-memory descriptor, in the
// canonical K-major no-swizzle layout (PTX ISA "tcgen05 Shared Memory Descriptor", "Shared Memory Matrix
// Layout": core matrices of 8 rows x 16 B, row r%8 of a core matrix at +16 (r%8), the next 8 rows at +SBO,
// the next 16 B along K at +LBO). A 512-byte scale tile is exactly 32 lines of 16 B (line i at byte 16 i),
// so:
//  - SBO = 8 lines x 16 B = 128 B: the one value under which row r of the source is line r of the tile;
//  - LBO: the source is one core matrix wide (128 bits = 16 B), so no byte of it is at +LBO: the field is
//    never used and 0 is written. (Seed 001 found "LBO 0, SBO 128" by trial; tests/test_mxfp8_sm100.cpp
//    derives both in the layout model: SBO 128 is the only SBO that reads the right lines, any LBO reads the
//    same bytes; tests/test_cutlass_crosscheck.cpp compares with the descriptor CuTe builds for the same
//    source: the same SBO, and LBO 16 B there, in the field nothing reads.)
// .warpx4 copies line r into TMEM lane r of each of the four 32-lane quarters; its 16 bytes fill 4 columns:
// byte b of line r goes to column b / 4, byte b % 4 of that 32-bit cell. With the blocked layout (line r
// holds rows r, r + 32, r + 64, r + 96 of the tile, 4 scales each) the scale of (row, scale column j) of the
// tile ends up in lane row % 32, column row / 32, byte j: what the block-scaled MMA reads with SF id j
// (PTX ISA "tcgen05 Scale factor A/B matrix layout", .block32 with K = 32 per MMA).
constexpr uint32_t MX_SF_CP_LBO    = 0;    // unused: the source is one 16-byte core matrix wide
constexpr uint32_t MX_SF_CP_SBO    = 128;  // 8 lines of 16 B: the next 8 rows of the 32-row source
constexpr uint32_t MX_SF_TMEM_COLS = 4;    // TMEM columns one scale tile fills (16 B per lane)

GEMM_HD constexpr uint64_t mx_sf_cp_desc_sm100(uint32_t smem_addr) {
  return make_smem_desc_sm100(smem_addr, MX_SF_CP_LBO, MX_SF_CP_SBO, Swizzle::None);
}

// Where the scale of row `row` (0..255 of an MMA operand) and scale column `sf_id` (0..3 of a tile) sits
// relative to the TMEM address of the first scale tile of the operand, one tile per 128 rows placed
// MX_SF_TMEM_COLS columns apart: lane (in every quarter) row % 32, column row / 32, byte sf_id.
struct MxSfTmemCell {
  uint32_t lane, column, byte;
};
GEMM_HD constexpr MxSfTmemCell mx_sf_tmem_cell(int row, int sf_id) {
  return {uint32_t(row % 32), uint32_t(row / 32), uint32_t(sf_id)};
}

}  // namespace gemm
