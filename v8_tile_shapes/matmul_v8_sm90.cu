// matmul_v8_sm90.cu: stage 8 on Hopper (sm_90a): the tile fits the problem. v7's persistent kernel and its
// stream-K plans (v7d's picking rule), unchanged; what changes is the unit a piece of work covers: v7's CTA
// pair (256 x 256), a CTA alone (128 x 256), or a narrow pair (two 128 x 64 tiles), picked per shape from
// what each can have resident at once. (The Blackwell file, matmul_v8.cu, makes the same step with tcgen05.)
//
// C[M,N] = A[M,K] * B[N,K]^T, bf16 in and out, fp32 accumulation, both operands K-major.
//
// What changed since v7:
//  1. The unit: the pair, or a CTA alone (the kernel's UNIT_CTAS, CLUSTER_SIZE or 1). A CTA alone is a
//     128x256 unit with no cluster: it loads both halves of B itself (no multicast) and releases its stages
//     in its own CTA only; 132 workers instead of 66, each with units of its own where M <= 128 leaves a
//     pair's second CTA without rows. v8d picks the unit per shape (pick_unit, common/streamk.h): a CTA alone
//     only with whole units, and only where they cost at most 3/4 of the pair's plan (128x28672x4096: one
//     turn of 132 CTAs against two of 66 pairs). v8a runs v7d's plans on CTAs alone at every shape.
//  2. The narrow tile (v8n; the kernel's TILE_N, Tile<TILE_N>): 128 x 64 per CTA (wgmma m64n64k16, 32
//     accumulators, 8 stages of 24 KB, one C box per warpgroup), for the shapes where the wide units leave
//     most SMs idle (1024^3: 64 narrow units against 16 wide ones). Its pair sits side by side along N
//     (128 x 128), sharing A: each CTA multicasts one 64-row half of A to both and loads its own 64 rows of B
//     (Tile::PAIR_ALONG_N). A pair shares the operand whose tile is larger (the wide pair B's 256 rows, the
//     narrow one A's 128 against B's 64), so that an SM asks the L2 for 16 of the 24 KB that land in it per K
//     tile, not 20: the narrow loop is bound by the L2's throughput. v8d takes the narrow pair where 36% of
//     its plan's cost is less than the picked unit's (pick_width, common/streamk.h, NARROW_PERCENT_SM90: a
//     narrow iteration measured at 35% of a wide one). A narrow tile's fixup reads 4 partials per batch (its
//     8 float4 per thread and partial leave room for 4 in flight; the wide tile's 32, one). Between the
//     two, the medium tile (v8m): 128 x 128 per CTA (m64n128k16, 6 stages of 32 KB), a pair along N as the
//     narrow one, which reads A's tile once per 256 columns of C, not 128: v8d takes it where M is a tile or
//     so and N or K is large, or where M ends inside the narrow pair's second A box (pick_medium).
//  3. The L2 policy (l2_policy, chosen on the host by streamk_l2_policy, common/streamk.h): where the plan
//     has partials, one unit row covers M (B is loaded once) and B outgrows the L2, B streams through the L2
//     and pushes the partials out before their finisher reads them. There B's loads are marked evict-first
//     (createpolicy, then the TMA's .L2::cache_hint), and the finisher drops each partial from the L2 once
//     it has read it (discard.global.L2: never written back; the next launch's writer rewrites it).
//  4. Decode (v8s; v8d at M <= 16): a kernel of its own, decode_sm90.cuh, which turns the tile around (B's
//     rows on the MMA's M side, A's at most 16 its N) and splits K to fill the GPU; over 64-row tiles of B
//     (v8h) where those fill one wave unsplit (pick_decode_short_tile). Over 64-row tiles of B and
//     row groups of 32 of A it is the small tile (v8g; v8d where the whole problem is small: pick_small_tile,
//     common/split_k.h, and at 17-32 rows where v8t would fill a quarter of the SMs or less:
//     pick_small_tile_few_ctas), and as the token pair in row groups v8k (v8d at 225-256 rows).
//  5. Ping-pong (v8p; v8d at K <= 2048 where its tiles fill the GPU: pick_pingpong, common/streamk.h): a
//     kernel of its own, pingpong_sm90.cuh, whose two consumer warpgroups own a 128x128 tile each and take
//     turns, one storing C while the other multiplies; from K = 1024 in CTA pairs sharing B's tile (v8c:
//     pick_pingpong_pair).
//  v7's dynamic handout (v7e's work counter) is not carried over: every v8 plan is static.
//
// Why it helps: a unit as large as v7's leaves SMs idle where the shape has few of them (skinny M, small
// cubes); a smaller unit gives every SM work without a fixup. What it costs: a CTA alone loads all of B
// itself (twice the L2 reads of B per tile); the narrow tile does a quarter of the MMA work per K tile, so
// its loop's bookkeeping and the L2's throughput bound it sooner.
//
// PTX ISA sections: as v7, plus "createpolicy", "cp.async.bulk.tensor" (.L2::cache_hint) and "discard"
// (the L2 policy), and "wgmma" (m64n64k16).
#include <cuda_bf16.h>

#include <memory>

#include "common/check.h"
#include "common/descriptors.cuh"
#include "common/edge.h"
#include "common/fixup.cuh"
#include "common/fixup_memory.h"
#include "common/harness.h"
#include "common/persistent_grid.h"
#include "common/profiler.cuh"
#include "common/ptx.cuh"
#include "common/scheduler.h"
#include "common/split_k.h"
#include "common/streamk.h"
#include "common/tma.h"
#include "common/wgmma.cuh"

