// stage_configs.h: every shared-memory operand tile the kernels of this series build, one row per
// (stage variant, architecture, operand, tile address). tests/test_layout_model.cpp writes each tile with
// the TMA model and the row's boxes, and reads it back with the MMA model and the kernels' own descriptors.
//
// A new stage adds rows here (and nothing else, unless it brings a new TMA shape or operand layout):
//  - warp-specialised / persistent stages: new ring depths or tile addresses, the same tiles;
//  - 2-SM stages: each CTA's half tile (rows = its share of BLOCK_M / BLOCK_N, mma_rows unchanged per CTA);
//  - mxfp8: elem_bytes = 1, block_k = 128 (one 128-byte span), plus the scale tiles.
#pragma once

#include <cstdint>

#include "common/descriptors.cuh"

namespace stage_configs {

enum class Arch { SM90, SM100 };
enum class Operand { A, B };
// BOXES_2D: block_k / box[0] two-dimensional boxes {box[0], rows}, box j at tile_addr + j * box_smem_step,
//           from global K offset k0 + j * box[0] (tensor map globalDim {K, rows_total}).
// BOX_3D:   one box {box[0], rows, block_k / box[0]} over the view globalDim {box[0], rows_total, K / box[0]}
//           with globalStrides {K * elem_bytes, box[0] * elem_bytes}: K slices become the slowest dimension.
enum class TmaShape { BOXES_2D, BOX_3D };

struct StageConfig {
  const char* stage;  // stage and variant: "v1a", "v3 stage 2", ...
  Arch arch;
  Operand operand;
  int rows;        // BLOCK_M (A) or BLOCK_N (B): rows of the tile in shared memory
  int block_k;     // K extent of the tile, elements
  int elem_bytes;  // 2: bf16
  int mma_rows;    // rows one MMA instruction reads; sub-tiles start at multiples of it (sm90 A: m64)
  TmaShape tma;
  uint32_t box[3];         // TMA box, elements, innermost first (box[2]: BOX_3D only)
  uint32_t box_smem_step;  // BOXES_2D: shared-memory bytes between consecutive boxes; 0 for BOX_3D
  gemm::Swizzle swizzle;   // of the tensor map and of the descriptors
  uint32_t tile_addr;      // shared-memory byte address of the tile
};

// ---- the tiles of the stages ----
constexpr int BLOCK_K          = 64;   // bf16: 128 bytes of K, one 128B-swizzle span
constexpr int SM100_BLOCK_M    = 128;  // tcgen05.mma cta_group::1 M = 128
constexpr int SM100_BLOCK_N    = 128;
constexpr int SM90_BLOCK_M     = 128;  // two consumer warpgroups, wgmma m64 each
constexpr int SM90_BLOCK_N     = 256;  // wgmma n256
constexpr int SM100_MMA_M      = 128;
constexpr int SM90_MMA_M       = 64;
constexpr int NUM_STAGES_SM100 = 7;  // v3: as many 32 KB stages as fit in 227 KB
constexpr int NUM_STAGES_SM90  = 4;  // v3: as many 48 KB stages as fit in 227 KB
constexpr int NUM_STAGES_V4_SM100 = 7;  // v4: as many 32 KB stages as fit in 227 KB (as v3)
constexpr int NUM_STAGES_V4_SM90  = 4;  // v4: as many 48 KB stages as fit in 227 KB (as v3)
// v5, per CTA of the pair. sm100: its 128 rows of A and its half (128 rows) of the 256-wide B tile of the
// M = 256, N = 256 cta_group::2 MMA: 32 KB stages, 7 of them, as v4. sm90: its 128 rows of A and the whole
// 256-row B tile, each 128-row half multicast by one CTA of the pair: v4's 48 KB stages.
constexpr int NUM_STAGES_V5_SM100 = 7;
constexpr int NUM_STAGES_V5_SM90  = 4;
constexpr int V5_SM100_MMA_M      = 2 * SM100_BLOCK_M;  // the pair's M
constexpr int V5_SM100_MMA_N      = 256;                // the pair's N: 128 B rows per CTA
constexpr int V5_SM90_B_BOX_ROWS  = SM90_BLOCK_N / 2;   // one CTA's half of the shared B tile
// v6 sm90: v5's tiles, loaded by 2D boxes {64, 128} (the 2D map's K extent is K, so a short last K tile is
// zero-filled), B's two halves multicast one by each CTA of the pair as in v5. 4 stages of 48 KB: the C
// staging buffer of the TMA-store epilogue (32 KB, after the ring) takes what v5 left unused; it is written
// by stmatrix and read by the TMA store, neither of which the layout model covers.
constexpr int NUM_STAGES_V6_SM90 = 4;
// v6 sm100: v5's tiles and 7-stage ring, one kernel per tile order (v6a static, v6b grouped, v6c Hilbert),
// loaded by 2D boxes {64, rows} (one per operand and K tile: the 2D map's K extent is K, so a short last K
// tile is zero-filled) where v5 had one 3D box. The accumulators are in TMEM: the ring is unchanged.
constexpr int NUM_STAGES_V6_SM100 = 7;
// v7 sm90: v6's tiles, ring and C buffer unchanged (stream-K changes which K tiles a CTA loads, not how).
constexpr int NUM_STAGES_V7_SM90 = 4;
// v8 sm90, the narrow tile (v8n): A's 128-row tile, a 64-row B tile (wgmma m64n64); the CTAs of the pair
// side by side along N, each multicasting one 64-row box of A, each its own B in one 64-row box: 24 KB
// stages, 8 of them (the C buffer is 16 KB).
constexpr int NUM_STAGES_V8_SM90_NARROW = 8;
constexpr int V8_SM90_NARROW_N          = 64;
// v8 sm90, the medium tile (v8m): the narrow pair's layout 128 wide (wgmma m64n128): A's 128-row tile, each
// CTA multicasting one 64-row box of it; its own 128-row B tile in two 64-row boxes: 32 KB stages, 6 of them
// (the C buffer is 32 KB).
constexpr int NUM_STAGES_V8_SM90_MEDIUM = 6;
constexpr int V8_SM90_MEDIUM_N          = 128;
// v8 sm100, the narrow tile (v8n): the cta_group::2 M = 256, N = 64 MMA; each CTA its 128 rows of A and 32 of
// B (one 2D box each): 20 KB stages, 11 of them.
constexpr int NUM_STAGES_V8_SM100_NARROW = 11;
constexpr int V8_SM100_NARROW_N          = 64;
// v8 sm100, a CTA alone (v8a; v8d where it picks it): the cta_group::1 M = 128, N = 256 MMA, its 128 rows of
// A and all 256 rows of B in one 2D box each: 48 KB stages, 4 of them.
constexpr int NUM_STAGES_V8_SM100_CTA = 4;
// v8 decode (v8s), both architectures: the operands swapped, the MMA's A operand B's 128-row tile, its B
// operand A's 16 rows (padded), one 2D box each: 18 KB stages [B's tile][A's rows], 8 of them (one CTA per
// SM). The MMA: wgmma m64n16 per 64-row half (sm90), tcgen05 cta_group::1 M = 128, N = 16 (sm100).
constexpr int NUM_STAGES_V8_DECODE = 8;
constexpr int V8_DECODE_ROWS       = 128;
constexpr int V8_DECODE_COLS       = 16;
// ... and 32 wide (v8t, both): A's 32 rows, 20 KB stages, 8 of them; wgmma m64n32 (sm90), N = 32 (sm100).
constexpr int V8_DECODE_WIDE_COLS = 32;
// ... and turned around 144 and 192 wide (v8u, v8v, both): A's 144 (192) rows, 34 (40) KB stages, 6 (5) of
// them; wgmma m64n144 (m64n192) per consumer warpgroup (sm90), N = 144 (192) (sm100).
constexpr int V8_TURNED_COLS        = 144;
constexpr int NUM_STAGES_V8_TURNED  = 6;
constexpr int V8_TURNED_WIDE_COLS   = 192;
// ... and the token pair (v8q, v8x, v8y, v8z, v8o, v8r, both): A's 48 (64, 80, 96, 112, 128) rows per CTA, 22
// (24, 26, 28, 30, 32) KB stages, 8 of them (7 at 112 and 128); B's 128-row tile in two 64-row boxes, one per
// CTA of the pair (multicast to both); wgmma m64n48 (.. m64n128) per consumer warpgroup (sm90), cta_group::1
// N = 48 (.. 128) (sm100).
constexpr int V8_PAIR_COLS[]            = {48, 64, 80, 96, 112, 128};
constexpr int NUM_STAGES_V8_PAIR   = 8;
constexpr int NUM_STAGES_V8_PAIR_WIDE = 7;
constexpr int NUM_STAGES_V8_TURNED_WIDE = 5;
// ... and the small tile (v8g, sm90): B's 64-row tile (one wgmma m64n32 per K step) and A's 32 rows, 12 KB
// stages, 8 of them (two CTAs per SM). The token pair in row groups (v8k, sm90) has v8x's ring.
constexpr int V8_SMALL_ROWS       = 64;
constexpr int NUM_STAGES_V8_SMALL = 8;
// ... and the decode kernel over 64-row tiles (v8h, sm90): B's 64-row tile (one wgmma m64n16 per K step) and
// A's 16 rows, 10 KB stages, 16 of them (one CTA per SM).
constexpr int NUM_STAGES_V8_SHORT = 16;
// v8 sm90, the ping-pong tile (v8p): each consumer warpgroup a 128 x 128 tile of its own (two wgmma
// m64n128 per K step), a CTA alone, A's and B's 128-row tiles in one 2D box each: 32 KB stages, 5 of them
// (the two warpgroups' C buffers take 64 KB).
constexpr int NUM_STAGES_V8_SM90_PINGPONG = 5;
constexpr int V8_SM90_PINGPONG_N          = 128;
// ... and 144 wide (v8w): B's 144-row tiles (wgmma m64n144), 34 KB stages, 4 of them (the C buffers: 72 KB).
constexpr int NUM_STAGES_V8_SM90_PINGPONG_WIDE = 4;
constexpr int V8_SM90_PINGPONG_WIDE_N          = 144;
// ... and in CTA pairs (v8c): v8p's ring, B's tile written by two 64-row boxes, box j by CTA j of the pair
// (each multicasts its half to both).
constexpr int V8_SM90_PINGPONG_PAIR_BOX_ROWS = 64;
// Tiles start after 1 KB of barriers and the TMEM address slot: a non-zero base makes address bits above the
// swizzle atom matter, which the models must then get right.
constexpr uint32_t SMEM_TILES_BASE = 1024;

constexpr uint32_t tile_bytes(int rows, int block_k, int elem_bytes) {
  return uint32_t(rows) * uint32_t(block_k) * uint32_t(elem_bytes);
}
constexpr uint32_t A_BYTES_SM100 = tile_bytes(SM100_BLOCK_M, BLOCK_K, 2);
constexpr uint32_t B_BYTES_SM100 = tile_bytes(SM100_BLOCK_N, BLOCK_K, 2);
constexpr uint32_t A_BYTES_SM90  = tile_bytes(SM90_BLOCK_M, BLOCK_K, 2);
constexpr uint32_t B_BYTES_SM90  = tile_bytes(SM90_BLOCK_N, BLOCK_K, 2);

constexpr uint32_t B_BYTES_V8_SM100_CTA = tile_bytes(2 * SM100_BLOCK_N, BLOCK_K, 2);
constexpr uint32_t B_BYTES_V8_SM90_NARROW = tile_bytes(V8_SM90_NARROW_N, BLOCK_K, 2);
constexpr uint32_t B_BYTES_V8_SM90_MEDIUM = tile_bytes(V8_SM90_MEDIUM_N, BLOCK_K, 2);
constexpr uint32_t B_BYTES_V8_SM100_NARROW = tile_bytes(V8_SM100_NARROW_N / 2, BLOCK_K, 2);

// Shared-memory address of operand `op` in ring stage `s` of a ring of [A B] stages of a_bytes and b_bytes:
// [A_0 B_0][A_1 B_1]... from SMEM_TILES_BASE.
constexpr uint32_t ring_addr_of(uint32_t a_bytes, uint32_t b_bytes, int s, Operand op) {
  return SMEM_TILES_BASE + uint32_t(s) * (a_bytes + b_bytes) + (op == Operand::B ? a_bytes : 0);
}
// The same for the stages' usual tiles on `arch`.
constexpr uint32_t ring_addr(Arch arch, int s, Operand op) {
  const uint32_t a = arch == Arch::SM100 ? A_BYTES_SM100 : A_BYTES_SM90;
  const uint32_t b = arch == Arch::SM100 ? B_BYTES_SM100 : B_BYTES_SM90;
  return ring_addr_of(a, b, s, op);
}

// A row for the tile of operand `op` in ring slot `slot` (at ring_addr), with the boxes the launchers encode
// for `tma` and `swizzle`: the box inner extent is one 16-byte core-matrix column (no swizzle) or one swizzle
// span. A stage with another shared-memory plan writes its rows with another helper, or as plain aggregates.
constexpr StageConfig tile(const char* stage, Arch arch, Operand op, int rows, int mma_rows, TmaShape tma,
                           gemm::Swizzle swizzle, int slot, int block_k = BLOCK_K, int elem_bytes = 2) {
  const uint32_t span   = gemm::swizzle_span_bytes(swizzle);
  const uint32_t inner  = span / uint32_t(elem_bytes);
  const uint32_t third  = tma == TmaShape::BOX_3D ? uint32_t(block_k) / inner : 1u;
  const uint32_t step   = tma == TmaShape::BOXES_2D ? uint32_t(rows) * span : 0u;
  const uint32_t box[3] = {inner, uint32_t(rows), third};
  // clang-format off
  return StageConfig{stage, arch, op, rows, block_k, elem_bytes, mma_rows, tma, {box[0], box[1], box[2]},
                     step, swizzle, ring_addr(arch, slot, op)};
  // clang-format on
}

// A row whose 3D-boxed tile is written by rows / box_rows boxes stacked along its rows, box j by CTA j of a
// cluster (v5 Hopper: each CTA of the pair multicasts its half of the shared B tile to both).
constexpr StageConfig split_tile(const char* stage, Arch arch, Operand op, int rows, int mma_rows,
                                 int box_rows, int slot) {
  StageConfig c = tile(stage, arch, op, rows, mma_rows, TmaShape::BOX_3D, gemm::Swizzle::B128, slot);
  c.box[1]      = uint32_t(box_rows);
  return c;
}

// The same with 2D boxes {box_k, box_rows} (v6 Hopper B), one K slice per box.
constexpr StageConfig split_tile_2d(const char* stage, Arch arch, Operand op, int rows, int mma_rows,
                                    int box_rows, int slot) {
  StageConfig c = tile(stage, arch, op, rows, mma_rows, TmaShape::BOXES_2D, gemm::Swizzle::B128, slot);
  c.box[1]      = uint32_t(box_rows);
  return c;
}

// A v8 sm90 narrow-tile row (NUM_STAGES_V8_SM90_NARROW): 2D boxes, 128B swizzle, in its ring of 24 KB stages;
// A in two 64-row boxes, one per CTA of the pair, B in one.
constexpr StageConfig narrow_tile(const char* stage, Operand op, int slot) {
  const int rows = op == Operand::A ? SM90_BLOCK_M : V8_SM90_NARROW_N;
  StageConfig c  = tile(stage, Arch::SM90, op, rows, op == Operand::A ? SM90_MMA_M : rows, TmaShape::BOXES_2D,
                        gemm::Swizzle::B128, slot);
  if (op == Operand::A) c.box[1] = uint32_t(SM90_BLOCK_M / 2);
  c.tile_addr = ring_addr_of(A_BYTES_SM90, B_BYTES_V8_SM90_NARROW, slot, op);
  return c;
}

// A v8 sm90 medium-tile row (NUM_STAGES_V8_SM90_MEDIUM): 2D boxes of 64 rows, 128B swizzle, in its ring of
// 32 KB stages; A's two boxes one per CTA of the pair, B's two the CTA's own.
constexpr StageConfig medium_tile(const char* stage, Operand op, int slot) {
  const int rows = op == Operand::A ? SM90_BLOCK_M : V8_SM90_MEDIUM_N;
  StageConfig c  = split_tile_2d(stage, Arch::SM90, op, rows, op == Operand::A ? SM90_MMA_M : rows, 64, slot);
  c.tile_addr    = ring_addr_of(A_BYTES_SM90, B_BYTES_V8_SM90_MEDIUM, slot, op);
  return c;
}

// A v8 sm100 narrow-tile row (NUM_STAGES_V8_SM100_NARROW): 2D boxes, 128B swizzle, in its ring of 20 KB
// stages: A's 128 rows, B's 32 (this CTA's half of the MMA's N = 64).
constexpr StageConfig narrow_pair_tile(const char* stage, Operand op, int slot) {
  const int rows = op == Operand::A ? SM100_BLOCK_M : V8_SM100_NARROW_N / 2;
  StageConfig c  = tile(stage, Arch::SM100, op, rows, op == Operand::A ? SM100_MMA_M : rows, TmaShape::BOXES_2D,
                        gemm::Swizzle::B128, slot);
  c.tile_addr = ring_addr_of(A_BYTES_SM100, B_BYTES_V8_SM100_NARROW, slot, op);
  return c;
}

// A v8 decode row (NUM_STAGES_V8_DECODE): 2D boxes, 128B swizzle, in its ring of 18 KB stages (20 KB 32 wide,
// 34 and 40 KB turned around 144 and 192 wide, 12 KB the small tile's); operand A is B's 128 rows (64 in the
// small tile; the MMA's M side: 64 per wgmma on sm90, 128 on sm100), operand B A's 16 (or 32, 144, 192).
constexpr StageConfig decode_tile(const char* stage, Arch arch, Operand op, int slot,
                                  int cols = V8_DECODE_COLS, int b_rows = V8_DECODE_ROWS) {
  const int rows     = op == Operand::A ? b_rows : cols;
  const int mma_rows = op == Operand::A && arch == Arch::SM90 ? SM90_MMA_M : rows;
  StageConfig c = tile(stage, arch, op, rows, mma_rows, TmaShape::BOXES_2D, gemm::Swizzle::B128, slot);
  c.tile_addr        = ring_addr_of(tile_bytes(b_rows, BLOCK_K, 2), tile_bytes(cols, BLOCK_K, 2), slot, op);
  return c;
}

// A v8 token-pair row (NUM_STAGES_V8_PAIR): the decode row with B's tile (operand A) in two 64-row boxes.
constexpr StageConfig pair_tile(const char* stage, Operand op, int slot, int cols, Arch arch = Arch::SM90) {
  StageConfig c = decode_tile(stage, arch, op, slot, cols);
  if (op == Operand::A) c.box[1] = uint32_t(V8_DECODE_ROWS / 2);
  return c;
}

// A v8 sm90 ping-pong row (NUM_STAGES_V8_SM90_PINGPONG): 2D boxes, 128B swizzle, in its ring of 32 KB stages
// (34 KB 144 wide); A's 128 rows (the MMA's 64 per wgmma), B's 128 or 144 (its N).
constexpr StageConfig pingpong_tile(const char* stage, Operand op, int slot, int n = V8_SM90_PINGPONG_N) {
  const int rows = op == Operand::A ? SM90_BLOCK_M : n;
  StageConfig c  = tile(stage, Arch::SM90, op, rows, op == Operand::A ? SM90_MMA_M : rows, TmaShape::BOXES_2D,
                        gemm::Swizzle::B128, slot);
  c.tile_addr = ring_addr_of(A_BYTES_SM90, tile_bytes(n, BLOCK_K, 2), slot, op);
  return c;
}
// v8c's row: B's tile in two boxes of V8_SM90_PINGPONG_PAIR_BOX_ROWS rows, stacked along its rows.
constexpr StageConfig pingpong_pair_tile(const char* stage, Operand op, int slot) {
  StageConfig c = pingpong_tile(stage, op, slot);
  if (op == Operand::B) c.box[1] = uint32_t(V8_SM90_PINGPONG_PAIR_BOX_ROWS);
  return c;
}

// A v8 sm100 CTA-alone row (NUM_STAGES_V8_SM100_CTA): 2D boxes, 128B swizzle, in its ring of 48 KB stages.
constexpr StageConfig cta_alone_tile(const char* stage, Operand op, int rows, int slot) {
  StageConfig c = tile(stage, Arch::SM100, op, rows, rows, TmaShape::BOXES_2D, gemm::Swizzle::B128, slot);
  c.tile_addr   = ring_addr_of(A_BYTES_SM100, B_BYTES_V8_SM100_CTA, slot, op);
  return c;
}

// The TMA boxes of a row, as the layout model issues them: box j (0 .. row_tma_boxes(c) - 1) of the tile
// whose first row is row0 and first K element k0, its shared-memory offset from the tile and its coordinates
// (innermost first). tests/test_stage_table.cpp checks that each kernel's own tma_box() (SmemTiles::tma_box,
// the function the kernel calls to issue its copies) gives exactly these, so a kernel's box step cannot drift
// from the model.
struct RowBox {
  uint32_t smem_offset;
  int64_t coords[3];
};
// A 3D box of fewer rows than the tile (v5 Hopper B: each CTA of the pair multicasts its half) is one of
// rows / box[1] boxes stacked along the rows, box j at j * box[1] rows of one swizzle span each; this needs
// one K slice per box (box[2] == 1), else the halves' slices would interleave.
// 2D boxes split along the rows the same way (v6 Hopper B) need the box to span the tile's K.
constexpr int row_tma_boxes(const StageConfig& c) {
  return c.tma == TmaShape::BOXES_2D ? c.block_k / int(c.box[0]) * (c.rows / int(c.box[1]))
                                     : c.rows / int(c.box[1]);
}
constexpr RowBox row_tma_box(const StageConfig& c, int row0, int k0, int j) {
  if (c.tma == TmaShape::BOXES_2D && int(c.box[1]) != c.rows)
    return {uint32_t(j) * c.box[1] * gemm::swizzle_span_bytes(c.swizzle),
            {k0, row0 + int64_t(j) * c.box[1], 0}};
  if (c.tma == TmaShape::BOXES_2D)
    return {uint32_t(j) * c.box_smem_step, {k0 + int64_t(j) * c.box[0], row0, 0}};
  return {uint32_t(j) * c.box[1] * gemm::swizzle_span_bytes(c.swizzle),
          {0, row0 + int64_t(j) * c.box[1], k0 / int64_t(c.box[0])}};
}

// Short names for the table only.
using A = Arch;
using O = Operand;
using T = TmaShape;
using S = gemm::Swizzle;

// Every row is also cross-checked against CUTLASS/CuTe's own builders (tests/test_cutlass_crosscheck.cpp):
// the descriptor CuTe builds from its canonical K-major layout tiled to the row's tile, every K
// step and sub-tile, bit for bit. LATER STAGES ADD THEIR CONFIGURATIONS TO THAT CROSS-CHECK TOO:
//  - their rows here (both tests pick them up as they land), and their tcgen05 instruction shapes, N values
//    included, in SM100_MMA_SHAPES below (the cross-check builds CuTe's instruction descriptor for each);
//  - v5 (2-CTA): the cta_group::2 M = 256 form, as a shape with cta_group 2, and each CTA's half tiles here;
//  - mxfp8: the kind::mxf8f6f4 shapes, and the tcgen05.cp scale-factor source descriptor (no swizzle,
//    SBO 128 B), compared with the one CuTe builds for the same scale tile (get_utccp_smem_desc_tensor).
// clang-format off
constexpr StageConfig STAGE_CONFIGS[] = {
  // v1: no swizzle, the core-matrix layout (8 rows x 16 B contiguous); v1a many 2D boxes, v1b one 3D box.
  //    stage         arch      op    rows           mma rows       TMA          swizzle  ring slot
  tile("v1a",        A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::None, 0),
  tile("v1a",        A::SM100, O::B, SM100_BLOCK_N, SM100_BLOCK_N, T::BOXES_2D, S::None, 0),
  tile("v1b",        A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOX_3D,   S::None, 0),
  tile("v1b",        A::SM100, O::B, SM100_BLOCK_N, SM100_BLOCK_N, T::BOX_3D,   S::None, 0),
  tile("v1a",        A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::None, 0),
  tile("v1a",        A::SM90,  O::B, SM90_BLOCK_N,  SM90_BLOCK_N,  T::BOXES_2D, S::None, 0),
  tile("v1b",        A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOX_3D,   S::None, 0),
  tile("v1b",        A::SM90,  O::B, SM90_BLOCK_N,  SM90_BLOCK_N,  T::BOX_3D,   S::None, 0),
  // v2: 128B swizzle, BLOCK_K = one 128-byte span; v2a 2D boxes, v2b a 3D box (one K slice at BLOCK_K 64).
  tile("v2a",        A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 0),
  tile("v2a",        A::SM100, O::B, SM100_BLOCK_N, SM100_BLOCK_N, T::BOXES_2D, S::B128, 0),
  tile("v2b",        A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOX_3D,   S::B128, 0),
  tile("v2b",        A::SM100, O::B, SM100_BLOCK_N, SM100_BLOCK_N, T::BOX_3D,   S::B128, 0),
  tile("v2a",        A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 0),
  tile("v2a",        A::SM90,  O::B, SM90_BLOCK_N,  SM90_BLOCK_N,  T::BOXES_2D, S::B128, 0),
  tile("v2b",        A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOX_3D,   S::B128, 0),
  tile("v2b",        A::SM90,  O::B, SM90_BLOCK_N,  SM90_BLOCK_N,  T::BOX_3D,   S::B128, 0),
  // v3: the v2b tiles in every slot of the NUM_STAGES ring.
  tile("v3 stage 0", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOX_3D,   S::B128, 0),
  tile("v3 stage 0", A::SM100, O::B, SM100_BLOCK_N, SM100_BLOCK_N, T::BOX_3D,   S::B128, 0),
  tile("v3 stage 1", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOX_3D,   S::B128, 1),
  tile("v3 stage 1", A::SM100, O::B, SM100_BLOCK_N, SM100_BLOCK_N, T::BOX_3D,   S::B128, 1),
  tile("v3 stage 2", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOX_3D,   S::B128, 2),
  tile("v3 stage 2", A::SM100, O::B, SM100_BLOCK_N, SM100_BLOCK_N, T::BOX_3D,   S::B128, 2),
  tile("v3 stage 3", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOX_3D,   S::B128, 3),
  tile("v3 stage 3", A::SM100, O::B, SM100_BLOCK_N, SM100_BLOCK_N, T::BOX_3D,   S::B128, 3),
  tile("v3 stage 4", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOX_3D,   S::B128, 4),
  tile("v3 stage 4", A::SM100, O::B, SM100_BLOCK_N, SM100_BLOCK_N, T::BOX_3D,   S::B128, 4),
  tile("v3 stage 5", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOX_3D,   S::B128, 5),
  tile("v3 stage 5", A::SM100, O::B, SM100_BLOCK_N, SM100_BLOCK_N, T::BOX_3D,   S::B128, 5),
  tile("v3 stage 6", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOX_3D,   S::B128, 6),
  tile("v3 stage 6", A::SM100, O::B, SM100_BLOCK_N, SM100_BLOCK_N, T::BOX_3D,   S::B128, 6),
  tile("v3 stage 0", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOX_3D,   S::B128, 0),
  tile("v3 stage 0", A::SM90,  O::B, SM90_BLOCK_N,  SM90_BLOCK_N,  T::BOX_3D,   S::B128, 0),
  tile("v3 stage 1", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOX_3D,   S::B128, 1),
  tile("v3 stage 1", A::SM90,  O::B, SM90_BLOCK_N,  SM90_BLOCK_N,  T::BOX_3D,   S::B128, 1),
  tile("v3 stage 2", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOX_3D,   S::B128, 2),
  tile("v3 stage 2", A::SM90,  O::B, SM90_BLOCK_N,  SM90_BLOCK_N,  T::BOX_3D,   S::B128, 2),
  tile("v3 stage 3", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOX_3D,   S::B128, 3),
  tile("v3 stage 3", A::SM90,  O::B, SM90_BLOCK_N,  SM90_BLOCK_N,  T::BOX_3D,   S::B128, 3),
  // v4: the same tiles in every slot of the same rings.
  tile("v4 stage 0", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOX_3D,   S::B128, 0),
  tile("v4 stage 0", A::SM100, O::B, SM100_BLOCK_N, SM100_BLOCK_N, T::BOX_3D,   S::B128, 0),
  tile("v4 stage 1", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOX_3D,   S::B128, 1),
  tile("v4 stage 1", A::SM100, O::B, SM100_BLOCK_N, SM100_BLOCK_N, T::BOX_3D,   S::B128, 1),
  tile("v4 stage 2", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOX_3D,   S::B128, 2),
  tile("v4 stage 2", A::SM100, O::B, SM100_BLOCK_N, SM100_BLOCK_N, T::BOX_3D,   S::B128, 2),
  tile("v4 stage 3", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOX_3D,   S::B128, 3),
  tile("v4 stage 3", A::SM100, O::B, SM100_BLOCK_N, SM100_BLOCK_N, T::BOX_3D,   S::B128, 3),
  tile("v4 stage 4", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOX_3D,   S::B128, 4),
  tile("v4 stage 4", A::SM100, O::B, SM100_BLOCK_N, SM100_BLOCK_N, T::BOX_3D,   S::B128, 4),
  tile("v4 stage 5", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOX_3D,   S::B128, 5),
  tile("v4 stage 5", A::SM100, O::B, SM100_BLOCK_N, SM100_BLOCK_N, T::BOX_3D,   S::B128, 5),
  tile("v4 stage 6", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOX_3D,   S::B128, 6),
  tile("v4 stage 6", A::SM100, O::B, SM100_BLOCK_N, SM100_BLOCK_N, T::BOX_3D,   S::B128, 6),
  tile("v4 stage 0", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOX_3D,   S::B128, 0),
  tile("v4 stage 0", A::SM90,  O::B, SM90_BLOCK_N,  SM90_BLOCK_N,  T::BOX_3D,   S::B128, 0),
  tile("v4 stage 1", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOX_3D,   S::B128, 1),
  tile("v4 stage 1", A::SM90,  O::B, SM90_BLOCK_N,  SM90_BLOCK_N,  T::BOX_3D,   S::B128, 1),
  tile("v4 stage 2", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOX_3D,   S::B128, 2),
  tile("v4 stage 2", A::SM90,  O::B, SM90_BLOCK_N,  SM90_BLOCK_N,  T::BOX_3D,   S::B128, 2),
  tile("v4 stage 3", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOX_3D,   S::B128, 3),
  tile("v4 stage 3", A::SM90,  O::B, SM90_BLOCK_N,  SM90_BLOCK_N,  T::BOX_3D,   S::B128, 3),
  // v5: per CTA of the pair (see NUM_STAGES_V5_*). sm100: v4's tiles, B now the CTA's half of N = 256 (the
  // MMA reads the peer's tiles at the same offsets: one layout serves both CTAs). sm90: v4's tiles, B written
  // as two 128-row boxes, box j multicast by CTA j.
  tile("v5 stage 0", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOX_3D,   S::B128, 0),
  tile("v5 stage 0", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOX_3D, S::B128, 0),
  tile("v5 stage 1", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOX_3D,   S::B128, 1),
  tile("v5 stage 1", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOX_3D, S::B128, 1),
  tile("v5 stage 2", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOX_3D,   S::B128, 2),
  tile("v5 stage 2", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOX_3D, S::B128, 2),
  tile("v5 stage 3", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOX_3D,   S::B128, 3),
  tile("v5 stage 3", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOX_3D, S::B128, 3),
  tile("v5 stage 4", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOX_3D,   S::B128, 4),
  tile("v5 stage 4", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOX_3D, S::B128, 4),
  tile("v5 stage 5", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOX_3D,   S::B128, 5),
  tile("v5 stage 5", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOX_3D, S::B128, 5),
  tile("v5 stage 6", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOX_3D,   S::B128, 6),
  tile("v5 stage 6", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOX_3D, S::B128, 6),
  // v6 sm90 (see NUM_STAGES_V6_SM90): v5's tiles with 2D boxes, every ring slot, for each tile order.
  tile("v6a stage 0", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 0),
  split_tile_2d("v6a stage 0", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 0),
  tile("v6a stage 1", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 1),
  split_tile_2d("v6a stage 1", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 1),
  tile("v6a stage 2", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 2),
  split_tile_2d("v6a stage 2", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 2),
  tile("v6a stage 3", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 3),
  split_tile_2d("v6a stage 3", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 3),
  tile("v6b stage 0", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 0),
  split_tile_2d("v6b stage 0", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 0),
  tile("v6b stage 1", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 1),
  split_tile_2d("v6b stage 1", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 1),
  tile("v6b stage 2", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 2),
  split_tile_2d("v6b stage 2", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 2),
  tile("v6b stage 3", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 3),
  split_tile_2d("v6b stage 3", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 3),
  tile("v6c stage 0", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 0),
  split_tile_2d("v6c stage 0", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 0),
  tile("v6c stage 1", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 1),
  split_tile_2d("v6c stage 1", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 1),
  tile("v6c stage 2", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 2),
  split_tile_2d("v6c stage 2", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 2),
  tile("v6c stage 3", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 3),
  split_tile_2d("v6c stage 3", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 3),
  // v7 sm90 (see NUM_STAGES_V7_SM90): v6's tiles and ring, for each schedule of the work; v8a and v8d the
  // same (v8a: a CTA alone issues both of B's boxes; the boxes and the ring are the pair's).
  tile("v7a stage 0", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 0),
  split_tile_2d("v7a stage 0", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 0),
  tile("v7a stage 1", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 1),
  split_tile_2d("v7a stage 1", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 1),
  tile("v7a stage 2", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 2),
  split_tile_2d("v7a stage 2", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 2),
  tile("v7a stage 3", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 3),
  split_tile_2d("v7a stage 3", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 3),
  tile("v7b stage 0", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 0),
  split_tile_2d("v7b stage 0", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 0),
  tile("v7b stage 1", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 1),
  split_tile_2d("v7b stage 1", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 1),
  tile("v7b stage 2", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 2),
  split_tile_2d("v7b stage 2", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 2),
  tile("v7b stage 3", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 3),
  split_tile_2d("v7b stage 3", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 3),
  tile("v7c stage 0", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 0),
  split_tile_2d("v7c stage 0", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 0),
  tile("v7c stage 1", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 1),
  split_tile_2d("v7c stage 1", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 1),
  tile("v7c stage 2", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 2),
  split_tile_2d("v7c stage 2", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 2),
  tile("v7c stage 3", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 3),
  split_tile_2d("v7c stage 3", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 3),
  tile("v7d stage 0", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 0),
  split_tile_2d("v7d stage 0", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 0),
  tile("v7d stage 1", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 1),
  split_tile_2d("v7d stage 1", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 1),
  tile("v7d stage 2", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 2),
  split_tile_2d("v7d stage 2", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 2),
  tile("v7d stage 3", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 3),
  split_tile_2d("v7d stage 3", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 3),
  tile("v7e stage 0", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 0),
  split_tile_2d("v7e stage 0", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 0),
  tile("v7e stage 1", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 1),
  split_tile_2d("v7e stage 1", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 1),
  tile("v7e stage 2", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 2),
  split_tile_2d("v7e stage 2", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 2),
  tile("v7e stage 3", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 3),
  split_tile_2d("v7e stage 3", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 3),
  // v8n sm90 (see NUM_STAGES_V8_SM90_NARROW): the narrow tile's ring.
  narrow_tile("v8n stage 0", O::A, 0),
  narrow_tile("v8n stage 0", O::B, 0),
  narrow_tile("v8n stage 1", O::A, 1),
  narrow_tile("v8n stage 1", O::B, 1),
  narrow_tile("v8n stage 2", O::A, 2),
  narrow_tile("v8n stage 2", O::B, 2),
  narrow_tile("v8n stage 3", O::A, 3),
  narrow_tile("v8n stage 3", O::B, 3),
  narrow_tile("v8n stage 4", O::A, 4),
  narrow_tile("v8n stage 4", O::B, 4),
  narrow_tile("v8n stage 5", O::A, 5),
  narrow_tile("v8n stage 5", O::B, 5),
  narrow_tile("v8n stage 6", O::A, 6),
  narrow_tile("v8n stage 6", O::B, 6),
  narrow_tile("v8n stage 7", O::A, 7),
  narrow_tile("v8n stage 7", O::B, 7),
  // v8m sm90 (see NUM_STAGES_V8_SM90_MEDIUM): the medium tile's ring.
  medium_tile("v8m stage 0", O::A, 0),
  medium_tile("v8m stage 0", O::B, 0),
  medium_tile("v8m stage 1", O::A, 1),
  medium_tile("v8m stage 1", O::B, 1),
  medium_tile("v8m stage 2", O::A, 2),
  medium_tile("v8m stage 2", O::B, 2),
  medium_tile("v8m stage 3", O::A, 3),
  medium_tile("v8m stage 3", O::B, 3),
  medium_tile("v8m stage 4", O::A, 4),
  medium_tile("v8m stage 4", O::B, 4),
  medium_tile("v8m stage 5", O::A, 5),
  medium_tile("v8m stage 5", O::B, 5),
  tile("v8a stage 0", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 0),
  split_tile_2d("v8a stage 0", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 0),
  tile("v8a stage 1", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 1),
  split_tile_2d("v8a stage 1", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 1),
  tile("v8a stage 2", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 2),
  split_tile_2d("v8a stage 2", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 2),
  tile("v8a stage 3", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 3),
  split_tile_2d("v8a stage 3", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 3),
  tile("v8d stage 0", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 0),
  split_tile_2d("v8d stage 0", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 0),
  tile("v8d stage 1", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 1),
  split_tile_2d("v8d stage 1", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 1),
  tile("v8d stage 2", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 2),
  split_tile_2d("v8d stage 2", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 2),
  tile("v8d stage 3", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOXES_2D, S::B128, 3),
  split_tile_2d("v8d stage 3", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 3),
  tile("v5 stage 0", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOX_3D,   S::B128, 0),
  split_tile("v5 stage 0", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 0),
  tile("v5 stage 1", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOX_3D,   S::B128, 1),
  split_tile("v5 stage 1", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 1),
  tile("v5 stage 2", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOX_3D,   S::B128, 2),
  split_tile("v5 stage 2", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 2),
  tile("v5 stage 3", A::SM90,  O::A, SM90_BLOCK_M,  SM90_MMA_M,    T::BOX_3D,   S::B128, 3),
  split_tile("v5 stage 3", A::SM90, O::B, SM90_BLOCK_N, SM90_BLOCK_N, V5_SM90_B_BOX_ROWS, 3),
  // v6 sm100 (see NUM_STAGES_V6_SM100): per CTA of the pair, v5's A tile and B half, 2D boxes, every ring
  // slot, for each tile order.
  tile("v6a stage 0", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 0),
  tile("v6a stage 0", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 0),
  tile("v6a stage 1", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 1),
  tile("v6a stage 1", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 1),
  tile("v6a stage 2", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 2),
  tile("v6a stage 2", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 2),
  tile("v6a stage 3", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 3),
  tile("v6a stage 3", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 3),
  tile("v6a stage 4", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 4),
  tile("v6a stage 4", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 4),
  tile("v6a stage 5", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 5),
  tile("v6a stage 5", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 5),
  tile("v6a stage 6", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 6),
  tile("v6a stage 6", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 6),
  tile("v6b stage 0", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 0),
  tile("v6b stage 0", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 0),
  tile("v6b stage 1", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 1),
  tile("v6b stage 1", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 1),
  tile("v6b stage 2", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 2),
  tile("v6b stage 2", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 2),
  tile("v6b stage 3", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 3),
  tile("v6b stage 3", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 3),
  tile("v6b stage 4", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 4),
  tile("v6b stage 4", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 4),
  tile("v6b stage 5", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 5),
  tile("v6b stage 5", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 5),
  tile("v6b stage 6", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 6),
  tile("v6b stage 6", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 6),
  tile("v6c stage 0", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 0),
  tile("v6c stage 0", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 0),
  tile("v6c stage 1", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 1),
  tile("v6c stage 1", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 1),
  tile("v6c stage 2", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 2),
  tile("v6c stage 2", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 2),
  tile("v6c stage 3", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 3),
  tile("v6c stage 3", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 3),
  tile("v6c stage 4", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 4),
  tile("v6c stage 4", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 4),
  tile("v6c stage 5", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 5),
  tile("v6c stage 5", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 5),
  tile("v6c stage 6", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 6),
  tile("v6c stage 6", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 6),
  // v7 sm100 (v7a-v7d: stream-K plans; v7clc: Cluster Launch Control): v6's tiles and 7-stage ring, unchanged.
  tile("v7a stage 0", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 0),
  tile("v7a stage 0", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 0),
  tile("v7a stage 1", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 1),
  tile("v7a stage 1", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 1),
  tile("v7a stage 2", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 2),
  tile("v7a stage 2", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 2),
  tile("v7a stage 3", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 3),
  tile("v7a stage 3", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 3),
  tile("v7a stage 4", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 4),
  tile("v7a stage 4", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 4),
  tile("v7a stage 5", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 5),
  tile("v7a stage 5", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 5),
  tile("v7a stage 6", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 6),
  tile("v7a stage 6", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 6),
  tile("v7b stage 0", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 0),
  tile("v7b stage 0", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 0),
  tile("v7b stage 1", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 1),
  tile("v7b stage 1", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 1),
  tile("v7b stage 2", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 2),
  tile("v7b stage 2", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 2),
  tile("v7b stage 3", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 3),
  tile("v7b stage 3", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 3),
  tile("v7b stage 4", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 4),
  tile("v7b stage 4", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 4),
  tile("v7b stage 5", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 5),
  tile("v7b stage 5", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 5),
  tile("v7b stage 6", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 6),
  tile("v7b stage 6", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 6),
  tile("v7c stage 0", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 0),
  tile("v7c stage 0", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 0),
  tile("v7c stage 1", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 1),
  tile("v7c stage 1", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 1),
  tile("v7c stage 2", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 2),
  tile("v7c stage 2", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 2),
  tile("v7c stage 3", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 3),
  tile("v7c stage 3", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 3),
  tile("v7c stage 4", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 4),
  tile("v7c stage 4", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 4),
  tile("v7c stage 5", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 5),
  tile("v7c stage 5", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 5),
  tile("v7c stage 6", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 6),
  tile("v7c stage 6", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 6),
  tile("v7d stage 0", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 0),
  tile("v7d stage 0", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 0),
  tile("v7d stage 1", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 1),
  tile("v7d stage 1", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 1),
  tile("v7d stage 2", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 2),
  tile("v7d stage 2", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 2),
  tile("v7d stage 3", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 3),
  tile("v7d stage 3", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 3),
  tile("v7d stage 4", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 4),
  tile("v7d stage 4", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 4),
  tile("v7d stage 5", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 5),
  tile("v7d stage 5", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 5),
  tile("v7d stage 6", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 6),
  tile("v7d stage 6", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 6),
  tile("v8d stage 0", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 0),
  tile("v8d stage 0", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 0),
  tile("v8d stage 1", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 1),
  tile("v8d stage 1", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 1),
  tile("v8d stage 2", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 2),
  tile("v8d stage 2", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 2),
  tile("v8d stage 3", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 3),
  tile("v8d stage 3", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 3),
  tile("v8d stage 4", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 4),
  tile("v8d stage 4", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 4),
  tile("v8d stage 5", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 5),
  tile("v8d stage 5", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 5),
  tile("v8d stage 6", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 6),
  tile("v8d stage 6", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 6),
  // v8s, both (see NUM_STAGES_V8_DECODE): B's 128-row tile as the MMA's A operand, A's 16 rows as its B.
  decode_tile("v8s stage 0", A::SM100, O::A, 0),
  decode_tile("v8s stage 0", A::SM100, O::B, 0),
  decode_tile("v8s stage 1", A::SM100, O::A, 1),
  decode_tile("v8s stage 1", A::SM100, O::B, 1),
  decode_tile("v8s stage 2", A::SM100, O::A, 2),
  decode_tile("v8s stage 2", A::SM100, O::B, 2),
  decode_tile("v8s stage 3", A::SM100, O::A, 3),
  decode_tile("v8s stage 3", A::SM100, O::B, 3),
  decode_tile("v8s stage 4", A::SM100, O::A, 4),
  decode_tile("v8s stage 4", A::SM100, O::B, 4),
  decode_tile("v8s stage 5", A::SM100, O::A, 5),
  decode_tile("v8s stage 5", A::SM100, O::B, 5),
  decode_tile("v8s stage 6", A::SM100, O::A, 6),
  decode_tile("v8s stage 6", A::SM100, O::B, 6),
  decode_tile("v8s stage 7", A::SM100, O::A, 7),
  decode_tile("v8s stage 7", A::SM100, O::B, 7),
  decode_tile("v8s stage 0", A::SM90, O::A, 0),
  decode_tile("v8s stage 0", A::SM90, O::B, 0),
  decode_tile("v8s stage 1", A::SM90, O::A, 1),
  decode_tile("v8s stage 1", A::SM90, O::B, 1),
  decode_tile("v8s stage 2", A::SM90, O::A, 2),
  decode_tile("v8s stage 2", A::SM90, O::B, 2),
  decode_tile("v8s stage 3", A::SM90, O::A, 3),
  decode_tile("v8s stage 3", A::SM90, O::B, 3),
  decode_tile("v8s stage 4", A::SM90, O::A, 4),
  decode_tile("v8s stage 4", A::SM90, O::B, 4),
  decode_tile("v8s stage 5", A::SM90, O::A, 5),
  decode_tile("v8s stage 5", A::SM90, O::B, 5),
  decode_tile("v8s stage 6", A::SM90, O::A, 6),
  decode_tile("v8s stage 6", A::SM90, O::B, 6),
  decode_tile("v8s stage 7", A::SM90, O::A, 7),
  decode_tile("v8s stage 7", A::SM90, O::B, 7),
  // v8t, both: the same ring 32 wide (A's 32 rows as the MMA's B operand).
  decode_tile("v8t stage 0", A::SM100, O::A, 0, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 0", A::SM100, O::B, 0, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 1", A::SM100, O::A, 1, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 1", A::SM100, O::B, 1, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 2", A::SM100, O::A, 2, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 2", A::SM100, O::B, 2, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 3", A::SM100, O::A, 3, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 3", A::SM100, O::B, 3, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 4", A::SM100, O::A, 4, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 4", A::SM100, O::B, 4, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 5", A::SM100, O::A, 5, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 5", A::SM100, O::B, 5, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 6", A::SM100, O::A, 6, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 6", A::SM100, O::B, 6, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 7", A::SM100, O::A, 7, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 7", A::SM100, O::B, 7, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 0", A::SM90, O::A, 0, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 0", A::SM90, O::B, 0, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 1", A::SM90, O::A, 1, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 1", A::SM90, O::B, 1, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 2", A::SM90, O::A, 2, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 2", A::SM90, O::B, 2, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 3", A::SM90, O::A, 3, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 3", A::SM90, O::B, 3, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 4", A::SM90, O::A, 4, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 4", A::SM90, O::B, 4, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 5", A::SM90, O::A, 5, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 5", A::SM90, O::B, 5, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 6", A::SM90, O::A, 6, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 6", A::SM90, O::B, 6, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 7", A::SM90, O::A, 7, V8_DECODE_WIDE_COLS),
  decode_tile("v8t stage 7", A::SM90, O::B, 7, V8_DECODE_WIDE_COLS),
  // v8k, sm90: the token pair 64 wide in row groups, v8x's ring.
  pair_tile("v8k stage 0", O::A, 0, V8_PAIR_COLS[1]),
  pair_tile("v8k stage 0", O::B, 0, V8_PAIR_COLS[1]),
  pair_tile("v8k stage 1", O::A, 1, V8_PAIR_COLS[1]),
  pair_tile("v8k stage 1", O::B, 1, V8_PAIR_COLS[1]),
  pair_tile("v8k stage 2", O::A, 2, V8_PAIR_COLS[1]),
  pair_tile("v8k stage 2", O::B, 2, V8_PAIR_COLS[1]),
  pair_tile("v8k stage 3", O::A, 3, V8_PAIR_COLS[1]),
  pair_tile("v8k stage 3", O::B, 3, V8_PAIR_COLS[1]),
  pair_tile("v8k stage 4", O::A, 4, V8_PAIR_COLS[1]),
  pair_tile("v8k stage 4", O::B, 4, V8_PAIR_COLS[1]),
  pair_tile("v8k stage 5", O::A, 5, V8_PAIR_COLS[1]),
  pair_tile("v8k stage 5", O::B, 5, V8_PAIR_COLS[1]),
  pair_tile("v8k stage 6", O::A, 6, V8_PAIR_COLS[1]),
  pair_tile("v8k stage 6", O::B, 6, V8_PAIR_COLS[1]),
  pair_tile("v8k stage 7", O::A, 7, V8_PAIR_COLS[1]),
  pair_tile("v8k stage 7", O::B, 7, V8_PAIR_COLS[1]),
  // v8g, sm90: the ring 32 wide over B's 64-row tile (the small tile).
  decode_tile("v8g stage 0", A::SM90, O::A, 0, V8_DECODE_WIDE_COLS, V8_SMALL_ROWS),
  decode_tile("v8g stage 0", A::SM90, O::B, 0, V8_DECODE_WIDE_COLS, V8_SMALL_ROWS),
  decode_tile("v8g stage 1", A::SM90, O::A, 1, V8_DECODE_WIDE_COLS, V8_SMALL_ROWS),
  decode_tile("v8g stage 1", A::SM90, O::B, 1, V8_DECODE_WIDE_COLS, V8_SMALL_ROWS),
  decode_tile("v8g stage 2", A::SM90, O::A, 2, V8_DECODE_WIDE_COLS, V8_SMALL_ROWS),
  decode_tile("v8g stage 2", A::SM90, O::B, 2, V8_DECODE_WIDE_COLS, V8_SMALL_ROWS),
  decode_tile("v8g stage 3", A::SM90, O::A, 3, V8_DECODE_WIDE_COLS, V8_SMALL_ROWS),
  decode_tile("v8g stage 3", A::SM90, O::B, 3, V8_DECODE_WIDE_COLS, V8_SMALL_ROWS),
  decode_tile("v8g stage 4", A::SM90, O::A, 4, V8_DECODE_WIDE_COLS, V8_SMALL_ROWS),
  decode_tile("v8g stage 4", A::SM90, O::B, 4, V8_DECODE_WIDE_COLS, V8_SMALL_ROWS),
  decode_tile("v8g stage 5", A::SM90, O::A, 5, V8_DECODE_WIDE_COLS, V8_SMALL_ROWS),
  decode_tile("v8g stage 5", A::SM90, O::B, 5, V8_DECODE_WIDE_COLS, V8_SMALL_ROWS),
  decode_tile("v8g stage 6", A::SM90, O::A, 6, V8_DECODE_WIDE_COLS, V8_SMALL_ROWS),
  decode_tile("v8g stage 6", A::SM90, O::B, 6, V8_DECODE_WIDE_COLS, V8_SMALL_ROWS),
  decode_tile("v8g stage 7", A::SM90, O::A, 7, V8_DECODE_WIDE_COLS, V8_SMALL_ROWS),
  decode_tile("v8g stage 7", A::SM90, O::B, 7, V8_DECODE_WIDE_COLS, V8_SMALL_ROWS),
  // v8h, sm90: the ring 16 wide over B's 64-row tile, 16 stages (the decode kernel over 64-row tiles).
  decode_tile("v8h stage 0", A::SM90, O::A, 0, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 0", A::SM90, O::B, 0, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 1", A::SM90, O::A, 1, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 1", A::SM90, O::B, 1, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 2", A::SM90, O::A, 2, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 2", A::SM90, O::B, 2, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 3", A::SM90, O::A, 3, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 3", A::SM90, O::B, 3, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 4", A::SM90, O::A, 4, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 4", A::SM90, O::B, 4, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 5", A::SM90, O::A, 5, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 5", A::SM90, O::B, 5, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 6", A::SM90, O::A, 6, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 6", A::SM90, O::B, 6, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 7", A::SM90, O::A, 7, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 7", A::SM90, O::B, 7, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 8", A::SM90, O::A, 8, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 8", A::SM90, O::B, 8, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 9", A::SM90, O::A, 9, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 9", A::SM90, O::B, 9, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 10", A::SM90, O::A, 10, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 10", A::SM90, O::B, 10, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 11", A::SM90, O::A, 11, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 11", A::SM90, O::B, 11, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 12", A::SM90, O::A, 12, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 12", A::SM90, O::B, 12, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 13", A::SM90, O::A, 13, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 13", A::SM90, O::B, 13, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 14", A::SM90, O::A, 14, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 14", A::SM90, O::B, 14, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 15", A::SM90, O::A, 15, V8_DECODE_COLS, V8_SMALL_ROWS),
  decode_tile("v8h stage 15", A::SM90, O::B, 15, V8_DECODE_COLS, V8_SMALL_ROWS),
  // v8u and v8v, both: the ring 144 and 192 wide (A's 144 or 192 rows as the MMA's B), 6 and 5 stages.
  decode_tile("v8u stage 0", A::SM100, O::A, 0, V8_TURNED_COLS),
  decode_tile("v8u stage 0", A::SM100, O::B, 0, V8_TURNED_COLS),
  decode_tile("v8u stage 1", A::SM100, O::A, 1, V8_TURNED_COLS),
  decode_tile("v8u stage 1", A::SM100, O::B, 1, V8_TURNED_COLS),
  decode_tile("v8u stage 2", A::SM100, O::A, 2, V8_TURNED_COLS),
  decode_tile("v8u stage 2", A::SM100, O::B, 2, V8_TURNED_COLS),
  decode_tile("v8u stage 3", A::SM100, O::A, 3, V8_TURNED_COLS),
  decode_tile("v8u stage 3", A::SM100, O::B, 3, V8_TURNED_COLS),
  decode_tile("v8u stage 4", A::SM100, O::A, 4, V8_TURNED_COLS),
  decode_tile("v8u stage 4", A::SM100, O::B, 4, V8_TURNED_COLS),
  decode_tile("v8u stage 5", A::SM100, O::A, 5, V8_TURNED_COLS),
  decode_tile("v8u stage 5", A::SM100, O::B, 5, V8_TURNED_COLS),
  decode_tile("v8u stage 0", A::SM90, O::A, 0, V8_TURNED_COLS),
  decode_tile("v8u stage 0", A::SM90, O::B, 0, V8_TURNED_COLS),
  decode_tile("v8u stage 1", A::SM90, O::A, 1, V8_TURNED_COLS),
  decode_tile("v8u stage 1", A::SM90, O::B, 1, V8_TURNED_COLS),
  decode_tile("v8u stage 2", A::SM90, O::A, 2, V8_TURNED_COLS),
  decode_tile("v8u stage 2", A::SM90, O::B, 2, V8_TURNED_COLS),
  decode_tile("v8u stage 3", A::SM90, O::A, 3, V8_TURNED_COLS),
  decode_tile("v8u stage 3", A::SM90, O::B, 3, V8_TURNED_COLS),
  decode_tile("v8u stage 4", A::SM90, O::A, 4, V8_TURNED_COLS),
  decode_tile("v8u stage 4", A::SM90, O::B, 4, V8_TURNED_COLS),
  decode_tile("v8u stage 5", A::SM90, O::A, 5, V8_TURNED_COLS),
  decode_tile("v8u stage 5", A::SM90, O::B, 5, V8_TURNED_COLS),
  decode_tile("v8v stage 0", A::SM100, O::A, 0, V8_TURNED_WIDE_COLS),
  decode_tile("v8v stage 0", A::SM100, O::B, 0, V8_TURNED_WIDE_COLS),
  decode_tile("v8v stage 1", A::SM100, O::A, 1, V8_TURNED_WIDE_COLS),
  decode_tile("v8v stage 1", A::SM100, O::B, 1, V8_TURNED_WIDE_COLS),
  decode_tile("v8v stage 2", A::SM100, O::A, 2, V8_TURNED_WIDE_COLS),
  decode_tile("v8v stage 2", A::SM100, O::B, 2, V8_TURNED_WIDE_COLS),
  decode_tile("v8v stage 3", A::SM100, O::A, 3, V8_TURNED_WIDE_COLS),
  decode_tile("v8v stage 3", A::SM100, O::B, 3, V8_TURNED_WIDE_COLS),
  decode_tile("v8v stage 4", A::SM100, O::A, 4, V8_TURNED_WIDE_COLS),
  decode_tile("v8v stage 4", A::SM100, O::B, 4, V8_TURNED_WIDE_COLS),
  decode_tile("v8v stage 0", A::SM90, O::A, 0, V8_TURNED_WIDE_COLS),
  decode_tile("v8v stage 0", A::SM90, O::B, 0, V8_TURNED_WIDE_COLS),
  decode_tile("v8v stage 1", A::SM90, O::A, 1, V8_TURNED_WIDE_COLS),
  decode_tile("v8v stage 1", A::SM90, O::B, 1, V8_TURNED_WIDE_COLS),
  decode_tile("v8v stage 2", A::SM90, O::A, 2, V8_TURNED_WIDE_COLS),
  decode_tile("v8v stage 2", A::SM90, O::B, 2, V8_TURNED_WIDE_COLS),
  decode_tile("v8v stage 3", A::SM90, O::A, 3, V8_TURNED_WIDE_COLS),
  decode_tile("v8v stage 3", A::SM90, O::B, 3, V8_TURNED_WIDE_COLS),
  decode_tile("v8v stage 4", A::SM90, O::A, 4, V8_TURNED_WIDE_COLS),
  decode_tile("v8v stage 4", A::SM90, O::B, 4, V8_TURNED_WIDE_COLS),
  // v8q sm90 (see NUM_STAGES_V8_PAIR): the token pair 48 wide per CTA.
  pair_tile("v8q stage 0", O::A, 0, V8_PAIR_COLS[0]),
  pair_tile("v8q stage 0", O::B, 0, V8_PAIR_COLS[0]),
  pair_tile("v8q stage 1", O::A, 1, V8_PAIR_COLS[0]),
  pair_tile("v8q stage 1", O::B, 1, V8_PAIR_COLS[0]),
  pair_tile("v8q stage 2", O::A, 2, V8_PAIR_COLS[0]),
  pair_tile("v8q stage 2", O::B, 2, V8_PAIR_COLS[0]),
  pair_tile("v8q stage 3", O::A, 3, V8_PAIR_COLS[0]),
  pair_tile("v8q stage 3", O::B, 3, V8_PAIR_COLS[0]),
  pair_tile("v8q stage 4", O::A, 4, V8_PAIR_COLS[0]),
  pair_tile("v8q stage 4", O::B, 4, V8_PAIR_COLS[0]),
  pair_tile("v8q stage 5", O::A, 5, V8_PAIR_COLS[0]),
  pair_tile("v8q stage 5", O::B, 5, V8_PAIR_COLS[0]),
  pair_tile("v8q stage 6", O::A, 6, V8_PAIR_COLS[0]),
  pair_tile("v8q stage 6", O::B, 6, V8_PAIR_COLS[0]),
  pair_tile("v8q stage 7", O::A, 7, V8_PAIR_COLS[0]),
  pair_tile("v8q stage 7", O::B, 7, V8_PAIR_COLS[0]),
  // v8x sm90 (see NUM_STAGES_V8_PAIR): the token pair 64 wide per CTA.
  pair_tile("v8x stage 0", O::A, 0, V8_PAIR_COLS[1]),
  pair_tile("v8x stage 0", O::B, 0, V8_PAIR_COLS[1]),
  pair_tile("v8x stage 1", O::A, 1, V8_PAIR_COLS[1]),
  pair_tile("v8x stage 1", O::B, 1, V8_PAIR_COLS[1]),
  pair_tile("v8x stage 2", O::A, 2, V8_PAIR_COLS[1]),
  pair_tile("v8x stage 2", O::B, 2, V8_PAIR_COLS[1]),
  pair_tile("v8x stage 3", O::A, 3, V8_PAIR_COLS[1]),
  pair_tile("v8x stage 3", O::B, 3, V8_PAIR_COLS[1]),
  pair_tile("v8x stage 4", O::A, 4, V8_PAIR_COLS[1]),
  pair_tile("v8x stage 4", O::B, 4, V8_PAIR_COLS[1]),
  pair_tile("v8x stage 5", O::A, 5, V8_PAIR_COLS[1]),
  pair_tile("v8x stage 5", O::B, 5, V8_PAIR_COLS[1]),
  pair_tile("v8x stage 6", O::A, 6, V8_PAIR_COLS[1]),
  pair_tile("v8x stage 6", O::B, 6, V8_PAIR_COLS[1]),
  pair_tile("v8x stage 7", O::A, 7, V8_PAIR_COLS[1]),
  pair_tile("v8x stage 7", O::B, 7, V8_PAIR_COLS[1]),
  // v8y sm90 (see NUM_STAGES_V8_PAIR): the token pair 80 wide per CTA.
  pair_tile("v8y stage 0", O::A, 0, V8_PAIR_COLS[2]),
  pair_tile("v8y stage 0", O::B, 0, V8_PAIR_COLS[2]),
  pair_tile("v8y stage 1", O::A, 1, V8_PAIR_COLS[2]),
  pair_tile("v8y stage 1", O::B, 1, V8_PAIR_COLS[2]),
  pair_tile("v8y stage 2", O::A, 2, V8_PAIR_COLS[2]),
  pair_tile("v8y stage 2", O::B, 2, V8_PAIR_COLS[2]),
  pair_tile("v8y stage 3", O::A, 3, V8_PAIR_COLS[2]),
  pair_tile("v8y stage 3", O::B, 3, V8_PAIR_COLS[2]),
  pair_tile("v8y stage 4", O::A, 4, V8_PAIR_COLS[2]),
  pair_tile("v8y stage 4", O::B, 4, V8_PAIR_COLS[2]),
  pair_tile("v8y stage 5", O::A, 5, V8_PAIR_COLS[2]),
  pair_tile("v8y stage 5", O::B, 5, V8_PAIR_COLS[2]),
  pair_tile("v8y stage 6", O::A, 6, V8_PAIR_COLS[2]),
  pair_tile("v8y stage 6", O::B, 6, V8_PAIR_COLS[2]),
  pair_tile("v8y stage 7", O::A, 7, V8_PAIR_COLS[2]),
  pair_tile("v8y stage 7", O::B, 7, V8_PAIR_COLS[2]),
  // v8z sm90 (see NUM_STAGES_V8_PAIR): the token pair 96 wide per CTA.
  pair_tile("v8z stage 0", O::A, 0, V8_PAIR_COLS[3]),
  pair_tile("v8z stage 0", O::B, 0, V8_PAIR_COLS[3]),
  pair_tile("v8z stage 1", O::A, 1, V8_PAIR_COLS[3]),
  pair_tile("v8z stage 1", O::B, 1, V8_PAIR_COLS[3]),
  pair_tile("v8z stage 2", O::A, 2, V8_PAIR_COLS[3]),
  pair_tile("v8z stage 2", O::B, 2, V8_PAIR_COLS[3]),
  pair_tile("v8z stage 3", O::A, 3, V8_PAIR_COLS[3]),
  pair_tile("v8z stage 3", O::B, 3, V8_PAIR_COLS[3]),
  pair_tile("v8z stage 4", O::A, 4, V8_PAIR_COLS[3]),
  pair_tile("v8z stage 4", O::B, 4, V8_PAIR_COLS[3]),
  pair_tile("v8z stage 5", O::A, 5, V8_PAIR_COLS[3]),
  pair_tile("v8z stage 5", O::B, 5, V8_PAIR_COLS[3]),
  pair_tile("v8z stage 6", O::A, 6, V8_PAIR_COLS[3]),
  pair_tile("v8z stage 6", O::B, 6, V8_PAIR_COLS[3]),
  pair_tile("v8z stage 7", O::A, 7, V8_PAIR_COLS[3]),
  pair_tile("v8z stage 7", O::B, 7, V8_PAIR_COLS[3]),
  // v8o sm90 (see NUM_STAGES_V8_PAIR_WIDE): the token pair 112 wide per CTA.
  pair_tile("v8o stage 0", O::A, 0, V8_PAIR_COLS[4]),
  pair_tile("v8o stage 0", O::B, 0, V8_PAIR_COLS[4]),
  pair_tile("v8o stage 1", O::A, 1, V8_PAIR_COLS[4]),
  pair_tile("v8o stage 1", O::B, 1, V8_PAIR_COLS[4]),
  pair_tile("v8o stage 2", O::A, 2, V8_PAIR_COLS[4]),
  pair_tile("v8o stage 2", O::B, 2, V8_PAIR_COLS[4]),
  pair_tile("v8o stage 3", O::A, 3, V8_PAIR_COLS[4]),
  pair_tile("v8o stage 3", O::B, 3, V8_PAIR_COLS[4]),
  pair_tile("v8o stage 4", O::A, 4, V8_PAIR_COLS[4]),
  pair_tile("v8o stage 4", O::B, 4, V8_PAIR_COLS[4]),
  pair_tile("v8o stage 5", O::A, 5, V8_PAIR_COLS[4]),
  pair_tile("v8o stage 5", O::B, 5, V8_PAIR_COLS[4]),
  pair_tile("v8o stage 6", O::A, 6, V8_PAIR_COLS[4]),
  pair_tile("v8o stage 6", O::B, 6, V8_PAIR_COLS[4]),
  // v8r sm90 (see NUM_STAGES_V8_PAIR_WIDE): the token pair 128 wide per CTA.
  pair_tile("v8r stage 0", O::A, 0, V8_PAIR_COLS[5]),
  pair_tile("v8r stage 0", O::B, 0, V8_PAIR_COLS[5]),
  pair_tile("v8r stage 1", O::A, 1, V8_PAIR_COLS[5]),
  pair_tile("v8r stage 1", O::B, 1, V8_PAIR_COLS[5]),
  pair_tile("v8r stage 2", O::A, 2, V8_PAIR_COLS[5]),
  pair_tile("v8r stage 2", O::B, 2, V8_PAIR_COLS[5]),
  pair_tile("v8r stage 3", O::A, 3, V8_PAIR_COLS[5]),
  pair_tile("v8r stage 3", O::B, 3, V8_PAIR_COLS[5]),
  pair_tile("v8r stage 4", O::A, 4, V8_PAIR_COLS[5]),
  pair_tile("v8r stage 4", O::B, 4, V8_PAIR_COLS[5]),
  pair_tile("v8r stage 5", O::A, 5, V8_PAIR_COLS[5]),
  pair_tile("v8r stage 5", O::B, 5, V8_PAIR_COLS[5]),
  pair_tile("v8r stage 6", O::A, 6, V8_PAIR_COLS[5]),
  pair_tile("v8r stage 6", O::B, 6, V8_PAIR_COLS[5]),
  // v8q sm100 (see NUM_STAGES_V8_PAIR): the token pair 48 wide per CTA.
  pair_tile("v8q stage 0", O::A, 0, V8_PAIR_COLS[0], A::SM100),
  pair_tile("v8q stage 0", O::B, 0, V8_PAIR_COLS[0], A::SM100),
  pair_tile("v8q stage 1", O::A, 1, V8_PAIR_COLS[0], A::SM100),
  pair_tile("v8q stage 1", O::B, 1, V8_PAIR_COLS[0], A::SM100),
  pair_tile("v8q stage 2", O::A, 2, V8_PAIR_COLS[0], A::SM100),
  pair_tile("v8q stage 2", O::B, 2, V8_PAIR_COLS[0], A::SM100),
  pair_tile("v8q stage 3", O::A, 3, V8_PAIR_COLS[0], A::SM100),
  pair_tile("v8q stage 3", O::B, 3, V8_PAIR_COLS[0], A::SM100),
  pair_tile("v8q stage 4", O::A, 4, V8_PAIR_COLS[0], A::SM100),
  pair_tile("v8q stage 4", O::B, 4, V8_PAIR_COLS[0], A::SM100),
  pair_tile("v8q stage 5", O::A, 5, V8_PAIR_COLS[0], A::SM100),
  pair_tile("v8q stage 5", O::B, 5, V8_PAIR_COLS[0], A::SM100),
  pair_tile("v8q stage 6", O::A, 6, V8_PAIR_COLS[0], A::SM100),
  pair_tile("v8q stage 6", O::B, 6, V8_PAIR_COLS[0], A::SM100),
  pair_tile("v8q stage 7", O::A, 7, V8_PAIR_COLS[0], A::SM100),
  pair_tile("v8q stage 7", O::B, 7, V8_PAIR_COLS[0], A::SM100),
  // v8x sm100 (see NUM_STAGES_V8_PAIR): the token pair 64 wide per CTA.
  pair_tile("v8x stage 0", O::A, 0, V8_PAIR_COLS[1], A::SM100),
  pair_tile("v8x stage 0", O::B, 0, V8_PAIR_COLS[1], A::SM100),
  pair_tile("v8x stage 1", O::A, 1, V8_PAIR_COLS[1], A::SM100),
  pair_tile("v8x stage 1", O::B, 1, V8_PAIR_COLS[1], A::SM100),
  pair_tile("v8x stage 2", O::A, 2, V8_PAIR_COLS[1], A::SM100),
  pair_tile("v8x stage 2", O::B, 2, V8_PAIR_COLS[1], A::SM100),
  pair_tile("v8x stage 3", O::A, 3, V8_PAIR_COLS[1], A::SM100),
  pair_tile("v8x stage 3", O::B, 3, V8_PAIR_COLS[1], A::SM100),
  pair_tile("v8x stage 4", O::A, 4, V8_PAIR_COLS[1], A::SM100),
  pair_tile("v8x stage 4", O::B, 4, V8_PAIR_COLS[1], A::SM100),
  pair_tile("v8x stage 5", O::A, 5, V8_PAIR_COLS[1], A::SM100),
  pair_tile("v8x stage 5", O::B, 5, V8_PAIR_COLS[1], A::SM100),
  pair_tile("v8x stage 6", O::A, 6, V8_PAIR_COLS[1], A::SM100),
  pair_tile("v8x stage 6", O::B, 6, V8_PAIR_COLS[1], A::SM100),
  pair_tile("v8x stage 7", O::A, 7, V8_PAIR_COLS[1], A::SM100),
  pair_tile("v8x stage 7", O::B, 7, V8_PAIR_COLS[1], A::SM100),
  // v8y sm100 (see NUM_STAGES_V8_PAIR): the token pair 80 wide per CTA.
  pair_tile("v8y stage 0", O::A, 0, V8_PAIR_COLS[2], A::SM100),
  pair_tile("v8y stage 0", O::B, 0, V8_PAIR_COLS[2], A::SM100),
  pair_tile("v8y stage 1", O::A, 1, V8_PAIR_COLS[2], A::SM100),
  pair_tile("v8y stage 1", O::B, 1, V8_PAIR_COLS[2], A::SM100),
  pair_tile("v8y stage 2", O::A, 2, V8_PAIR_COLS[2], A::SM100),
  pair_tile("v8y stage 2", O::B, 2, V8_PAIR_COLS[2], A::SM100),
  pair_tile("v8y stage 3", O::A, 3, V8_PAIR_COLS[2], A::SM100),
  pair_tile("v8y stage 3", O::B, 3, V8_PAIR_COLS[2], A::SM100),
  pair_tile("v8y stage 4", O::A, 4, V8_PAIR_COLS[2], A::SM100),
  pair_tile("v8y stage 4", O::B, 4, V8_PAIR_COLS[2], A::SM100),
  pair_tile("v8y stage 5", O::A, 5, V8_PAIR_COLS[2], A::SM100),
  pair_tile("v8y stage 5", O::B, 5, V8_PAIR_COLS[2], A::SM100),
  pair_tile("v8y stage 6", O::A, 6, V8_PAIR_COLS[2], A::SM100),
  pair_tile("v8y stage 6", O::B, 6, V8_PAIR_COLS[2], A::SM100),
  pair_tile("v8y stage 7", O::A, 7, V8_PAIR_COLS[2], A::SM100),
  pair_tile("v8y stage 7", O::B, 7, V8_PAIR_COLS[2], A::SM100),
  // v8z sm100 (see NUM_STAGES_V8_PAIR): the token pair 96 wide per CTA.
  pair_tile("v8z stage 0", O::A, 0, V8_PAIR_COLS[3], A::SM100),
  pair_tile("v8z stage 0", O::B, 0, V8_PAIR_COLS[3], A::SM100),
  pair_tile("v8z stage 1", O::A, 1, V8_PAIR_COLS[3], A::SM100),
  pair_tile("v8z stage 1", O::B, 1, V8_PAIR_COLS[3], A::SM100),
  pair_tile("v8z stage 2", O::A, 2, V8_PAIR_COLS[3], A::SM100),
  pair_tile("v8z stage 2", O::B, 2, V8_PAIR_COLS[3], A::SM100),
  pair_tile("v8z stage 3", O::A, 3, V8_PAIR_COLS[3], A::SM100),
  pair_tile("v8z stage 3", O::B, 3, V8_PAIR_COLS[3], A::SM100),
  pair_tile("v8z stage 4", O::A, 4, V8_PAIR_COLS[3], A::SM100),
  pair_tile("v8z stage 4", O::B, 4, V8_PAIR_COLS[3], A::SM100),
  pair_tile("v8z stage 5", O::A, 5, V8_PAIR_COLS[3], A::SM100),
  pair_tile("v8z stage 5", O::B, 5, V8_PAIR_COLS[3], A::SM100),
  pair_tile("v8z stage 6", O::A, 6, V8_PAIR_COLS[3], A::SM100),
  pair_tile("v8z stage 6", O::B, 6, V8_PAIR_COLS[3], A::SM100),
  pair_tile("v8z stage 7", O::A, 7, V8_PAIR_COLS[3], A::SM100),
  pair_tile("v8z stage 7", O::B, 7, V8_PAIR_COLS[3], A::SM100),
  // v8o sm100 (see NUM_STAGES_V8_PAIR_WIDE): the token pair 112 wide per CTA.
  pair_tile("v8o stage 0", O::A, 0, V8_PAIR_COLS[4], A::SM100),
  pair_tile("v8o stage 0", O::B, 0, V8_PAIR_COLS[4], A::SM100),
  pair_tile("v8o stage 1", O::A, 1, V8_PAIR_COLS[4], A::SM100),
  pair_tile("v8o stage 1", O::B, 1, V8_PAIR_COLS[4], A::SM100),
  pair_tile("v8o stage 2", O::A, 2, V8_PAIR_COLS[4], A::SM100),
  pair_tile("v8o stage 2", O::B, 2, V8_PAIR_COLS[4], A::SM100),
  pair_tile("v8o stage 3", O::A, 3, V8_PAIR_COLS[4], A::SM100),
  pair_tile("v8o stage 3", O::B, 3, V8_PAIR_COLS[4], A::SM100),
  pair_tile("v8o stage 4", O::A, 4, V8_PAIR_COLS[4], A::SM100),
  pair_tile("v8o stage 4", O::B, 4, V8_PAIR_COLS[4], A::SM100),
  pair_tile("v8o stage 5", O::A, 5, V8_PAIR_COLS[4], A::SM100),
  pair_tile("v8o stage 5", O::B, 5, V8_PAIR_COLS[4], A::SM100),
  pair_tile("v8o stage 6", O::A, 6, V8_PAIR_COLS[4], A::SM100),
  pair_tile("v8o stage 6", O::B, 6, V8_PAIR_COLS[4], A::SM100),
  // v8r sm100 (see NUM_STAGES_V8_PAIR_WIDE): the token pair 128 wide per CTA.
  pair_tile("v8r stage 0", O::A, 0, V8_PAIR_COLS[5], A::SM100),
  pair_tile("v8r stage 0", O::B, 0, V8_PAIR_COLS[5], A::SM100),
  pair_tile("v8r stage 1", O::A, 1, V8_PAIR_COLS[5], A::SM100),
  pair_tile("v8r stage 1", O::B, 1, V8_PAIR_COLS[5], A::SM100),
  pair_tile("v8r stage 2", O::A, 2, V8_PAIR_COLS[5], A::SM100),
  pair_tile("v8r stage 2", O::B, 2, V8_PAIR_COLS[5], A::SM100),
  pair_tile("v8r stage 3", O::A, 3, V8_PAIR_COLS[5], A::SM100),
  pair_tile("v8r stage 3", O::B, 3, V8_PAIR_COLS[5], A::SM100),
  pair_tile("v8r stage 4", O::A, 4, V8_PAIR_COLS[5], A::SM100),
  pair_tile("v8r stage 4", O::B, 4, V8_PAIR_COLS[5], A::SM100),
  pair_tile("v8r stage 5", O::A, 5, V8_PAIR_COLS[5], A::SM100),
  pair_tile("v8r stage 5", O::B, 5, V8_PAIR_COLS[5], A::SM100),
  pair_tile("v8r stage 6", O::A, 6, V8_PAIR_COLS[5], A::SM100),
  pair_tile("v8r stage 6", O::B, 6, V8_PAIR_COLS[5], A::SM100),
  // v8p sm90 (see NUM_STAGES_V8_SM90_PINGPONG): the ping-pong tile's ring.
  pingpong_tile("v8p stage 0", O::A, 0),
  pingpong_tile("v8p stage 0", O::B, 0),
  pingpong_tile("v8p stage 1", O::A, 1),
  pingpong_tile("v8p stage 1", O::B, 1),
  pingpong_tile("v8p stage 2", O::A, 2),
  pingpong_tile("v8p stage 2", O::B, 2),
  pingpong_tile("v8p stage 3", O::A, 3),
  pingpong_tile("v8p stage 3", O::B, 3),
  pingpong_tile("v8p stage 4", O::A, 4),
  pingpong_tile("v8p stage 4", O::B, 4),
  // v8w sm90 (see NUM_STAGES_V8_SM90_PINGPONG_WIDE): the same ring 144 wide.
  pingpong_tile("v8w stage 0", O::A, 0, V8_SM90_PINGPONG_WIDE_N),
  pingpong_tile("v8w stage 0", O::B, 0, V8_SM90_PINGPONG_WIDE_N),
  pingpong_tile("v8w stage 1", O::A, 1, V8_SM90_PINGPONG_WIDE_N),
  pingpong_tile("v8w stage 1", O::B, 1, V8_SM90_PINGPONG_WIDE_N),
  pingpong_tile("v8w stage 2", O::A, 2, V8_SM90_PINGPONG_WIDE_N),
  pingpong_tile("v8w stage 2", O::B, 2, V8_SM90_PINGPONG_WIDE_N),
  pingpong_tile("v8w stage 3", O::A, 3, V8_SM90_PINGPONG_WIDE_N),
  pingpong_tile("v8w stage 3", O::B, 3, V8_SM90_PINGPONG_WIDE_N),
  // v8c sm90 (see V8_SM90_PINGPONG_PAIR_BOX_ROWS): v8p's ring, B's tile in two boxes, one per CTA of the pair.
  pingpong_pair_tile("v8c stage 0", O::A, 0),
  pingpong_pair_tile("v8c stage 0", O::B, 0),
  pingpong_pair_tile("v8c stage 1", O::A, 1),
  pingpong_pair_tile("v8c stage 1", O::B, 1),
  pingpong_pair_tile("v8c stage 2", O::A, 2),
  pingpong_pair_tile("v8c stage 2", O::B, 2),
  pingpong_pair_tile("v8c stage 3", O::A, 3),
  pingpong_pair_tile("v8c stage 3", O::B, 3),
  pingpong_pair_tile("v8c stage 4", O::A, 4),
  pingpong_pair_tile("v8c stage 4", O::B, 4),
  // v8a sm100 (see NUM_STAGES_V8_SM100_CTA): a CTA alone, its A tile and all 256 rows of B, 4 stages of 48 KB.
  cta_alone_tile("v8a stage 0", O::A, SM100_BLOCK_M, 0),
  cta_alone_tile("v8a stage 0", O::B, V5_SM100_MMA_N, 0),
  cta_alone_tile("v8a stage 1", O::A, SM100_BLOCK_M, 1),
  cta_alone_tile("v8a stage 1", O::B, V5_SM100_MMA_N, 1),
  cta_alone_tile("v8a stage 2", O::A, SM100_BLOCK_M, 2),
  cta_alone_tile("v8a stage 2", O::B, V5_SM100_MMA_N, 2),
  cta_alone_tile("v8a stage 3", O::A, SM100_BLOCK_M, 3),
  cta_alone_tile("v8a stage 3", O::B, V5_SM100_MMA_N, 3),
  // v8n sm100 (see NUM_STAGES_V8_SM100_NARROW): the narrow pair's ring.
  narrow_pair_tile("v8n stage 0", O::A, 0),
  narrow_pair_tile("v8n stage 0", O::B, 0),
  narrow_pair_tile("v8n stage 1", O::A, 1),
  narrow_pair_tile("v8n stage 1", O::B, 1),
  narrow_pair_tile("v8n stage 2", O::A, 2),
  narrow_pair_tile("v8n stage 2", O::B, 2),
  narrow_pair_tile("v8n stage 3", O::A, 3),
  narrow_pair_tile("v8n stage 3", O::B, 3),
  narrow_pair_tile("v8n stage 4", O::A, 4),
  narrow_pair_tile("v8n stage 4", O::B, 4),
  narrow_pair_tile("v8n stage 5", O::A, 5),
  narrow_pair_tile("v8n stage 5", O::B, 5),
  narrow_pair_tile("v8n stage 6", O::A, 6),
  narrow_pair_tile("v8n stage 6", O::B, 6),
  narrow_pair_tile("v8n stage 7", O::A, 7),
  narrow_pair_tile("v8n stage 7", O::B, 7),
  narrow_pair_tile("v8n stage 8", O::A, 8),
  narrow_pair_tile("v8n stage 8", O::B, 8),
  narrow_pair_tile("v8n stage 9", O::A, 9),
  narrow_pair_tile("v8n stage 9", O::B, 9),
  narrow_pair_tile("v8n stage 10", O::A, 10),
  narrow_pair_tile("v8n stage 10", O::B, 10),
  tile("v7clc stage 0", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 0),
  tile("v7clc stage 0", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 0),
  tile("v7clc stage 1", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 1),
  tile("v7clc stage 1", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 1),
  tile("v7clc stage 2", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 2),
  tile("v7clc stage 2", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 2),
  tile("v7clc stage 3", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 3),
  tile("v7clc stage 3", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 3),
  tile("v7clc stage 4", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 4),
  tile("v7clc stage 4", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 4),
  tile("v7clc stage 5", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 5),
  tile("v7clc stage 5", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 5),
  tile("v7clc stage 6", A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B128, 6),
  tile("v7clc stage 6", A::SM100, O::B, V5_SM100_MMA_N / 2, V5_SM100_MMA_N / 2, T::BOXES_2D, S::B128, 6),
};
// clang-format on

// Tiles no stage uses: the 32B and 64B swizzles. The emulator decodes every tcgen05 swizzle code,
// the stages use 128B and none only; these rows put K-major bf16 tiles of BLOCK_K = 64 (four 32-byte or two
// 64-byte slices of 128 rows, B also of 64 rows) through the checks the stage rows get: the TMA/MMA round trip
// (tests/test_layout_model.cpp), CuTe's descriptors (tests/test_cutlass_crosscheck.cpp) and the emulated MMA
// against the model (tests/test_tcgen05_emu_gpu.cu mma). Kept out of STAGE_CONFIGS, which
// tests/test_stage_table.cpp holds to the kernels. A row of each stage name is an A and a B of one MMA.
// clang-format off
constexpr StageConfig SWIZZLE_TILES[] = {
  //    name         arch      op    rows           mma rows       TMA          swizzle  ring slot
  tile("sw32 2D",   A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B32,  0),
  tile("sw32 2D",   A::SM100, O::B, SM100_BLOCK_N, SM100_BLOCK_N, T::BOXES_2D, S::B32,  0),
  tile("sw32 3D",   A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOX_3D,   S::B32,  1),
  tile("sw32 3D",   A::SM100, O::B, 64,            64,            T::BOX_3D,   S::B32,  1),
  tile("sw64 2D",   A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOXES_2D, S::B64,  0),
  tile("sw64 2D",   A::SM100, O::B, SM100_BLOCK_N, SM100_BLOCK_N, T::BOXES_2D, S::B64,  0),
  tile("sw64 3D",   A::SM100, O::A, SM100_BLOCK_M, SM100_MMA_M,   T::BOX_3D,   S::B64,  1),
  tile("sw64 3D",   A::SM100, O::B, 64,            64,            T::BOX_3D,   S::B64,  1),
};
// clang-format on

// The tcgen05.mma instruction shapes the sm_100a kernels issue (kind::f16, BF16 x BF16 -> F32). Checked
// against each stage's tiles by tests/test_stage_table.cpp, decoded by the layout model, and cross-checked
// with CuTe's UMMA::make_instr_desc by tests/test_cutlass_crosscheck.cpp.
struct MmaShape {
  const char* stages;
  int cta_group;  // 1, or 2 for the CTA-pair MMA of v5
  int m, n;
};
constexpr MmaShape SM100_MMA_SHAPES[] = {
    {"v1 v2 v3 v4", 1, SM100_MMA_M, SM100_BLOCK_N},
    {"v5 v6", 2, V5_SM100_MMA_M, V5_SM100_MMA_N},  // the CTA pair: 128 rows of A and of B in each CTA
    {"v8a", 1, SM100_MMA_M, V5_SM100_MMA_N},       // v8a, the CTA alone: 128 rows of A, all 256 of B
    {"v8n", 2, V5_SM100_MMA_M,
     V8_SM100_NARROW_N},  // v8n, the narrow pair: 128 rows of A and 32 of B in each CTA
    {"v8s", 1, V8_DECODE_ROWS,
     V8_DECODE_COLS},  // v8s, decode: B's 128 rows as the MMA's A, A's 16 rows as its B
    {"v8t", 1, V8_DECODE_ROWS, V8_DECODE_WIDE_COLS},  // v8t, decode 32 wide: A's 32 rows as the MMA's B
    {"v8u", 1, V8_DECODE_ROWS, V8_TURNED_COLS},       // v8u, turned around 144 wide: A's 144 rows as its B
    {"v8v", 1, V8_DECODE_ROWS, V8_TURNED_WIDE_COLS},  // v8v, turned around 192 wide: A's 192 rows as its B
    // the token pair (v8q .. v8r): each CTA's 48 (64, 80, 96, 112, 128) of A's rows as the MMA's B
    {"v8q", 1, V8_DECODE_ROWS, V8_PAIR_COLS[0]},
    {"v8x", 1, V8_DECODE_ROWS, V8_PAIR_COLS[1]},
    {"v8y", 1, V8_DECODE_ROWS, V8_PAIR_COLS[2]},
    {"v8z", 1, V8_DECODE_ROWS, V8_PAIR_COLS[3]},
    {"v8o", 1, V8_DECODE_ROWS, V8_PAIR_COLS[4]},
    {"v8r", 1, V8_DECODE_ROWS, V8_PAIR_COLS[5]},
};

static_assert(NUM_STAGES_SM100 == 7 && NUM_STAGES_SM90 == 4,
              "v3 rows list stages 0..6 (sm100) and 0..3 (sm90): update them together");
static_assert(NUM_STAGES_V4_SM100 == 7 && NUM_STAGES_V4_SM90 == 4,
              "v4 rows list stages 0..6 (sm100) and 0..3 (sm90): update them together");
static_assert(NUM_STAGES_V6_SM90 == 4, "v6a/v6b/v6c sm90 rows list stages 0..3: update them together");
static_assert(NUM_STAGES_V5_SM100 == 7 && NUM_STAGES_V5_SM90 == 4,
              "v5 rows list stages 0..6 (sm100) and 0..3 (sm90): update them together");
static_assert(NUM_STAGES_V7_SM90 == 4, "v7a/v7b/v7c/v7d sm90 rows list stages 0..3: update them together");
static_assert(NUM_STAGES_V6_SM100 == 7, "v6a/v6b/v6c sm100 rows list stages 0..6: update them together");
static_assert(NUM_STAGES_V8_DECODE == 8, "v8s rows list stages 0..7 (both architectures): update them together");
static_assert(NUM_STAGES_V8_TURNED == 6 && NUM_STAGES_V8_TURNED_WIDE == 5,
              "v8u rows list stages 0..5 and v8v rows 0..4 (both architectures): update them together");
static_assert(NUM_STAGES_V8_SM100_CTA == 4, "v8a sm100 rows list stages 0..3: update them together");

}  // namespace stage_configs
