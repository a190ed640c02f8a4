// matmul_v6_sm90.cu: stage 6 on Hopper (sm_90a), the twin of matmul_v6.cu with wgmma: persistent CTA pairs
// that loop over output tiles in an L2-aware order, an epilogue that overlaps the next tile's main loop, and
// any M and N.
//
// C[M,N] = A[M,K] * B[N,K]^T, bf16 in and out, fp32 accumulation, both operands K-major.
//
// What changed since v5 (seed 000, "Persistent kernel"; seed 001, "Optimization 6"), in four parts:
//  1. Persistence: a persistent grid. As many 2-CTA clusters as can be resident at once
//     (cudaOccupancyMaxActiveClusters: 66 on the H100's 132 SMs), never more than there are pairs of tiles;
//     each cluster loops over the output tiles that common/scheduler.h gives it (a 256x256 pair of tiles per
//     turn, the two CTAs on vertically adjacent 128-row tiles, and the cluster dims 2 x 1, blockIdx.x = 2c +
//     rank, as in v5). The ring's stage index and phase carry across tiles, in every role: the producer
//     fills the stages of the next tile while the consumers finish this one. So the consumers now release
//     each tile's last stage too, at the end of the tile (v5 never released its last one: its CTA exited).
//  2. The second ring: an overlapped epilogue through shared memory and a TMA store. v5's consumers wrote C
//     from registers with st.global, about 5 us per tile at 4096^3 with the tensor pipe idle (ncu: 11% of the
//     run); here each consumer warpgroup converts its 64x256 accumulators to bf16, writes them with stmatrix
//     into a C buffer laid out in the 128-byte swizzle (so that the 8 rows of each 8x8 matrix fall in 8
//     different 16-byte bank groups: no bank conflict), fences the generic-proxy writes for the async proxy
//     (fence.proxy.async), syncs its 128 threads on a named barrier, and one thread issues the TMA stores
//     (64-column boxes) and commits them as a bulk async-group. The warpgroup then starts the next tile's
//     wgmmas at once: the store drains from shared memory to global memory under the next main loop. Before
//     the C buffer is written again, the thread that issued the stores waits for them to have READ it
//     (cp.async.bulk.wait_group.read), then the warpgroup syncs; at exit it waits for them before the final
//     cluster barrier.
//     The C buffer costs shared memory that the ring wants: 4 x 48 KB stages + a whole 128x256 bf16 tile
//     (64 KB) do not fit in 227 KB. So each warpgroup stores its 64 x 256 block in two halves of 128
//     columns (C_PARTS = 2, a 32 KB buffer), waiting for the first half to be read before writing the
//     second. Measured on the H100 (paired, v6b; docs/performance/v6-epilogue-and-tile-order.md): 3 stages
//     and a whole-tile buffer (C_PARTS = 1) 0.966x cuBLAS at 4096^3 and 1.004x at 8192^3, against 0.997x
//     and 1.025x for this; a per-warp form (16 x 64 chunks, two 2 KB buffers per warp, no warpgroup
//     barrier) measured the same as this (0.993x against 0.996x at 4096^3; ncu: 210.7 against 210.9 us)
//     and was not kept. With the store overlapped the tensor pipe is 94% busy at 4096^3 (ncu; v5: 81%).
//     Why not ping-pong consumers (one warpgroup's epilogue under the other's MMAs, CUTLASS's "pingpong"):
//     each warpgroup would own a whole 128x256 tile, 256 accumulator registers per thread, which do not fit
//     beside the addresses in the 255 a thread may have; with 64x256 per warpgroup both warpgroups finish a
//     tile together, and only the store through shared memory gets their registers free in time.
//  3. The schedules: the order of the tiles is a template parameter, one variant each: v6a static
//     (round-robin over v5's order, N fastest), v6b grouped (GROUP_M = 16 rows of tiles walked together,
//     common/tile_order.h), v6c Hilbert. Each role keeps its own copy of the iterator; all see the same
//     tiles.
//  4. The edges: any M >= 1, N >= 1, K % 8 == 0 (common/edge.h). The loads use 2D tensor maps (K extent = K,
//     so the box of a short last K tile is zero-filled past K; v5's 3D map cut K into whole 64-element
//     slices), and TMA zero-fills the rows of a box past M or N. A box wholly outside the tensor (the A box
//     of the padding tile of a pair when the number of M tiles is odd, the second half of B when N ends in
//     the first) is not issued, and not counted in the stage's expect_tx; the smem rows it would fill keep
//     old values, which only reach accumulator rows or columns that are never stored. The padding CTA still
//     multicasts its half of B, which its peer needs, waits for and releases every stage, and runs its MMAs
//     (on whatever its A stages hold: a branch around them serialises every wgmma), but stores nothing. The
//     TMA store clips the box to the tensor. Where N % 8 != 0, C's row (N * 2 bytes) is no valid TMA stride:
//     those shapes take a predicated st.global epilogue instead (one bf16 at a time: the row start is not
//     even 4-byte aligned), chosen at run time, so that every shape the rule accepts works.
//
// Why it helps: the tensor cores no longer idle while C is written (v5 lost ~11% at 4096^3 there); the
// setup of a CTA (barriers, cluster barrier) is paid once per SM, not once per tile; and
// the grouped and Hilbert schedules keep the tiles that run together close in C, so that their A and B
// blocks are L2 hits.
// What it costs: one ring stage, or a half-tile store split (C_PARTS); a wave quantisation of its own when
// the number of tiles is not a multiple of the clusters (the last turn runs on fewer SMs); the schedule's
// integer arithmetic per tile; a named barrier and a fence per store.
//
// PTX ISA sections: as v5, plus "cp.async.bulk.tensor" (the .global.shared::cta store, .bulk_group),
// "cp.async.bulk.commit_group", "cp.async.bulk.wait_group" (.read), "stmatrix", "membar/fence"
// (fence.proxy.async), "bar.sync" (named barriers), and the CUDA Runtime API's
// cudaOccupancyMaxActiveClusters.
#include <cuda_bf16.h>