// C_PARTS: the C buffer holds 1/C_PARTS of each warpgroup's 64 x 256 block; the ring gets what is left. The
// measured choice (v6) is the default; -DGEMM_SM90_C_PARTS=1 builds the other one.
#ifndef GEMM_SM90_C_PARTS
#define GEMM_SM90_C_PARTS 2
#endif
namespace gemm {
namespace {

// ---- configuration ----
constexpr int BLOCK_M        = 128;                 // two consumer warpgroups x WGMMA_M
constexpr int BLOCK_N        = 256;                 // = WGMMA_N, the widest wgmma
constexpr int BLOCK_K        = 64;                  // K of one tile load: 128 bytes of bf16
constexpr int WGMMA_M        = 64;                  // fixed for wgmma
constexpr int WGMMA_K        = 16;                  // fixed for bf16: 32 bytes of K per MMA
constexpr int SLICE_K        = 64;                  // one 128-byte slice of K: the width of a swizzle atom
constexpr int NUM_CONSUMERS  = BLOCK_M / WGMMA_M;   // consumer warpgroups, each multiplies its 64 rows of A
constexpr int NUM_THREADS    = 128 * (1 + NUM_CONSUMERS);  // + the producer warpgroup
constexpr int ACC_REGS       = WGMMA_M * BLOCK_N / 128;  // fp32 accumulators per consumer thread
constexpr int PRODUCER_REGS  = 40;                  // registers per producer thread after setmaxnreg.dec
constexpr int CONSUMER_REGS  = 232;                 // registers per consumer thread after setmaxnreg.inc
constexpr int CLUSTER_SIZE   = 2;                   // CTAs per cluster, two M tiles: they share the B tile
constexpr uint16_t CLUSTER_MASK = (1u << CLUSTER_SIZE) - 1;  // multicast to every CTA of the cluster: 0b11
constexpr int BOX_ROWS       = BLOCK_N / CLUSTER_SIZE;  // rows of a TMA box: A's tile, one CTA's half of B
constexpr int GROUP_M        = 16;                  // grouped order: M tiles (8 cluster pairs) per group
constexpr int C_PARTS        = GEMM_SM90_C_PARTS;   // parts of a warpgroup's 64 x 256 block, stored in turn
constexpr int C_BOX_COLS     = 64;                  // columns of a TMA store box: 128 B, one swizzle span
constexpr int C_PART_COLS    = BLOCK_N / C_PARTS;   // columns of C staged at once per warpgroup
constexpr int C_BOXES        = C_PART_COLS / C_BOX_COLS;  // TMA store boxes per part and warpgroup
constexpr int MIN_SK_ITERS   = 4;                   // stream-K (v7b, v7c): no range shorter than 4 K tiles
constexpr int FIXUP_ITERS    = 4;                   // v7d's rule: a partial written or read ~ 4 K tiles
constexpr int PARTIAL_FLOATS = ACC_REGS * 128;      // the fixup's slot: one warpgroup's fp32 partial

constexpr KMajorTile A_TILE{BLOCK_M, BLOCK_K, 2, Swizzle::B128};
constexpr KMajorTile B_TILE{BLOCK_N, BLOCK_K, 2, Swizzle::B128};
constexpr uint32_t A_TILE_BYTES = kmajor_tile_bytes(A_TILE);
constexpr uint32_t B_TILE_BYTES = kmajor_tile_bytes(B_TILE);
constexpr uint32_t STAGE_BYTES  = A_TILE_BYTES + B_TILE_BYTES;  // one ring stage: [A tile][B tile]
// C staging, after the ring: per consumer warpgroup, C_BOXES boxes of WGMMA_M rows x 128 B, each in the
// 128-byte swizzle (a 1024-B atom per 8 rows), as the TMA store with a SWIZZLE_128B map reads it.
constexpr uint32_t C_BOX_BYTES  = WGMMA_M * C_BOX_COLS * 2;
constexpr uint32_t C_WG_BYTES   = C_BOXES * C_BOX_BYTES;
constexpr uint32_t C_BYTES      = NUM_CONSUMERS * C_WG_BYTES;
// The ring's layout is the same in both CTAs of the cluster, and must be: a multicast copy and its barrier
// signal land at the SAME offsets in every destination CTA. It is a function of these constants only (no CTA
// rank), and the barriers are static shared memory, laid out identically by the compiler for every CTA of
// the kernel: nothing here can differ between the two CTAs.
GEMM_HD constexpr uint32_t a_tile_offset(int s) { return uint32_t(s) * STAGE_BYTES; }
GEMM_HD constexpr uint32_t b_tile_offset(int s) { return uint32_t(s) * STAGE_BYTES + A_TILE_BYTES; }
// Ring depth: as many stages as fit in the 227 KB a block may have, after the C buffer, the alignment slack
// and the barriers (static shared memory, under 1 KB): 4 x 48 KB + 32 KB of C (C_PARTS 2), or 3 x 48 KB +
// 64 KB (C_PARTS 1).
constexpr uint32_t SMEM_BUDGET = 227 * 1024;
constexpr int NUM_STAGES       = int((SMEM_BUDGET - C_BYTES - SMEM_ALIGN - 1024) / STAGE_BYTES);
constexpr uint32_t C_OFFSET    = NUM_STAGES * STAGE_BYTES;  // the C buffer, after the ring
constexpr uint32_t SMEM_BYTES  = NUM_STAGES * STAGE_BYTES + C_BYTES + SMEM_ALIGN;

static_assert(BLOCK_M % WGMMA_M == 0, "each consumer warpgroup multiplies 64 rows");
static_assert(BLOCK_N == 256, "the wgmma wrapper used here is m64n256k16");
static_assert(BLOCK_K % WGMMA_K == 0, "a tile holds whole MMA K steps");
static_assert(BLOCK_K % SLICE_K == 0, "a tile holds whole 128-byte swizzle spans of K");
static_assert(A_TILE_BYTES % 1024 == 0 && B_TILE_BYTES % 1024 == 0,
              "tiles are whole 1024-B swizzle atoms, so the B tile after A starts 1024-B aligned too");
static_assert(WGMMA_M % 8 == 0, "a warpgroup's half of A starts on a whole 8-row swizzle atom");
static_assert(BLOCK_N <= 256 && BLOCK_M <= 256, "a TMA box is at most 256 rows");
static_assert(PRODUCER_REGS % 8 == 0 && CONSUMER_REGS % 8 == 0 && PRODUCER_REGS >= 24 && CONSUMER_REGS <= 256,
              "setmaxnreg takes a multiple of 8 in 24..256");
// setmaxnreg moves registers inside the CTA's allocation, fixed at launch (PTX ISA "setmaxnreg"): 384 threads
// x 168 (__launch_bounds__(384, 1): 65536 / 384 rounded down to a multiple of 8) = 64512, not the SM's 64K.
// The split uses all of it: 128 x (40 + 2 x 232) = 64512.
constexpr int LAUNCH_REGS_PER_THREAD = 65536 / NUM_THREADS / 8 * 8;  // 168 at 384 threads
static_assert(128 * (PRODUCER_REGS + NUM_CONSUMERS * CONSUMER_REGS) <= NUM_THREADS * LAUNCH_REGS_PER_THREAD,
              "registers after setmaxnreg must fit the CTA's launch allocation (384 x 168 = 64512)");
static_assert(CONSUMER_REGS >= ACC_REGS + 32, "a consumer needs its accumulators plus room for addresses");
static_assert(NUM_STAGES >= 2, "a pipeline needs one stage to multiply and at least one to load into");
static_assert(NUM_STAGES * STAGE_BYTES + SMEM_ALIGN <= 256 * 1024,
              "the ring ends below 256 KB: desc_sm90_advance's start-address field never carries");
static_assert(CLUSTER_SIZE == 2 && BLOCK_N % CLUSTER_SIZE == 0, "a CTA pair, each multicasting half of B");
static_assert(BOX_ROWS == BLOCK_M, "A's tile is one box; B's is CLUSTER_SIZE boxes, one per CTA");
static_assert(BLOCK_K == SLICE_K, "one 2D box spans the tile's K: 64 elements, the 128-byte swizzle span");
static_assert((BOX_ROWS * 128) % 1024 == 0, "each half of B starts on a whole 1024-B swizzle atom");
static_assert(b_tile_offset(1) - b_tile_offset(0) == STAGE_BYTES && a_tile_offset(0) == 0 &&
                  b_tile_offset(NUM_STAGES - 1) + B_TILE_BYTES == NUM_STAGES * STAGE_BYTES,
              "the ring layout: [A_s B_s] per stage, contiguous, from the 1024-B aligned base");
static_assert(GROUP_M % CLUSTER_SIZE == 0, "the tile order groups whole cluster pairs");
static_assert(C_PARTS >= 1 && BLOCK_N % (C_PARTS * C_BOX_COLS) == 0, "a part is whole 64-column store boxes");
static_assert(C_PART_COLS % 16 == 0, "stmatrix .x4 stores 16 columns (two 8x8 blocks of two row halves)");
static_assert(C_OFFSET % 1024 == 0 && C_BOX_BYTES % 1024 == 0, "each C box starts on a 1024-B swizzle atom");
static_assert(NUM_CONSUMERS + 1 <= 16, "named barriers 1..NUM_CONSUMERS, one per consumer warpgroup");
static_assert(SMEM_BYTES + 1024 <= SMEM_BUDGET,
              "the ring and the C buffer must fit in the 227 KB of shared memory per block");
static_assert(partial_float4(3, 5) == 5 * 128 + 3,
              "the fixup's partial as common/streamk.h has it (the CPU test checks that)");
static_assert(partial_discard_float4(9, 1) == 8 + (1 + 8) * 128,
              "the fixup's discards as common/streamk.h has them (the CPU test checks those)");

// ---- where the TMA boxes of a K tile go: the kernel issues exactly these (tests/test_stage_table.cpp
//      checks them against the layout model's table) ----
// 2D boxes {64, BOX_ROWS} at (k0, row): A's tile is one box; B's 256-row tile is two, stacked along its rows:
// box j, rows j*128 .. +127, lands at j * 16 KB, and CTA j of the cluster multicasts it.
constexpr int TMA_BOXES = 1;  // per operand and K tile along K (B: one per CTA along its rows)
GEMM_HD constexpr TmaBox tma_box(KMajorTile tile, int row0, int k0, int j) {
  return {kmajor_row_offset(tile, j * BOX_ROWS), {k0, row0 + j * BOX_ROWS, 0}};
}

// What depends on the tile's width N (the wgmma's N): v6's 256, or the narrow 64 (v8n: 128 x 64 per CTA, a
// pair side by side along N, 128 x 128, for shapes whose wide units leave most of the GPU idle). The
// file-scope names below are the wide tile's.
template <int TILE_N>
struct Tile {
  static constexpr int BLOCK_N        = TILE_N;                    // = WGMMA_N
  static constexpr int ACC_REGS       = WGMMA_M * TILE_N / 128;    // fp32 accumulators per consumer thread
  // The pair shares the operand whose tile is larger, each CTA multicasting one half of it to both: B (256
  // rows against A's 128) in the wide pair, whose CTAs sit one above the other along M, as in v5 and v6; A
  // (128 rows against B's 64) in the narrow pair, whose CTAs sit side by side along N on the same rows of A.
  // Per K tile an SM then asks the L2 for 32 of the 48 KB that land in it (wide), 16 of 24 (narrow).
  // (The medium tile, v8m, 128 x 128, pairs along N too: A is read once per 256 columns of C.)
  static constexpr bool PAIR_ALONG_N  = TILE_N <= BLOCK_M;
  // Rows of one TMA box: the shared operand's tile in one box per CTA of the pair, the other's in one box
  // (v8m: B's 128 rows in two of 64 rows, A's box, so that both operands' tiles have the same boxes).
  static constexpr int A_BOX_ROWS     = PAIR_ALONG_N ? BLOCK_M / CLUSTER_SIZE : BLOCK_M;  // wide 128, narrow 64
  static constexpr int B_BOX_ROWS     = PAIR_ALONG_N ? WGMMA_M : TILE_N / CLUSTER_SIZE;   // 128, 64 (v8m 64)
  static constexpr int A_BOXES        = BLOCK_M / A_BOX_ROWS;      // wide 1, narrow 2 (one per CTA)
  static constexpr int B_BOXES        = TILE_N / B_BOX_ROWS;       // wide 2 (one per CTA), narrow 1, v8m 2
  static constexpr KMajorTile B_TILE{TILE_N, BLOCK_K, 2, Swizzle::B128};
  static constexpr uint32_t B_TILE_BYTES = kmajor_tile_bytes(B_TILE);
  static constexpr uint32_t STAGE_BYTES  = A_TILE_BYTES + B_TILE_BYTES;  // one ring stage: [A tile][B tile]
  // C staging, after the ring: per consumer warpgroup, C_BOXES boxes of WGMMA_M rows x 128 B, each in the
  // 128-byte swizzle (a 1024-B atom per 8 rows), as the TMA store with a SWIZZLE_128B map reads it.
  static constexpr int C_PARTS        = TILE_N == 256 ? GEMM_SM90_C_PARTS : 1;  // stored in turn
  static constexpr int C_PART_COLS    = TILE_N / C_PARTS;          // columns of C staged at once per warpgroup
  static constexpr int C_BOXES        = C_PART_COLS / C_BOX_COLS;  // TMA store boxes per part and warpgroup
  static constexpr uint32_t C_WG_BYTES = C_BOXES * C_BOX_BYTES;
  static constexpr uint32_t C_BYTES    = NUM_CONSUMERS * C_WG_BYTES;
  static constexpr int PARTIAL_FLOATS = ACC_REGS * 128;            // one warpgroup's fp32 partial
  // Ring depth: as many stages as fit in the 227 KB a block may have, after the C buffer, the alignment
  // slack and the barriers (static shared memory, under 1 KB): wide, 4 x 48 KB + 32 KB of C (C_PARTS 2), or
  // 3 x 48 KB + 64 KB (C_PARTS 1); narrow, 8 x 24 KB + 16 KB.
  static constexpr int NUM_STAGES       = int((SMEM_BUDGET - C_BYTES - SMEM_ALIGN - 1024) / STAGE_BYTES);
  static constexpr uint32_t C_OFFSET    = NUM_STAGES * STAGE_BYTES;  // the C buffer, after the ring
  static constexpr uint32_t SMEM_BYTES  = NUM_STAGES * STAGE_BYTES + C_BYTES + SMEM_ALIGN;
  // The ring's layout is the same in both CTAs of the cluster, and must be: a multicast copy and its barrier
  // signal land at the SAME offsets in every destination CTA. It is a function of these constants only (no
  // CTA rank), and the barriers are static shared memory, laid out identically by the compiler for every CTA
  // of the kernel: nothing here can differ between the two CTAs.
  static GEMM_HD constexpr uint32_t a_tile_offset(int s) { return uint32_t(s) * STAGE_BYTES; }
  static GEMM_HD constexpr uint32_t b_tile_offset(int s) { return uint32_t(s) * STAGE_BYTES + A_TILE_BYTES; }
  // Where the TMA boxes of a K tile go (the kernel issues exactly these; tests/test_stage_table.cpp checks
  // them against the layout model's table): 2D boxes {64, box rows} at (k0, row). Each operand's tile is
  // A_BOXES or B_BOXES boxes stacked along its rows: box j lands j box rows in; the shared operand's box j
  // is multicast by CTA j of the pair (a CTA alone issues them all), the other operand's is the CTA's own.
  // (A's tile is the one with BLOCK_M rows; where B's has too, v8m's, both have boxes of 64 rows.)
  static GEMM_HD constexpr int box_rows(KMajorTile t) { return t.rows == BLOCK_M ? A_BOX_ROWS : B_BOX_ROWS; }
  static GEMM_HD constexpr TmaBox tma_box(KMajorTile tile, int row0, int k0, int j) {
    return {kmajor_row_offset(tile, j * box_rows(tile)), {k0, row0 + j * box_rows(tile), 0}};
  }

