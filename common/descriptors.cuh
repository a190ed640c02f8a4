// descriptors.cuh: bit-exact builders for every descriptor the kernels hand to the tensor cores.
//
// One constexpr __host__ __device__ function per encoding, used by the kernels themselves and checked on the
// CPU by tests/test_layout_model.cpp against an independent model written from the PTX ISA text.
// Every bit field has one commented line naming the PTX ISA section it comes from (PTX ISA for CUDA 13.0;
// section titles rather than numbers, which move between releases):
//   [wgmma-desc]  "Warpgroup MMA > Matrix Descriptor Format"                       (sm_90a)
//   [tc5-desc]    "Tensorcore 5th Generation > Shared Memory Descriptor"           (sm_100a)
//   [tc5-idesc]   "Tensorcore 5th Generation > Instruction descriptor", the tables for .kind::f16 and
//                 .kind::mxf8f6f4 (block-scaled)
//   [tc5-tmem]    "Tensor Memory > Tensor Memory Addressing"
//   [canonical]   "Shared Memory Matrix Layout > Canonical layouts" (K-major, no swizzle and 128B swizzle)
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define GEMM_HD __host__ __device__
#else
#define GEMM_HD
#endif

namespace gemm {

// The swizzle mode a TMA box is written with and an MMA reads it back with. Both sides must agree; the two
// architectures spell the same mode with different codes (see sm90_swizzle_code / sm100_swizzle_code).
enum class Swizzle : uint32_t { None = 0, B32 = 32, B64 = 64, B128 = 128 };

GEMM_HD constexpr uint32_t swizzle_span_bytes(Swizzle s) { return s == Swizzle::None ? 16u : uint32_t(s); }

// ------------------------------------------------------------------------------------------------------------
// wgmma shared-memory matrix descriptor, 64 bits [wgmma-desc]
// ------------------------------------------------------------------------------------------------------------
GEMM_HD constexpr uint64_t sm90_swizzle_code(Swizzle s) {
  // [wgmma-desc] bits 62-63: 0 = no swizzle ("interleave"), 1 = 128B, 2 = 64B, 3 = 32B
  return s == Swizzle::B128 ? 1u : s == Swizzle::B64 ? 2u : s == Swizzle::B32 ? 3u : 0u;
}

// The descriptor from its numbers, the swizzle as the descriptor's own code (v1 writes them out).
GEMM_HD constexpr uint64_t make_smem_desc_sm90(uint32_t smem_addr, uint32_t lbo_bytes, uint32_t sbo_bytes,
                                               uint32_t swizzle_code) {
  return (uint64_t((smem_addr & 0x3FFFF) >> 4))          // [wgmma-desc] bits  0-13: matrix start address >> 4
         | (uint64_t((lbo_bytes & 0x3FFFF) >> 4) << 16)  // [wgmma-desc] bits 16-29: leading dim byte offset >> 4
         | (uint64_t((sbo_bytes & 0x3FFFF) >> 4) << 32)  // [wgmma-desc] bits 32-45: stride dim byte offset >> 4
         | (uint64_t(0) << 49)                           // [wgmma-desc] bits 49-51: base offset (atoms aligned)
         | (uint64_t(swizzle_code & 0x3) << 62);         // [wgmma-desc] bits 62-63: swizzle mode
}
// The same with the swizzle named by its mode, the one the TMA writes with.
GEMM_HD constexpr uint64_t make_smem_desc_sm90(uint32_t smem_addr, uint32_t lbo_bytes, uint32_t sbo_bytes,
                                               Swizzle swizzle) {
  return make_smem_desc_sm90(smem_addr, lbo_bytes, sbo_bytes, uint32_t(sm90_swizzle_code(swizzle)));
}

// ------------------------------------------------------------------------------------------------------------
// tcgen05 shared-memory descriptor, 64 bits [tc5-desc]
// ------------------------------------------------------------------------------------------------------------
GEMM_HD constexpr uint64_t sm100_swizzle_code(Swizzle s) {
  // [tc5-desc] bits 61-63: 0 = none, 1 = 128B with 32B atomic, 2 = 128B, 4 = 64B, 6 = 32B
  return s == Swizzle::B128 ? 2u : s == Swizzle::B64 ? 4u : s == Swizzle::B32 ? 6u : 0u;
}

// The descriptor from its numbers, the swizzle as the descriptor's own code (v1 writes them out).
GEMM_HD constexpr uint64_t make_smem_desc_sm100(uint32_t smem_addr, uint32_t lbo_bytes, uint32_t sbo_bytes,
                                                uint32_t swizzle_code) {
  return (uint64_t((smem_addr & 0x3FFFF) >> 4))          // [tc5-desc] bits  0-13: matrix start address >> 4
         | (uint64_t((lbo_bytes & 0x3FFFF) >> 4) << 16)  // [tc5-desc] bits 16-29: leading dim byte offset >> 4
         | (uint64_t((sbo_bytes & 0x3FFFF) >> 4) << 32)  // [tc5-desc] bits 32-45: stride dim byte offset >> 4
         | (uint64_t(0b001) << 46)                       // [tc5-desc] bits 46-48: fixed constant 0b001
         | (uint64_t(0) << 49)                           // [tc5-desc] bits 49-51: base offset (atoms aligned)
         | (uint64_t(0) << 52)                           // [tc5-desc] bit  52:    LBO mode (0 = relative offset)
         | (uint64_t(swizzle_code & 0x7) << 61);         // [tc5-desc] bits 61-63: swizzle mode
}
// The same with the swizzle named by its mode, the one the TMA writes with.
GEMM_HD constexpr uint64_t make_smem_desc_sm100(uint32_t smem_addr, uint32_t lbo_bytes, uint32_t sbo_bytes,
                                                Swizzle swizzle) {
  return make_smem_desc_sm100(smem_addr, lbo_bytes, sbo_bytes, uint32_t(sm100_swizzle_code(swizzle)));
}

// ------------------------------------------------------------------------------------------------------------
// tcgen05 instruction descriptors, 32 bits [tc5-idesc]
// ------------------------------------------------------------------------------------------------------------
// Operand formats of .kind::f16 [tc5-idesc]: A/B 0 = F16, 1 = BF16 (not 3: a wrong code is an illegal
// instruction at run time); D 0 = F16, 1 = F32.
enum class F16Kind : uint32_t { F16 = 0, BF16 = 1 };
enum class AccKind : uint32_t { F16 = 0, F32 = 1 };
// Operand formats of .kind::mxf8f6f4 [tc5-idesc]
enum class MxKind : uint32_t { E4M3 = 0, E5M2 = 1, E2M3 = 3, E3M2 = 4, E2M1 = 5 };
// Majorness [tc5-idesc] bits 15/16 ("transpose A/B"): 0 = K-major, 1 = MN-major
enum class Major : uint32_t { K = 0, MN = 1 };

GEMM_HD constexpr uint32_t make_idesc_f16(F16Kind a, F16Kind b, AccKind d, int mma_m, int mma_n,
                                          Major a_major = Major::K, Major b_major = Major::K) {
  return (0u << 0)                                  // [tc5-idesc] bits  0-1: sparsity selector (dense: 0)
         | (0u << 2)                                // [tc5-idesc] bit   2:   sparsity enable (dense)
         | (0u << 3)                                // [tc5-idesc] bit   3:   saturate (integer kinds only)
         | (uint32_t(d) << 4)                       // [tc5-idesc] bits  4-5: D format (F32 = 1)
         | (uint32_t(a) << 7)                       // [tc5-idesc] bits  7-9: A format (BF16 = 1)
         | (uint32_t(b) << 10)                      // [tc5-idesc] bits 10-12: B format (BF16 = 1)
         | (0u << 13) | (0u << 14)                  // [tc5-idesc] bits 13/14: negate A / B
         | (uint32_t(a_major) << 15)                // [tc5-idesc] bit  15:   A major (0 = K-major)
         | (uint32_t(b_major) << 16)                // [tc5-idesc] bit  16:   B major (0 = K-major)
         | ((uint32_t(mma_n) >> 3) << 17)           // [tc5-idesc] bits 17-22: N >> 3
         | ((uint32_t(mma_m) >> 4) << 24);          // [tc5-idesc] bits 24-28: M >> 4 (bit 23 reserved)
}

// .kind::mxf8f6f4.block_scale: the scale-factor ids pick which 32-bit byte lane of the scale TMEM columns holds
// this MMA's scales; the scale type bit selects UE8M0 (1) or UE4M3 (0).
GEMM_HD constexpr uint32_t make_idesc_mxf8f6f4(MxKind a, MxKind b, int mma_m, int mma_n, uint32_t sfa_id = 0,
                                               uint32_t sfb_id = 0, Major a_major = Major::K,
                                               Major b_major = Major::K) {
  return (0u << 0)                                  // [tc5-idesc] bits  0-1: sparsity selector (dense: 0)
         | (0u << 2)                                // [tc5-idesc] bit   2:   sparsity enable (dense)
         | ((sfb_id & 3u) << 4)                     // [tc5-idesc] bits  4-5: B scale-factor data id
         | (uint32_t(a) << 7)                       // [tc5-idesc] bits  7-9: A format (E4M3 = 0)
         | (uint32_t(b) << 10)                      // [tc5-idesc] bits 10-12: B format
         | (0u << 13) | (0u << 14)                  // [tc5-idesc] bits 13/14: negate A / B
         | (uint32_t(a_major) << 15)                // [tc5-idesc] bit  15:   A major (0 = K-major)
         | (uint32_t(b_major) << 16)                // [tc5-idesc] bit  16:   B major (0 = K-major)
         | ((uint32_t(mma_n) >> 3) << 17)           // [tc5-idesc] bits 17-22: N >> 3
         | (1u << 23)                               // [tc5-idesc] bit  23:   scale type (UE8M0 = 1)
         | ((uint32_t(mma_m) >> 4) << 24)           // [tc5-idesc] bits 24-28: M >> 4
         | ((sfa_id & 3u) << 29);                   // [tc5-idesc] bits 29-30: A scale-factor data id
}

// ------------------------------------------------------------------------------------------------------------
// Tensor memory address, 32 bits [tc5-tmem]: lane in the upper 16 bits, column in the lower 16.
// ------------------------------------------------------------------------------------------------------------
GEMM_HD constexpr uint32_t tmem_addr(uint32_t base, uint32_t lane, uint32_t column) {
  return base + (lane << 16) + column;
}

// The first TMEM lane a warp may access with tcgen05.ld/st [tc5-tmem] "Access restrictions": warp w of the
// CTA reaches lanes 32 * (w % 4) .. +31 only. An epilogue of 4 warps that do not start at warp 0 (v6: warps
// 2-5) maps its rows by this, not by its own warp count.
GEMM_HD constexpr uint32_t tmem_warp_lane_base(int warp_id) { return 32u * uint32_t(warp_id % 4); }

// ------------------------------------------------------------------------------------------------------------
// The K-major operand tiles of this series, and where each MMA K step (32 bytes of K) starts inside them.
// ------------------------------------------------------------------------------------------------------------
// A tile of `rows` rows and `block_k` elements of K, as the stages' TMA variants lay it out [canonical]:
//  - Swizzle::None: block_k*elem/16 slices of [rows x 16 B]; row r of slice j at j*rows*16 + r*16, so each
//    8-row x 16 B core matrix is 128 contiguous bytes. LBO = next slice along K, SBO = next 8 rows.
//  - Swizzle::B128: block_k*elem/128 slices of [rows x 128 B]; 8-row x 128 B atoms of 1024 B, the 16 B chunks
//    of row r XOR-permuted by (r % 8). SBO = next atom (1024 B); LBO unused for K-major (written as 16 B).
struct KMajorTile {
  int rows;        // M or N rows of the tile in shared memory
  int block_k;     // K extent of the tile, in elements
  int elem_bytes;  // 2 for bf16, 1 for fp8
  Swizzle swizzle;
};

GEMM_HD constexpr uint32_t kmajor_slice_bytes(KMajorTile t) { return swizzle_span_bytes(t.swizzle); }
GEMM_HD constexpr uint32_t kmajor_lbo(KMajorTile t) {
  return t.swizzle == Swizzle::None ? uint32_t(t.rows) * 16u : 16u;
}
GEMM_HD constexpr uint32_t kmajor_sbo(KMajorTile t) { return 8u * swizzle_span_bytes(t.swizzle); }

// Byte offset of row `row` (a multiple of 8) of K-slice 0: where a sub-tile of rows starts (e.g. the 64-row
// half of a 128-row tile that one Hopper warpgroup multiplies).
GEMM_HD constexpr uint32_t kmajor_row_offset(KMajorTile t, int row) {
  return uint32_t(row) * swizzle_span_bytes(t.swizzle);
}

// Byte offset of MMA K step `k_step` (each step covers 32 bytes of K: k16 for bf16, k32 for fp8). With no
// swizzle a step spans two whole 16 B slices; with 128B swizzle it moves 32 B along the atom's first row and
// the MMA applies the same XOR pattern the TMA wrote with, then jumps slices every 128 B of K.
GEMM_HD constexpr uint32_t kmajor_kstep_offset(KMajorTile t, int k_step) {
  const uint32_t k_bytes = uint32_t(k_step) * 32u;
  const uint32_t span    = swizzle_span_bytes(t.swizzle);
  return (k_bytes / span) * uint32_t(t.rows) * span + (k_bytes % span);
}

GEMM_HD constexpr int kmajor_ksteps(KMajorTile t) { return t.block_k * t.elem_bytes / 32; }
GEMM_HD constexpr uint32_t kmajor_tile_bytes(KMajorTile t) {
  return uint32_t(t.rows) * uint32_t(t.block_k) * uint32_t(t.elem_bytes);
}

// The bytes of tile t that land when it is loaded as `boxes` boxes of `box_rows` rows (box j at row
// row0 + j * box_rows) from an operand of `rows` rows: a box that starts past the last row is not issued, one
// that starts inside lands whole (rows past the end as zeros). What a stage's barrier expects (v8, Hopper).
GEMM_HD constexpr uint32_t kmajor_bytes_inside(KMajorTile t, int row0, int rows, int boxes, int box_rows) {
  uint32_t inside = 0;
  for (int j = 0; j < boxes; ++j)
    inside += row0 + j * box_rows < rows ? uint32_t(box_rows) * uint32_t(t.block_k) * uint32_t(t.elem_bytes) : 0;
  return inside;
}

// True if every MMA K step k of the tile starts k * step_bytes into it: where a stage writes its K step as one
// number (v1: two 16 B slices, 2 x LBO; v2: 32 B along the swizzle atom), this is the number.
GEMM_HD constexpr bool kmajor_kstep_uniform(KMajorTile t, uint32_t step_bytes) {
  for (int k = 0; k < kmajor_ksteps(t); ++k)
    if (kmajor_kstep_offset(t, k) != uint32_t(k) * step_bytes) return false;
  return true;
}

// Descriptors of one K step of a K-major tile (plus an optional row offset for a sub-tile).
GEMM_HD constexpr uint64_t kmajor_desc_sm90(KMajorTile t, uint32_t tile_addr, int k_step, int row = 0) {
  return make_smem_desc_sm90(tile_addr + kmajor_row_offset(t, row) + kmajor_kstep_offset(t, k_step),
                             kmajor_lbo(t), kmajor_sbo(t), t.swizzle);
}
// A wgmma descriptor moved `byte_offset` bytes further into shared memory: one 32-bit add to the
// start-address field (bits 0-13, address >> 4), no masking, so that a main loop builds its descriptors once
// and moves them per stage and K step. Exact while the moved address stays below 256 KB: the field then never
// carries into bits 14-15 (reserved, zero) or the leading byte offset above them. Every ring of this project
// ends below 228 KB. (mxfp8/matmul_bw_sm90.cu, v7_streamk/matmul_v7_sm90.cu, v8_tile_shapes/matmul_v8_sm90.cu;
// tested against kmajor_desc_sm90.)
GEMM_HD constexpr uint64_t desc_sm90_advance(uint64_t desc, uint32_t byte_offset) {
  return (desc & 0xFFFFFFFF00000000ull) | uint32_t(uint32_t(desc) + (byte_offset >> 4));
}

GEMM_HD constexpr uint64_t kmajor_desc_sm100(KMajorTile t, uint32_t tile_addr, int k_step, int row = 0) {
  return make_smem_desc_sm100(tile_addr + kmajor_row_offset(t, row) + kmajor_kstep_offset(t, k_step),
                              kmajor_lbo(t), kmajor_sbo(t), t.swizzle);
}

}  // namespace gemm