#include "common/check.h"
#include "common/descriptors.cuh"
#include "common/edge.h"
#include "common/harness.h"
#include "common/persistent_grid.h"
#include "common/profiler.cuh"
#include "common/ptx.cuh"
#include "common/scheduler.h"
#include "common/tma.h"
#include "common/wgmma.cuh"

// C_PARTS: the C buffer holds 1/C_PARTS of each warpgroup's 64 x 256 block; the ring gets what is left. The
// measured choice is the default; -DGEMM_SM90_C_PARTS=1 builds the other one, here and in v7 and v8
// (docs/performance/v6-epilogue-and-tile-order.md).
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

constexpr KMajorTile A_TILE{BLOCK_M, BLOCK_K, 2, Swizzle::B128};
constexpr KMajorTile B_TILE{BLOCK_N, BLOCK_K, 2, Swizzle::B128};
constexpr uint32_t A_TILE_BYTES = kmajor_tile_bytes(A_TILE);
constexpr uint32_t B_TILE_BYTES = kmajor_tile_bytes(B_TILE);
constexpr uint32_t B_BOX_BYTES  = B_TILE_BYTES / CLUSTER_SIZE;  // one CTA's half of B
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

// ---- where the TMA boxes of a K tile go: the kernel issues exactly these (tests/test_stage_table.cpp
//      checks them against the layout model's table) ----
// 2D boxes {64, BOX_ROWS} at (k0, row): A's tile is one box; B's 256-row tile is two, stacked along its rows:
// box j, rows j*128 .. +127, lands at j * 16 KB, and CTA j of the cluster multicasts it.
constexpr int TMA_BOXES = 1;  // per operand and K tile along K (B: one per CTA along its rows)
GEMM_HD constexpr TmaBox tma_box(KMajorTile tile, int row0, int k0, int j) {
  return {kmajor_row_offset(tile, j * BOX_ROWS), {k0, row0 + j * BOX_ROWS, 0}};
}

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
// TRACE: the in-kernel profiler's `prof.` lines record each role's waits and issues (--trace); compiled out
// of the TRACE=false instantiation, which is the one checked and timed (common/profiler.cuh).
// KIND: the tile schedule (common/scheduler.h). c_tma: N % 8 == 0, C is stored through c_map; else with
// predicated st.global.
template <bool TRACE, ScheduleKind KIND>
__global__ void __launch_bounds__(NUM_THREADS, 1)
    matmul_v6_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                     const __grid_constant__ CUtensorMap c_map, __nv_bfloat16* c, int m, int n, int k,
                     bool c_tma, TraceBuffer trace) {
#if defined(GEMM_HAS_WGMMA)
  extern __shared__ uint8_t smem_raw[];
  uint8_t* ring = align_smem_1024(smem_raw);  // stage s: A tile at s * STAGE_BYTES, then its B tile
  auto a_smem   = [&](int s) { return ring + a_tile_offset(s); };
  auto b_smem   = [&](int s) { return ring + b_tile_offset(s); };
  __shared__ uint64_t tma_full_bar[NUM_STAGES];  // "full": the TMA bytes of the K tile in stage s have landed
  __shared__ uint64_t mma_done_bar[NUM_STAGES];  // "empty": all 4 consumers of the pair are done with stage s

  const int warp_id   = threadIdx.x / 32;
  const int lane      = threadIdx.x % 32;
  const int warpgroup = threadIdx.x / 128;  // 0: producer; 1, 2: consumers
  // A 1-D grid of clusters along x (cluster dims 2 x 1): cluster blockIdx.x / 2 walks the schedule's units,
  // and the CTA of rank r takes M tile 2 * (the unit's pair row) + r.
  const int cta_rank  = int(ptx::cluster_ctarank());
  const int tiles_m   = num_tiles(m, BLOCK_M), tiles_n = num_tiles(n, BLOCK_N);
  const TileSchedule<KIND> schedule(tiles_m, tiles_n, int(gridDim.x) / CLUSTER_SIZE,
                                    int(blockIdx.x) / CLUSTER_SIZE, CLUSTER_SIZE, cta_rank, GROUP_M);
  Profiler<TRACE> prof(trace, /*role=*/warpgroup, /*records=*/warp_id % 4 == 0);
  prof.begin(Ev::Setup);

  // ---- setup: the barriers by one thread ----
  if (warp_id == 0 && ptx::elect_one_sync()) {
    for (int s = 0; s < NUM_STAGES; ++s) {
      ptx::mbarrier_init(&tma_full_bar[s], 1);  // one arrival: this CTA's TMA thread (the peer's adds bytes)
      ptx::mbarrier_init(&mma_done_bar[s], NUM_CONSUMERS * CLUSTER_SIZE);  // every consumer of the pair
    }
    ptx::fence_mbarrier_init();
  }
  // Both CTAs' barriers are initialised before either CTA multicasts into or arrives on the other's.
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
  prof.end(Ev::Setup);

  const int num_k_tiles = gemm::num_k_tiles(k, BLOCK_K);  // the last one may be short: zero-filled past K
  if (warpgroup == 0) {
    // ---- producer: one thread keeps the ring full, tile after tile ----
    wg::setmaxnreg_dec<PRODUCER_REGS>();
    if (warp_id == 0 && ptx::elect_one_sync()) {
      int stage            = 0;  // ring stage of the next K tile: carried across output tiles
      uint32_t empty_phase = 1;  // parity of the "empty" phase to wait for: 1 passes at once on the first lap
      TileSchedule<KIND> tiles = schedule;
      for (ScheduledTile t; tiles.next(t);) {
        const int m0 = t.m * BLOCK_M, n0 = t.n * BLOCK_N;
        // Boxes wholly outside the tensors are not issued (see the header): this CTA's A unless it is a
        // padding tile, each half of B that starts below N. Both CTAs see the same n0, so they agree on
        // the bytes of B that land in each.
        const bool load_a = m0 < m, load_b = n0 + cta_rank * BOX_ROWS < n;
        uint32_t bytes    = load_a ? A_TILE_BYTES : 0;
        for (int j = 0; j < CLUSTER_SIZE; ++j) bytes += n0 + j * BOX_ROWS < n ? B_BOX_BYTES : 0;
        // load: announce the bytes of K tile `k_tile` that land in this CTA (its A, the halves of B), then
        // issue its copies into ring stage `s`: its A, and its half of B multicast to both CTAs
        auto load = [&](int k_tile, int s) {
          ptx::mbarrier_arrive_expect_tx(&tma_full_bar[s], bytes);
          const int k0 = k_tile * BLOCK_K;
          for (int j = 0; j < TMA_BOXES; ++j) {
            const TmaBox a = tma_box(A_TILE, m0, k0, j), b = tma_box(B_TILE, n0, k0, cta_rank);
            if (load_a)
              ptx::tma_load_2d(a_smem(s) + a.smem_offset, &a_map, &tma_full_bar[s], a.coords[0], a.coords[1]);
            if (load_b)
              ptx::tma_load_2d_multicast(b_smem(s) + b.smem_offset, &b_map, &tma_full_bar[s], CLUSTER_MASK,
                                         b.coords[0], b.coords[1]);
          }
        };
        for (int k_tile = 0; k_tile < num_k_tiles; ++k_tile) {
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
    const int consumer = warpgroup - 1;
    float acc[ACC_REGS];
    uint8_t* c_buf           = ring + C_OFFSET + consumer * C_WG_BYTES;  // this warpgroup's C staging
    const bool store_thread  = warp_id % 4 == 0 && ptx::elect_one_sync();  // issues the TMA stores
    const uint32_t c_bar     = 1 + consumer;  // named barrier of the warpgroup's 128 threads

    int stage           = 0;  // ring stage of the next K tile: carried across output tiles
    uint32_t full_phase = 0;  // parity of this use of the stage's "full" barrier: flips when `stage` wraps
    uint64_t mma_issued = 0;  // trace: when the MMAs of k_tile - 1 were issued
    TileSchedule<KIND> tiles = schedule;
    for (ScheduledTile t; tiles.next(t);) {
      const int m0 = t.m * BLOCK_M, n0 = t.n * BLOCK_N;
      for (int k_tile = 0; k_tile < num_k_tiles; ++k_tile) {
        prof.begin(Ev::WaitFull);
        ptx::mbarrier_wait(&tma_full_bar[stage], full_phase, "tma_full_bar");
        prof.end(Ev::WaitFull);

        // compute: BLOCK_K/16 MMAs on this warpgroup's 64 rows of A; scale-d 0 on the tile's first. A padding
        // tile (t.valid false) multiplies whatever its A rows hold (no A is loaded for it) and stores
        // nothing: a branch around the wgmmas makes ptxas serialise every wgmma of the kernel (warning C7520:
        // "wgmma serialized due to ... WG.AR in divergent path"), which costs far more than one wasted tile.
        const uint64_t issued = prof.begin(Ev::IssueMma);
        const uint32_t a_addr = ptx::smem_addr(a_smem(stage)), b_addr = ptx::smem_addr(b_smem(stage));
        wg::fence();
#pragma unroll
        for (int k_step = 0; k_step < BLOCK_K / WGMMA_K; ++k_step) {
          const uint64_t a_desc = kmajor_desc_sm90(A_TILE, a_addr, k_step, consumer * WGMMA_M);
          const uint64_t b_desc = kmajor_desc_sm90(B_TILE, b_addr, k_step);
          wg::mma_m64n256k16_bf16(acc, a_desc, b_desc, (k_tile > 0 || k_step > 0) ? 1u : 0u);
        }
        wg::commit_group();
        prof.end(Ev::IssueMma);
        prof.begin(Ev::WaitMma);
        wg::wait_group<1>();  // this warpgroup's MMAs of k_tile - 1 are done; those of k_tile may still run
        prof.end(Ev::WaitMma);
        if (k_tile > 0) prof.span(Ev::Mma, mma_issued);  // k_tile - 1's MMAs: from their issue to seen done
        mma_issued = issued;

        // release: one thread per consumer warpgroup says it no longer reads the stage of k_tile - 1, to both
        // CTAs of the pair, since both multicast into it
        const int prev_stage = stage == 0 ? NUM_STAGES - 1 : stage - 1;
        if (k_tile > 0 && warp_id % 4 == 0 && ptx::elect_one_sync())
          for (int peer = 0; peer < CLUSTER_SIZE; ++peer)
            ptx::mbarrier_arrive_cluster(ptx::mapa_shared_cluster(&mma_done_bar[prev_stage], uint32_t(peer)));

        if (++stage == NUM_STAGES) {
          stage = 0;
          full_phase ^= 1;
        }
      }
      prof.begin(Ev::WaitMma);
      wg::wait_group<0>();  // the last group is done: accumulators final
      prof.end(Ev::WaitMma);
      prof.span(Ev::Mma, mma_issued);
      // ... and the tile's last stage is free: release it too (the next tile's loads are waiting for it)
      const int last_stage = stage == 0 ? NUM_STAGES - 1 : stage - 1;
      if (warp_id % 4 == 0 && ptx::elect_one_sync())
        for (int peer = 0; peer < CLUSTER_SIZE; ++peer)
          ptx::mbarrier_arrive_cluster(ptx::mapa_shared_cluster(&mma_done_bar[last_stage], uint32_t(peer)));
      if (!t.valid) continue;  // a padding tile stores nothing
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

// ---- host launcher ----
// With `trace`: the TRACE=true instantiation, recording into a buffer sized from the grid (--trace).
template <ScheduleKind KIND>
Launch prepare_v6(const GemmArgs& g, DeviceTrace* trace) {
  // 2D maps (K extent = K: the short last K tile is zero-filled). B's map is N rows high: B is [N, K]. Its
  // box is one CTA's half of the tile. C's map (N % 8 == 0 only: its row stride must be a multiple of 16 B)
  // stores 64 x 64 boxes from the 128-byte-swizzled C buffer.
  const TmaDesc a_desc    = kmajor_tma_2d(g.m, g.k, BLOCK_M, BLOCK_K, 2, Swizzle::B128);
  const TmaDesc b_desc    = kmajor_tma_2d(g.n, g.k, BOX_ROWS, BLOCK_K, 2, Swizzle::B128);
  const CUtensorMap a_map = make_tensor_map(a_desc, g.a, "A");
  const CUtensorMap b_map = make_tensor_map(b_desc, g.b, "B");
  const bool c_tma        = tma_row_stride_ok(g.n, 2);
  CUtensorMap c_map       = {};  // unused by the st.global epilogue
  if (c_tma)
    c_map = make_tensor_map(kmajor_tma_2d(g.m, g.n, WGMMA_M, C_BOX_COLS, 2, Swizzle::B128), g.c, "C");
  auto* kernel = trace ? matmul_v6_kernel<true, KIND> : matmul_v6_kernel<false, KIND>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));

  // The persistent grid (common/persistent_grid.h): every cluster that can be resident at once (66 pairs on
  // the H100's 132 SMs if the GPCs allow), never more than there are pair units of work.
  const int tiles_m = num_tiles(g.m, BLOCK_M), tiles_n = num_tiles(g.n, BLOCK_N);
  PersistentGrid grid =
      persistent_grid(kernel, NUM_THREADS, SMEM_BYTES, CLUSTER_SIZE, tiles_m, tiles_n, "v6 (sm_90a)");

  auto* c = static_cast<__nv_bfloat16*>(g.c);
  const int m = int(g.m), n = int(g.n), k = int(g.k);
  TraceBuffer buf;  // --trace: per CTA and role, setup, per turn 4 events per K tile and 4 more, teardown
  if (trace) {
    const int turns = TileSchedule<KIND>(tiles_m, tiles_n, grid.clusters, 0, CLUSTER_SIZE).num_turns();
    buf = trace->allocate(grid.cfg.gridDim.x, {"producer", "consumer 0", "consumer 1"},
                          uint32_t(turns) * (4 * num_k_tiles(k, BLOCK_K) + 4) + 8);
  }
  return [=](cudaStream_t stream) mutable {
    grid.launch(stream, kernel, a_map, b_map, c_map, c, m, n, k, c_tma, buf);
  };
}
template <ScheduleKind KIND>
Launch prepare_v6_untraced(const GemmArgs& g) {
  return prepare_v6<KIND>(g, nullptr);
}
template <ScheduleKind KIND>
Launch prepare_v6_traced(const GemmArgs& g, DeviceTrace& trace) {
  return prepare_v6<KIND>(g, &trace);
}

}  // namespace

std::vector<Variant> sm90_variants() {
  const ShapeRule any_mn = any_mn_shape_rule(2);  // any M and N; K a multiple of 8 (the TMA stride rule)
  const char* kernel     = "sm_90a wgmma kernel, the Hopper twin (v6_persistent/matmul_v6_sm90.cu)";
  SmemTiles tiles{A_TILE, B_TILE, WGMMA_M, /*tma_3d=*/false, NUM_STAGES, SLICE_K, TMA_BOXES, tma_box};
  tiles.b_split = CLUSTER_SIZE;  // B's tile: one 128-row box multicast by each CTA of the pair
  return {
      {"v6a",
       "persistent 2-CTA clusters, TMA-store epilogue overlapping the next tile, any M/N; static order",
       kernel, any_mn, tiles, prepare_v6_untraced<ScheduleKind::Static>,
       prepare_v6_traced<ScheduleKind::Static>},
      {"v6b", "as v6a, grouped tile order (GROUP_M 16); the default", kernel, any_mn, tiles,
       prepare_v6_untraced<ScheduleKind::Grouped>, prepare_v6_traced<ScheduleKind::Grouped>},
      {"v6c", "as v6a, Hilbert tile order", kernel, any_mn, tiles, prepare_v6_untraced<ScheduleKind::Hilbert>,
       prepare_v6_traced<ScheduleKind::Hilbert>},
  };
}

}  // namespace gemm