  static_assert(TILE_N == 256 || TILE_N == 128 || TILE_N == 64,
                "the wide tile (m64n256k16), v8m's (m64n128k16) or the narrow one (m64n64k16)");
  static_assert(TILE_N != BLOCK_M || A_BOX_ROWS == B_BOX_ROWS, "box_rows tells A from B by its rows");
  static_assert(B_TILE_BYTES % 1024 == 0 && (A_BOX_ROWS * 128) % 1024 == 0 && (B_BOX_ROWS * 128) % 1024 == 0,
                "B's tile, and each box, start on a whole 1024-B swizzle atom");
  static_assert((PAIR_ALONG_N ? A_BOXES : B_BOXES) == CLUSTER_SIZE &&
                    (PAIR_ALONG_N ? B_BOXES : A_BOXES) == (PAIR_ALONG_N ? TILE_N / WGMMA_M : 1),
                "the shared operand: one box per CTA of the pair; the other: one box (v8m's B: two)");
  static_assert(C_PARTS >= 1 && TILE_N % (C_PARTS * C_BOX_COLS) == 0, "a part is whole 64-column store boxes");
  static_assert(C_PART_COLS % 16 == 0, "stmatrix .x4 stores 16 columns (two 8x8 blocks of two row halves)");
  static_assert(C_OFFSET % 1024 == 0, "the C buffer starts on a 1024-B swizzle atom");
  // v7's checks of the ring, for either width: at least 2 stages, ending below 256 KB (desc_sm90_advance's
  // start-address field never carries), and with the C buffer in the 227 KB of shared memory per block
  static_assert(NUM_STAGES >= 2 && NUM_STAGES * STAGE_BYTES + SMEM_ALIGN <= 256 * 1024 &&
                    SMEM_BYTES + 1024 <= SMEM_BUDGET,
                "the ring: 2 stages or more, below 256 KB, and with the C buffer within 227 KB");
  static_assert(CONSUMER_REGS >= ACC_REGS + 32, "a consumer needs its accumulators plus room for addresses");
};
using Wide   = Tile<256>;
using Narrow = Tile<64>;
using Medium = Tile<128>;  // v8m: between the two
static_assert(Wide::NUM_STAGES == NUM_STAGES && Wide::STAGE_BYTES == STAGE_BYTES && Wide::C_BYTES == C_BYTES &&
                  Wide::ACC_REGS == ACC_REGS && Wide::PARTIAL_FLOATS == PARTIAL_FLOATS && Wide::B_BOX_ROWS == BOX_ROWS,
              "the wide tile is v7's: the constants above");
static_assert(Narrow::PAIR_ALONG_N && Narrow::A_BOX_ROWS == WGMMA_M && Narrow::B_BOX_ROWS == Narrow::BLOCK_N,
              "the narrow pair: A's tile in one box per CTA, a warpgroup's 64 rows each; B's 64 rows in one");

// Byte offset, in a warpgroup's C buffer, of row `row` (0..63) and 8-column chunk `chunk` (0..C_PART_COLS/8
// - 1) of the part being staged: box chunk / 8, and inside it the 128-byte swizzle (16-byte unit u of row r
// at u ^ (r % 8)), which is what a SWIZZLE_128B tensor map expects of the box it stores.
GEMM_HD constexpr uint32_t c_smem_offset(int row, int chunk) {
  return uint32_t(chunk / 8) * C_BOX_BYTES + uint32_t(row) * 128 + uint32_t(((chunk % 8) ^ (row % 8)) * 16);
}

__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&v);
}

// ---- the kernel ----
// UNIT_CTAS: the CTAs of one unit, which are one cluster: CLUSTER_SIZE (the pair: a 256 x 256 unit, each CTA
// multicasts its half of B) or 1 (a CTA alone: a 128 x 256 unit, the CTA loads both halves of B itself, no
// peer). The ring, the tiles and the boxes are the same in both; only who issues which half of B, and who
// releases a stage in which CTA, differ.
// TRACE: the in-kernel profiler's `prof.` lines record each role's waits and issues (--trace); compiled out
// of the TRACE=false instantiation, which is the one checked and timed (common/profiler.cuh).
// plan: the stream-K plan (common/streamk.h), the same for every variant's kernel: whole units, stream-K
// ranges, or both. c_tma: N % 8 == 0, C is stored through c_map; else with predicated st.global.
// workspace, flags: one fp32 partial and one flag per consumer warpgroup of every CTA (the fixup). A flag is
// 0 between launches: raised (1) by its partial's writer, lowered again by the finisher that consumes it.
// UNIT_CTAS, TILE_N: the unit (see above) and the tile's width (Tile).
template <bool TRACE, int UNIT_CTAS, int TILE_N = 256>
__global__ void __launch_bounds__(NUM_THREADS, 1)
    matmul_v8_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                     const __grid_constant__ CUtensorMap c_map, __nv_bfloat16* c, int m, int n, int k,
                     bool c_tma, const StreamKPlan plan, float* workspace, uint32_t* flags, bool l2_policy,
                     TraceBuffer trace) {
#if defined(GEMM_HAS_WGMMA)
  static_assert(UNIT_CTAS == CLUSTER_SIZE || UNIT_CTAS == 1, "a unit is the CTA pair, or one CTA alone");
  using T = Tile<TILE_N>;  // the tile's width and what depends on it (v8n: the narrow one)
  // The tile's constants under v7's names (the wide tile's, above): the body reads as v7's where they serve.
  constexpr int BLOCK_N = T::BLOCK_N, ACC_REGS = T::ACC_REGS, NUM_STAGES = T::NUM_STAGES, C_PARTS = T::C_PARTS;
  constexpr int C_PART_COLS = T::C_PART_COLS, C_BOXES = T::C_BOXES, PARTIAL_FLOATS = T::PARTIAL_FLOATS;
  constexpr uint32_t STAGE_BYTES = T::STAGE_BYTES, C_OFFSET = T::C_OFFSET, C_WG_BYTES = T::C_WG_BYTES;
  constexpr KMajorTile B_TILE = T::B_TILE;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* ring = align_smem_1024(smem_raw);  // stage s: A tile at s * STAGE_BYTES, then its B tile
  auto a_smem   = [&](int s) { return ring + T::a_tile_offset(s); };
  auto b_smem   = [&](int s) { return ring + T::b_tile_offset(s); };
  __shared__ uint64_t tma_full_bar[NUM_STAGES];  // "full": the TMA bytes of the K tile in stage s have landed
  __shared__ uint64_t mma_done_bar[NUM_STAGES];  // "empty": all 4 consumers of the pair are done with stage s

  const int warp_id   = threadIdx.x / 32;
  const int lane      = threadIdx.x % 32;
  const int warpgroup = threadIdx.x / 128;  // 0: producer; 1, 2: consumers
  // A 1-D grid of clusters along x (cluster dims UNIT_CTAS x 1): cluster blockIdx.x / UNIT_CTAS is worker
  // `worker` of the plan, and the CTA of rank r takes M tile UNIT_CTAS * (the unit's row) + r (the narrow
  // pair: N tile UNIT_CTAS * (the unit's column) + r). Units are numbered in v6b's grouped order, so the
  // units that run together are close in C; the narrow pair's is the order of the transposed problem (its
  // rows are N tiles), read back transposed. Where a group is 8 pair rows tall (GROUP_M), units u and u + 8
  // share a pair row, and so the boxes of the operand each CTA loads itself (the wide pair's A, the narrow
  // pair's B); clusters c and c + 8 often share a GPC of the H100, whose L2 request coalescer then serves
  // some of their identical reads once (README, "Who gets merged": up to 7% faster than other orders).
  const int cta_rank = int(ptx::cluster_ctarank());
  const int worker   = int(blockIdx.x) / UNIT_CTAS;
  const int tiles_m  = num_tiles(m, BLOCK_M), tiles_n = num_tiles(n, BLOCK_N);
  const TileSchedule<ScheduleKind::Grouped> order(T::PAIR_ALONG_N ? tiles_n : tiles_m,
                                                  T::PAIR_ALONG_N ? tiles_m : tiles_n, 1, 0, UNIT_CTAS,
                                                  cta_rank, GROUP_M);
  const auto tile_of_unit = [&](int unit) {
    const ScheduledTile t = order.tile_of_unit(unit);
    return T::PAIR_ALONG_N ? ScheduledTile{t.n, t.m, t.valid} : t;
  };
  Profiler<TRACE> prof(trace, /*role=*/warpgroup, /*records=*/warp_id % 4 == 0);
  prof.begin(Ev::Setup);

  // The producer's first piece and its tile, computed by warp 0 (the producer's) before the setup's cluster
  // barrier, while warp 1 initialises the barriers: the piece and the grouped order's two integer divisions
  // took 0.35 us after the barrier, on the way to the first TMA (globaltimer marks at 1024^3: setup done at
  // 0.32 us, the first load issued at ~1.0 us; README, "The start"). Static plans in the timed kernels only:
  // the traced kernel, which keeps the profiler's state in registers too, spills.
  constexpr bool EARLY_FIRST = !TRACE;
  StreamKWork first_work(plan, worker);  // advanced past the first piece where EARLY_FIRST
  StreamKPiece first_piece;
  bool have_first = false;
  ScheduledTile first_tile;
  if (EARLY_FIRST && warp_id == 0) {
    have_first = first_work.next(first_piece);
    if (have_first) first_tile = tile_of_unit(first_piece.unit);
  }

  // ---- setup: the barriers by one thread (of warp 1: warp 0 is busy with the above) ----
  if (warp_id == 1 && ptx::elect_one_sync()) {
    for (int s = 0; s < NUM_STAGES; ++s) {
      ptx::mbarrier_init(&tma_full_bar[s], 1);  // one arrival: this CTA's TMA thread (the peer's adds bytes)
      ptx::mbarrier_init(&mma_done_bar[s], NUM_CONSUMERS * UNIT_CTAS);  // every consumer of the unit
    }
    ptx::fence_mbarrier_init();
  }
  // Both CTAs' barriers are initialised before either CTA multicasts into or arrives on the other's (a CTA
  // alone is a cluster of one: the barrier is its own). The arrival is relaxed: the fence above publishes the
  // initialisations, and nothing else is written before it (README, "The start").
  ptx::barrier_cluster_arrive_relaxed();
  ptx::barrier_cluster_wait();
  prof.end(Ev::Setup);

  if (warpgroup == 0) {
    // ---- producer: one thread keeps the ring full, tile after tile ----
    wg::setmaxnreg_dec<PRODUCER_REGS>();
    if (warp_id == 0 && ptx::elect_one_sync()) {
      int stage            = 0;  // ring stage of the next K tile: carried across output tiles
      uint32_t empty_phase = 1;  // parity of the "empty" phase to wait for: 1 passes at once on the first lap
      StreamKWork work = first_work;
      bool take_first = EARLY_FIRST, is_first = false;  // the first piece and tile: computed above
      const auto next_piece = [&](StreamKPiece& piece) {
        is_first = take_first;
        if (take_first) {
          take_first = false;
          piece      = first_piece;
          return have_first;
        }
        return work.next(piece);
      };
      for (StreamKPiece piece; next_piece(piece);) {
        const ScheduledTile t = is_first ? first_tile : tile_of_unit(piece.unit);
        const int m0 = t.m * BLOCK_M, n0 = t.n * BLOCK_N;
        // Boxes wholly outside the tensors are not issued (see the header): a padding tile's own boxes, and a
        // box of the shared operand that starts past its end. Both CTAs of a pair see the same rows of the
        // shared operand, so they agree on the bytes of it that land in each.
        const uint32_t bytes = kmajor_bytes_inside(A_TILE, m0, m, T::A_BOXES, T::A_BOX_ROWS) +
                               kmajor_bytes_inside(B_TILE, n0, n, T::B_BOXES, T::B_BOX_ROWS);
        // copy: this CTA's boxes of one operand's tile for K tile k_tile into ring stage s: of the shared
        // operand, box h = its rank, multicast to both CTAs of the pair (a CTA alone: every box, into its own
        // ring); of the other, every box, its own. hint: the L2 policy (B only; see l2_policy).
        const auto copy = [&](const CUtensorMap* map, uint8_t* dst, KMajorTile tile, int row0, int rows,
                              int boxes, bool shared, bool hint, int k_tile, int s) {
          for (int j = 0; j < boxes; ++j) {
            if ((shared && UNIT_CTAS > 1 && j != cta_rank) || row0 + j * T::box_rows(tile) >= rows) continue;
            const TmaBox box = T::tma_box(tile, row0, k_tile * BLOCK_K, j);
            ptx::tma_load_2d_box(dst + box.smem_offset, map, &tma_full_bar[s], box.coords[0], box.coords[1],
                                 shared && UNIT_CTAS > 1 ? CLUSTER_MASK : 0, hint);
          }
        };
        // load: announce the bytes of K tile `k_tile` that land in this CTA (its A and B tiles), then issue
        // its copies of both
        auto load = [&](int k_tile, int s) {
          ptx::mbarrier_arrive_expect_tx(&tma_full_bar[s], bytes);
          copy(&a_map, a_smem(s), A_TILE, m0, m, T::A_BOXES, T::PAIR_ALONG_N, false, k_tile, s);
          copy(&b_map, b_smem(s), B_TILE, n0, n, T::B_BOXES, !T::PAIR_ALONG_N, l2_policy, k_tile, s);
        };
        for (int k_tile = piece.k_begin; k_tile < piece.k_end; ++k_tile) {
          prof.begin(Ev::WaitEmpty);
          ptx::mbarrier_wait(&mma_done_bar[stage], empty_phase, "mma_done_bar");
          prof.end(Ev::WaitEmpty);
          prof.begin(Ev::IssueTma);
          load(k_tile, stage);
          prof.end(Ev::IssueTma);
          if (++stage == NUM_STAGES) {
            stage = 0;
            empty_phase ^= 1;
          }
        }
      }
      // The tail: every stage's last release, by the consumers of both CTAs, has landed (common/ptx.cuh)
      ptx::producer_tail<NUM_STAGES>(mma_done_bar, stage, empty_phase);
    }
    // Its last multicast is issued and its tail waited for: arrive on the exit barrier now (relaxed: nothing
    // of this CTA's can still land in the peer's shared memory), wait for the pair only at the very end.
    __syncwarp();
    ptx::barrier_cluster_arrive_relaxed();
  } else {
    // ---- consumers: warpgroup 1 + w multiplies rows 64w .. 64w+63 of each tile ----
    wg::setmaxnreg_inc<CONSUMER_REGS>();
    // The warpgroup's index through a shuffle from lane 0, so that ptxas knows it is warp-uniform (A's
    // descriptors depend on it; the K-tile counter below says why).
    const int consumer = __shfl_sync(0xffffffffu, warpgroup - 1, 0);
    float acc[ACC_REGS];
    uint8_t* c_buf           = ring + C_OFFSET + consumer * C_WG_BYTES;  // this warpgroup's C staging
    const bool store_thread  = warp_id % 4 == 0 && ptx::elect_one_sync();  // issues the TMA stores
    const uint32_t c_bar     = 1 + consumer;  // named barrier of the warpgroup's 128 threads
    const int wg_thread      = threadIdx.x % 128;
    // The fixup's slots: warpgroup `consumer` of the CTA of rank r of worker w owns partial and flag
    // (w * UNIT_CTAS + r) * NUM_CONSUMERS + consumer. Thread t keeps float4 j of its accumulators at
    // float4 j * 128 + t of the partial: coalesced, and the finisher's thread t holds the same elements.
    auto slot = [&](int w) { return (w * UNIT_CTAS + cta_rank) * NUM_CONSUMERS + consumer; };

    // A stage is free again once every consumer of the unit has released it: in each CTA of a pair (both
    // multicast into it, the peer's through mapa), in its own CTA alone.
    auto release_stage = [&](int s) {
      if constexpr (UNIT_CTAS > 1)
        for (int peer = 0; peer < UNIT_CTAS; ++peer)
          ptx::mbarrier_arrive_cluster(ptx::mapa_shared_cluster(&mma_done_bar[s], uint32_t(peer)));
      else
        ptx::mbarrier_arrive(&mma_done_bar[s]);
    };

    // The K loop's bookkeeping in few instructions (README, "The K loop's instructions"): the ring's position
    // as one count of the K tiles this warpgroup has taken, all pieces (stage ring_k % NUM_STAGES, phase
    // (ring_k / NUM_STAGES) % 2); the descriptors built once per piece and moved per stage and K step by one
    // add; no branch in the loop (the release below). Where ptxas can also prove the count, the K range,
    // the ring's address and the warpgroup's index warp-uniform (the shuffles) and the warp converged at
    // each piece (a barrier, and the piece loop's condition through a shuffle), it keeps all of it on the
    // uniform datapath: per K tile, the wide tile 111 -> 63 instructions, the narrow 108 -> 60 (README).
    uint32_t ring_k = 0;
    uint64_t mma_issued = 0;  // trace: when the MMAs of k_tile - 1 were issued
    StreamKWork work(plan, worker);
    int owner = worker;  // the plan's worker of the piece, whose fixup slot it uses
    const auto next_piece = [&](StreamKPiece& piece) {
      const bool more = work.next(piece);
      // The warpgroup's barrier: after it ptxas knows the warp converged, which, with the loop's condition
      // through a shuffle, lets it keep the K loop on the uniform datapath
      ptx::named_barrier_sync(c_bar, 128);
      return more;
    };
    for (StreamKPiece piece; __shfl_sync(0xffffffffu, next_piece(piece) ? 1 : 0, 0) != 0;) {
      const ScheduledTile t = tile_of_unit(piece.unit);
      const int m0 = t.m * BLOCK_M, n0 = t.n * BLOCK_N;
      // The K range, the count and the ring's address through shuffles from lane 0: a loop whose bounds
      // ptxas cannot prove warp-uniform may run a different number of times in each lane, and nothing it
      // updates can then live in a uniform register.
      ring_k        = __shfl_sync(0xffffffffu, ring_k, 0);
      piece.k_begin = __shfl_sync(0xffffffffu, piece.k_begin, 0);
      piece.k_end   = __shfl_sync(0xffffffffu, piece.k_end, 0);
      const uint32_t a_addr0 = __shfl_sync(0xffffffffu, ptx::smem_addr(a_smem(0)), 0);
      const uint32_t b_addr0 = __shfl_sync(0xffffffffu, ptx::smem_addr(b_smem(0)), 0);
      const uint64_t a_desc0 = kmajor_desc_sm90(A_TILE, a_addr0, 0, consumer * WGMMA_M);
      const uint64_t b_desc0 = kmajor_desc_sm90(B_TILE, b_addr0, 0);
      // The release of a stage by one elected lane of the warpgroup's first warp, without a branch
      // (elect.sync's predicate inside the asm): the barriers' addresses in every CTA of the unit, found once
      // per piece (once per kernel, the traced CTA-alone kernel spilled 16 bytes).
      uint32_t done_bar[UNIT_CTAS];
      for (int peer = 0; peer < UNIT_CTAS; ++peer)
        done_bar[peer] = ptx::mapa_shared_cluster(&mma_done_bar[0], uint32_t(peer));
      for (int k_tile = piece.k_begin; k_tile < piece.k_end; ++k_tile) {
        const int stage = int(ring_k % NUM_STAGES);
        prof.begin(Ev::WaitFull);
        ptx::mbarrier_wait(&tma_full_bar[stage], (ring_k / NUM_STAGES) % 2, "tma_full_bar");
        prof.end(Ev::WaitFull);

        // compute: BLOCK_K/16 MMAs on this warpgroup's 64 rows of A; scale-d 0 at k_begin. A padding
        // tile (t.valid false) multiplies whatever its A rows hold (no A is loaded for it) and stores
        // nothing: a branch around the wgmmas makes ptxas serialise every wgmma of the kernel (warning C7520:
        // "wgmma serialized due to ... WG.AR in divergent path"), which costs far more than one wasted tile.
        const uint64_t issued = prof.begin(Ev::IssueMma);
        wg::fence();
#pragma unroll
        for (int k_step = 0; k_step < BLOCK_K / WGMMA_K; ++k_step) {
          const uint32_t stage_bytes = uint32_t(stage) * STAGE_BYTES;  // A's and B's tile alike
          const uint64_t a_desc =
              desc_sm90_advance(a_desc0, stage_bytes + kmajor_kstep_offset(A_TILE, k_step));
          const uint64_t b_desc =
              desc_sm90_advance(b_desc0, stage_bytes + kmajor_kstep_offset(B_TILE, k_step));
          const uint32_t scale_d = (k_tile > piece.k_begin || k_step > 0) ? 1u : 0u;
          wg::mma_m64nNk16_bf16<BLOCK_N>(acc, a_desc, b_desc, scale_d);  // BLOCK_N: the wgmma's N
        }
        wg::commit_group();
        prof.end(Ev::IssueMma);
        prof.begin(Ev::WaitMma);
        wg::wait_group<1>();  // this warpgroup's MMAs of k_tile - 1 are done; those of k_tile may still run
        prof.end(Ev::WaitMma);
        // k_tile - 1's MMAs: from their issue to seen done
        if (k_tile > piece.k_begin) prof.span(Ev::Mma, mma_issued);
        mma_issued = issued;

        // release: one thread per consumer warpgroup says it no longer reads the stage of k_tile - 1, to both
        // CTAs of the pair, since both multicast into it (release_stage, above)
        const uint32_t prev_stage = (ring_k + NUM_STAGES - 1) % NUM_STAGES;
        const bool releases = k_tile > piece.k_begin && warp_id % 4 == 0;
#pragma unroll
        for (int peer = 0; peer < UNIT_CTAS; ++peer)
          ptx::mbarrier_arrive_cluster_elected(done_bar[peer] + prev_stage * uint32_t(sizeof(uint64_t)),
                                               releases);
        ++ring_k;
      }
      prof.begin(Ev::WaitMma);
      wg::wait_group<0>();  // the last group is done: accumulators final
      prof.end(Ev::WaitMma);
      prof.span(Ev::Mma, mma_issued);
      // ... and the tile's last stage is free: release it too (the next tile's loads are waiting for it)
      const int last_stage = int((ring_k + NUM_STAGES - 1) % NUM_STAGES);
      if (warp_id % 4 == 0 && ptx::elect_one_sync()) release_stage(last_stage);
      if (!t.valid) continue;  // a padding tile stores nothing, and takes no part in a fixup

      // ---- the fixup of a split unit (common/streamk.h): a later segment leaves its partial sums and
      //      raises its flag; the finisher (the segment at K tile 0) adds the later segments' partials, in
      //      K order, and stores the unit ----
      if (piece.role == StreamKPiece::Partial) {
        prof.begin(Ev::Partial);
        float4* part = reinterpret_cast<float4*>(workspace) + size_t(slot(owner)) * (PARTIAL_FLOATS / 4);
#pragma unroll
        for (int j = 0; j < ACC_REGS / 4; ++j)  // .cg: to L2, where the finisher's SM reads it
          __stcg(part + j * 128 + wg_thread,
                 make_float4(acc[4 * j + 0], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]));
        // Every thread's stores precede the barrier; the release by one thread after it publishes them all
        // (the release is cumulative over what happens before it, the barrier included).
        ptx::named_barrier_sync(c_bar, 128);
        if (store_thread) ptx::st_release_gpu(flags + slot(owner), 1u);
        prof.end(Ev::Partial);
        continue;
      }
      if (piece.role == StreamKPiece::Finisher) {
        prof.begin(Ev::Fixup);
        // The later segments belong to the next workers, in K order: add them in that order, whatever the
        // order they arrive in, so that every run sums the same way (bit-identical output).
        const int last = plan.last_worker(piece.unit);
        // FIXUP_BATCH partials at a time: their flags acquired, then every load of the batch issued before
        // the first add, so that a batch costs one round trip to L2 instead of one per partial (the narrow
        // tile's 8 float4 per thread and partial leave room for 4 partials in flight; the wide tile's 32, one).
        constexpr int FIXUP_BATCH = 128 / ACC_REGS;
        for (int w = owner + 1; w <= last; w += FIXUP_BATCH) {  // w: the batch's first worker
          const int count = FIXUP_BATCH == 1 || last - w + 1 >= FIXUP_BATCH ? FIXUP_BATCH : last - w + 1;
          if (warp_id % 4 == 0 && lane < count) {  // lane i waits for partial i of the batch: all at once
            while (ptx::ld_acquire_gpu(flags + slot(w + lane)) == 0) {
            }
            flags[slot(w + lane)] = 0;  // consumed: down again for the next launch (its writer runs after us)
          }
          ptx::named_barrier_sync(c_bar, 128);  // the acquires by those lanes, then the barrier: seen by all
          // the batch's first partial; consecutive workers' slots are consecutive, PARTIAL_STRIDE float4 apart
          const float4* part =
              reinterpret_cast<const float4*>(workspace) + size_t(slot(w)) * (PARTIAL_FLOATS / 4);
          constexpr int PARTIAL_STRIDE = UNIT_CTAS * NUM_CONSUMERS * PARTIAL_FLOATS / 4;
          // every load of the batch, then the adds, in K order (common/fixup.cuh)
          add_partials<FIXUP_BATCH>(acc, part + wg_thread, count, PARTIAL_STRIDE);
          if (l2_policy) {
            // The batch's partials have been read for the last time (their next writer is the next launch's):
            // their L2 lines are dropped unwritten, so that the L2 never writes them back to DRAM. A line (8
            // float4) was read by 8 lanes of one warp: __syncwarp orders their reads before one lane's discard.
            __syncwarp();
            // partial i's lines: this thread's first, then every 8th line after it (1024 float4 apart)
            for (int i = 0; i < count; ++i) {
              const float4* line = part + i * PARTIAL_STRIDE + partial_discard_float4(wg_thread, 0);
#pragma unroll
              for (int l = 0; l < ACC_REGS / 32; ++l) ptx::discard_global_l2(line + l * 8 * 128);
            }
          }
        }
        prof.end(Ev::Fixup);
      }
      prof.begin(Ev::Epilogue);

      // ---- epilogue: thread t of warp w (in its warpgroup) holds rows 16w + t/4 and +8,
      //      columns 8j + 2(t%4) + {0, 1} of the warpgroup's 64 x 256 block ----
      const int wg_row0 = m0 + consumer * WGMMA_M;  // the warpgroup's first row of C
      if (c_tma) {
        // stmatrix: lane l addresses row (l%8) of 8x8 matrix q = l/8; matrices 0, 1 are rows 0-7, 8-15 of
        // column chunk j, matrices 2, 3 the same rows of chunk j + 1
        const int q = lane / 8, r = (warp_id % 4) * 16 + (q % 2) * 8 + lane % 8;
#pragma unroll
        for (int part = 0; part < C_PARTS; ++part) {
          // the C buffer is free once the stores that read it last (the previous part or tile) have read it
          if (store_thread) ptx::bulk_wait_group_read<0>();
          ptx::named_barrier_sync(c_bar, 128);
#pragma unroll
          for (int jj = 0; jj < C_PART_COLS / 16; ++jj) {
            const int j = part * (C_PART_COLS / 8) + 2 * jj;  // accumulator column chunk
            ptx::stmatrix_x4(ptx::smem_addr(c_buf + c_smem_offset(r, 2 * jj + q / 2)),
                             pack_bf16x2(acc[4 * j + 0], acc[4 * j + 1]),
                             pack_bf16x2(acc[4 * j + 2], acc[4 * j + 3]),
                             pack_bf16x2(acc[4 * j + 4], acc[4 * j + 5]),
                             pack_bf16x2(acc[4 * j + 6], acc[4 * j + 7]));
          }
          ptx::fence_proxy_async_shared();  // the stmatrix writes, visible to the TMA store (async proxy)
          ptx::named_barrier_sync(c_bar, 128);
          if (store_thread) {
            for (int b = 0; b < C_BOXES; ++b) {
              const int col0 = n0 + part * C_PART_COLS + b * C_BOX_COLS;
              if (col0 < n && wg_row0 < m)  // boxes wholly outside C are not issued; the others clip
                ptx::tma_store_2d(&c_map, c_buf + b * C_BOX_BYTES, col0, wg_row0);
            }
            ptx::bulk_commit_group();
          }
        }
      } else {
        // N % 8 != 0: predicated st.global, one bf16 at a time (row starts are only 2-byte aligned)
        const int row = wg_row0 + (warp_id % 4) * 16 + lane / 4;
#pragma unroll
        for (int j = 0; j < BLOCK_N / 8; ++j) {
          const int col = n0 + 8 * j + 2 * (lane % 4);
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int rr = row + 8 * (e / 2), cc = col + e % 2;
            if (rr < m && cc < n) c[size_t(rr) * n + cc] = __float2bfloat16_rn(acc[4 * j + e]);
          }
        }
      }
      prof.end(Ev::Epilogue);
    }
    // Arrive on the exit barrier, relaxed: the peer's producer tail waits for this warpgroup's releases of
    // its stages. The TMA stores must have read the C buffer (and written C) before this CTA's memory goes
    // away.
    ptx::barrier_cluster_arrive_relaxed();
    if (store_thread) ptx::bulk_wait_group<0>();
  }

  // ---- teardown: no CTA exits while its peer may still arrive on its barriers or write into its ring ----
  // The peer's multicasts into this CTA have all landed, since its consumers waited for them, and the peer's
  // releases of its stages too, since its producer's tail waited for them; the pair leaves together. The
  // arrivals are relaxed: a release would cost every thread a MEMBAR.ALL.GPU (common/ptx.cuh, producer_tail).
  prof.begin(Ev::Teardown);
  ptx::barrier_cluster_wait();
  prof.end(Ev::Teardown);
#elif defined(__CUDA_ARCH__)
  __trap();  // compiled for a GPU without wgmma: fail loudly, never return with C unwritten
#endif  // GEMM_HAS_WGMMA
}

// The decode kernel (v8s, and v8d at M <= 16): the tile turned around, K split.
#include "v8_tile_shapes/decode_sm90.cuh"
// The ping-pong kernel (v8p, v8w, v8c): each consumer warpgroup a tile of its own, one storing C while the
// other multiplies.
#include "v8_tile_shapes/pingpong_sm90.cuh"

// ---- host launcher ----
// With `trace`: the TRACE=true instantiation, recording into a buffer sized from the plan (--trace).
// PICK: the policy and the ranges' minimum length come from the picking rule (pick_streamk), not POLICY.
// UNIT_CTAS: the unit, the pair (CLUSTER_SIZE) or a CTA alone (1). TILE_N: the tile's width (Tile).
template <StreamKPolicy POLICY, bool PICK, int UNIT_CTAS, int TILE_N = 256>
Launch prepare_v8(const GemmArgs& g, DeviceTrace* trace) {
  using T = Tile<TILE_N>;
  // The tensor maps are v6's (the narrow pair's boxes: 64 rows of either operand).
  const TmaDesc a_desc    = kmajor_tma_2d(g.m, g.k, T::A_BOX_ROWS, BLOCK_K, 2, Swizzle::B128);
  const TmaDesc b_desc    = kmajor_tma_2d(g.n, g.k, T::B_BOX_ROWS, BLOCK_K, 2, Swizzle::B128);
  const CUtensorMap a_map = make_tensor_map(a_desc, g.a, "A");
  const CUtensorMap b_map = make_tensor_map(b_desc, g.b, "B");
  const bool c_tma        = tma_row_stride_ok(g.n, 2);
  CUtensorMap c_map       = {};  // unused by the st.global epilogue
  if (c_tma)
    c_map = make_tensor_map(kmajor_tma_2d(g.m, g.n, WGMMA_M, C_BOX_COLS, 2, Swizzle::B128), g.c, "C");
  // (No traced build of the medium tile, v8m: the profiler's registers spill it. v8d runs it untraced.)
  auto* kernel = matmul_v8_kernel<false, UNIT_CTAS, TILE_N>;
  if constexpr (TILE_N != Medium::BLOCK_N)
    if (trace) kernel = matmul_v8_kernel<true, UNIT_CTAS, TILE_N>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, T::SMEM_BYTES));

  // The plan. Data-parallel: v6's grid, at most one cluster per unit. Stream-K and hybrid: every cluster
  // that can be resident is a worker (the finishers wait for other workers, which must all be running), or
  // only as many as the plan gives a stream-K range where it has no whole units.
  // The order's tiles: the narrow pair's order is the transposed problem's (its rows are N tiles).
  const int tiles_m = num_tiles(g.m, BLOCK_M), tiles_n = num_tiles(g.n, T::BLOCK_N);
  const int order_rows = T::PAIR_ALONG_N ? tiles_n : tiles_m;
  const int order_cols = T::PAIR_ALONG_N ? tiles_m : tiles_n;
  PersistentGrid grid =
      persistent_grid(kernel, NUM_THREADS, T::SMEM_BYTES, UNIT_CTAS, order_rows, order_cols, "v8 (sm_90a)");
  const int units = (order_rows + UNIT_CTAS - 1) / UNIT_CTAS * order_cols, iters = num_k_tiles(g.k, BLOCK_K);
  StreamKPolicy policy = POLICY;
  int min_iters        = MIN_SK_ITERS;
  if (PICK) {
    const StreamKChoice choice = pick_streamk(units, iters, grid.max_clusters, FIXUP_ITERS);
    policy                     = choice.policy;
    min_iters                  = choice.min_iters;
  }
  int workers = policy == StreamKPolicy::DataParallel ? grid.clusters : grid.max_clusters;
  const StreamKPlan plan = make_streamk_plan(units, iters, workers, policy, min_iters);
  grid.resize(plan.dp_units > 0 ? plan.workers : plan.sk_workers);
  std::shared_ptr<FixupMemory> fixup;  // one slot per CTA of each of the plan's stream-K ranges
  if (plan.sk_workers > 0)  // one partial and one flag per consumer warpgroup of each CTA (common/fixup_memory.h)
    fixup = std::make_shared<FixupMemory>(size_t(plan.sk_workers * UNIT_CTAS) * NUM_CONSUMERS, PARTIAL_FLOATS);
  float* workspace = fixup ? fixup->workspace : nullptr;
  uint32_t* flags  = fixup ? fixup->flags : nullptr;
  // The L2 policy (common/streamk.h): where the plan has partials and B, read once, outgrows the L2.
  const int unit_rows   = T::PAIR_ALONG_N ? tiles_m : (tiles_m + UNIT_CTAS - 1) / UNIT_CTAS;  // units along M
  const bool l2_policy  = streamk_l2_policy(plan, unit_rows, (long long)(g.n * g.k * 2), l2_cache_bytes());

  auto* c = static_cast<__nv_bfloat16*>(g.c);
  const int m = int(g.m), n = int(g.n), k = int(g.k);
  TraceBuffer buf;  // --trace: per CTA and role, setup, per piece 4 events per K tile and 6 more, teardown
  if (trace) {
    uint32_t most = 0;
    for (int w = 0; w < grid.clusters; ++w) {
      uint32_t events = 0;
      StreamKWork work(plan, w);
      for (StreamKPiece p; work.next(p);) events += uint32_t(4 * (p.k_end - p.k_begin) + 6);
      most = events > most ? events : most;
    }
    buf = trace->allocate(grid.cfg.gridDim.x, {"producer", "consumer 0", "consumer 1"}, most + 8);
  }
  return [=](cudaStream_t stream) mutable {
    grid.launch(stream, kernel, a_map, b_map, c_map, c, m, n, k, c_tma, plan, workspace, flags, l2_policy, buf);
    (void)fixup;  // held by the launch: the workspace lives as long as any copy of it
  };
}

// v8d: the unit, its width and the plan picked per shape (pick_unit and pick_width, common/streamk.h), from
// the workers each unit can have resident at once (66 clusters or 132 CTAs on an H100): the pair with
// pick_streamk's plan, or a CTA alone with whole units where that costs at most 3/4 of the pair's plan; then
// the narrow pair where 36% of its plan's cost (NARROW_PERCENT_SM90: a narrow iteration ~ 35% of a wide one)
// is less than that; then the medium tile where 65% of its plan's cost is less than what that picked.
template <int UNIT_CTAS, int TILE_N = Wide::BLOCK_N>
int resident_workers() {
  return resident_clusters(matmul_v8_kernel<false, UNIT_CTAS, TILE_N>, NUM_THREADS, Tile<TILE_N>::SMEM_BYTES,
                           UNIT_CTAS, "v8 (sm_90a)");
}
Launch prepare_medium(const GemmArgs& g) {  // v8m: no traced build (above)
  return prepare_v8<StreamKPolicy::DataParallel, true, CLUSTER_SIZE, Medium::BLOCK_N>(g, nullptr);
}
Launch prepare_v8_picked(const GemmArgs& g, DeviceTrace* trace) {
  if (g.m <= decode::MAX_COLS) return decode::prepare_picked(g, trace);  // the tile turned around (v8s, v8t)
  if (Launch small = decode::prepare_small_picked(g, trace)) return small;  // a small problem (v8g)
  if (Launch pair = decode::prepare_pair_picked(g, trace)) return pair;  // 65-256 rows (v8q .. v8r)
  if (Launch turned = decode::prepare_turned_picked(g, trace)) return turned;  // 129-192 rows (v8u, v8v)
  const int tiles_m = num_tiles(g.m, BLOCK_M), iters = num_k_tiles(g.k, BLOCK_K);
  if (pick_pingpong(tiles_m * num_tiles(g.n, pingpong::COLS), iters, pingpong::resident_ctas(),
                    tma_row_stride_ok(g.n, 2), rows_whole_sectors(g.k)))
    return pingpong::prepare_picked(g, trace);  // short K: the warpgroups' epilogues under each other's MMAs
  const UnitChoice unit   = pick_unit(tiles_m, num_tiles(g.n, BLOCK_N), iters, resident_workers<CLUSTER_SIZE>(),
                                      resident_workers<1>(), FIXUP_ITERS);
  const WidthChoice width =
      pick_width(unit, narrow_units(tiles_m, num_tiles(g.n, Narrow::BLOCK_N), Narrow::PAIR_ALONG_N), iters,
                 resident_workers<CLUSTER_SIZE, Narrow::BLOCK_N>(), FIXUP_ITERS, NARROW_PERCENT_SM90);
  if (pick_medium(width, narrow_units(tiles_m, num_tiles(g.n, Medium::BLOCK_N), true), iters,
                  resident_workers<CLUSTER_SIZE, Medium::BLOCK_N>(), FIXUP_ITERS, narrow_fill_percent(g.m)))
    return untraced_pick(prepare_medium, g, trace, "the medium tile (v8m) where M is a tile or so");
  if (width.narrow)
    return prepare_v8<StreamKPolicy::DataParallel, true, CLUSTER_SIZE, Narrow::BLOCK_N>(g, trace);
  return unit.ctas == 1 ? prepare_v8<StreamKPolicy::DataParallel, false, 1>(g, trace)
                        : prepare_v8<StreamKPolicy::DataParallel, true, CLUSTER_SIZE>(g, trace);
}

constexpr int UNIT_PICKED = 0;  // a variant's UNIT_CTAS: the pair, a CTA alone or the narrow pair, per shape (v8d)
template <int UNIT_CTAS, int TILE_N = Wide::BLOCK_N>
Launch prepare_v8_untraced(const GemmArgs& g) {
  if constexpr (UNIT_CTAS == UNIT_PICKED) return prepare_v8_picked(g, nullptr);
  else return prepare_v8<StreamKPolicy::DataParallel, true, UNIT_CTAS, TILE_N>(g, nullptr);
}
template <int UNIT_CTAS, int TILE_N = Wide::BLOCK_N>
Launch prepare_v8_traced(const GemmArgs& g, DeviceTrace& trace) {
  if constexpr (UNIT_CTAS == UNIT_PICKED) return prepare_v8_picked(g, &trace);
  else return prepare_v8<StreamKPolicy::DataParallel, true, UNIT_CTAS, TILE_N>(g, &trace);
}

}  // namespace

std::vector<Variant> sm90_variants() {
  const ShapeRule any_mn = any_mn_shape_rule(2);  // any M and N; K a multiple of 8 (the TMA stride rule)
  const char* kernel     = "sm_90a wgmma kernel, the Hopper twin (v8_tile_shapes/matmul_v8_sm90.cu)";
  SmemTiles tiles{A_TILE, B_TILE, WGMMA_M, /*tma_3d=*/false, NUM_STAGES, SLICE_K, TMA_BOXES, tma_box};
  tiles.b_split = CLUSTER_SIZE;  // B's tile: one 128-row box multicast by each CTA of the pair
  // v8a: the same ring and boxes, both of B's boxes issued by a CTA alone (clusters of 1); v8d: either, per shape
  // v8n: a 64-row B tile, the CTAs of the pair side by side along N, each multicasting one 64-row box of A;
  // a deeper ring; v8m: the same 128 wide, B in two 64-row boxes, 6 stages
  SmemTiles narrow{A_TILE,  Narrow::B_TILE, WGMMA_M, /*tma_3d=*/false, Narrow::NUM_STAGES,
                   SLICE_K, TMA_BOXES,      Narrow::tma_box};
  narrow.a_split = CLUSTER_SIZE;
  SmemTiles medium{A_TILE,  Medium::B_TILE, WGMMA_M, /*tma_3d=*/false, Medium::NUM_STAGES,
                   SLICE_K, TMA_BOXES,      Medium::tma_box};
  medium.a_split = CLUSTER_SIZE;
  medium.b_split = Medium::B_BOXES;  // its own B in two boxes of A's box's rows
  return {
      {"v8a", "v7d's plans on 1-CTA units (128x256, no cluster) at every shape", kernel, any_mn,
       tiles.with_cluster(1), prepare_v8_untraced<1>, prepare_v8_traced<1>},
      {"v8n", "the narrow tile: 128x64 CTAs, pairs along N sharing A (m64n64), v7d's plan rule", kernel, any_mn,
       narrow, prepare_v8_untraced<CLUSTER_SIZE, Narrow::BLOCK_N>, prepare_v8_traced<CLUSTER_SIZE, Narrow::BLOCK_N>},
      {"v8m", "the medium tile: 128x128 CTAs, pairs along N sharing A (m64n128), v7d's plan rule", kernel,
       any_mn, medium, prepare_medium},
      {"v8s", "decode (M <= 16): B's 128 rows on the MMA's M side (m64n16), K split to fill the GPU", kernel,
       decode::shape_rule<16>(any_mn), decode::smem_tiles<16>(), decode::prepare<16>},
      {"v8h", "decode over 64-row tiles of B (M <= 16): v8s with one wgmma (m64n16) per K step, 16 stages",
       kernel, decode::shape_rule<16>(any_mn), decode::smem_tiles<16, decode::SMALL_ROWS>(),
       decode::prepare<16, 1, decode::SMALL_ROWS, false>},
      {"v8t", "decode 32 wide (M <= 32): v8s with A's side 32 rows (m64n32)", kernel,
       decode::shape_rule<32>(any_mn), decode::smem_tiles<32>(), decode::prepare<32>},
      {"v8u", "the tile turned around 144 wide (M <= 144): v8s with A's side 144 rows (m64n144), a "
              "consumer warpgroup per half of B's tile",
       kernel, decode::shape_rule<144>(any_mn), decode::smem_tiles<144>(), decode::prepare<144>},
      {"v8v", "the tile turned around 192 wide (M <= 192): v8u with A's side 192 rows (m64n192)", kernel,
       decode::shape_rule<192>(any_mn), decode::smem_tiles<192>(), decode::prepare<192>},
      {"v8q", "the token pair 48 wide (M <= 96): v8x with 48 of A's rows per CTA (m64n48)", kernel,
       decode::pair_shape_rule<48>(any_mn), decode::pair_smem_tiles<48>(), decode::prepare<48, decode::PAIR>},
      {"v8x", "the token pair (M <= 128): two CTAs of 64 of A's rows each, B's 128-row tile shared by "
              "multicast (m64n64)", kernel, decode::pair_shape_rule<64>(any_mn),
       decode::pair_smem_tiles<64>(), decode::prepare<64, decode::PAIR>},
      {"v8y", "the token pair 80 wide (M <= 160): v8x with 80 of A's rows per CTA (m64n80)", kernel,
       decode::pair_shape_rule<80>(any_mn), decode::pair_smem_tiles<80>(), decode::prepare<80, decode::PAIR>},
      {"v8z", "the token pair 96 wide (M <= 192): v8x with 96 of A's rows per CTA (m64n96)", kernel,
       decode::pair_shape_rule<96>(any_mn), decode::pair_smem_tiles<96>(), decode::prepare<96, decode::PAIR>},
      {"v8o", "the token pair 112 wide (M <= 224): v8x with 112 of A's rows per CTA (m64n112)", kernel,
       decode::pair_shape_rule<112>(any_mn), decode::pair_smem_tiles<112>(),
       decode::prepare<112, decode::PAIR>},
      {"v8r", "the token pair 128 wide (M <= 256): v8x with 128 of A's rows per CTA (m64n128)", kernel,
       decode::pair_shape_rule<128>(any_mn), decode::pair_smem_tiles<128>(),
       decode::prepare<128, decode::PAIR>},
      {"v8k", "the token pair in row groups: v8x over A's rows 128 at a time (v8d at 225-256 rows, two pairs "
              "per tile of B)",
       kernel, any_mn, decode::pair_smem_tiles<64>(), decode::prepare<64, decode::PAIR, decode::ROWS, true>},
      {"v8g", "the small tile: the decode kernel over 64 rows of B and row groups of 32 of A (m64n32), a CTA "
              "per 32x64 block of C, K split to fill the SMs once",
       kernel, any_mn, decode::smem_tiles<decode::SMALL_COLS, decode::SMALL_ROWS>(),
       decode::prepare<decode::SMALL_COLS, 1, decode::SMALL_ROWS>},
      {"v8p", "ping-pong: each consumer warpgroup its own 128x128 tile, one storing C while the other "
              "multiplies (a CTA alone, whole tiles)", kernel, pingpong::shape_rule(any_mn),
       pingpong::smem_tiles<pingpong::COLS>(), pingpong::prepare<pingpong::COLS>},
      {"v8w", "ping-pong 144 wide: v8p with 128x144 tiles (m64n144)", kernel, pingpong::shape_rule(any_mn),
       pingpong::smem_tiles<pingpong::WIDE_COLS>(), pingpong::prepare<pingpong::WIDE_COLS>},
      {"v8c", "ping-pong in CTA pairs: v8p on two vertically adjacent tiles sharing B (each CTA multicasts half)",
       kernel, pingpong::shape_rule(any_mn), pingpong::pair_smem_tiles(),
       pingpong::prepare<pingpong::COLS, pingpong::PAIR>},
      {"v8d", "picked per shape: the decode tile at M <= 32 (and 129-192 where B is long), the small tile "
              "where the problem is small, the ping-pong tiles at K <= 2048 (in CTA pairs from 1024), else v7d's "
              "pair, a 1-CTA unit, the narrow pair or the medium tile; the default",
       kernel, any_mn, tiles.with_cluster(CLUSTER_PICKED),
       prepare_v8_untraced<UNIT_PICKED>, prepare_v8_traced<UNIT_PICKED>},
  };
}

}  // namespace gemm
