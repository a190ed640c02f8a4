// matmul_v7_sm90.cu: stage 7 on Hopper (sm_90a): work, not tiles, is what gets scheduled. v6's persistent
// CTA pairs, its ring, its epilogue and its edges, unchanged; what changes is what a pair is given to do:
// pieces of work (an output unit and a range of its K tiles) from a stream-K plan, and the fixup that adds
// the partial sums of a unit that several pairs shared. (The Blackwell file, matmul_v7.cu, makes the same
// step with tcgen05 and adds Cluster Launch Control; v7e here schedules dynamically with a global counter.)
//
// C[M,N] = A[M,K] * B[N,K]^T, bf16 in and out, fp32 accumulation, both operands K-major.
//
// What changed since v6 (seed 000 leaves "a few extra tricks" as an exercise; v6 did the tile order):
//  1. The plan (common/streamk.h, tested on the CPU). A unit is a pair of 128x256 tiles, as in v6, in v6b's
//     grouped order; an iteration is one unit times one K tile. Worker w (cluster w) gets pieces from
//     StreamKWork(plan, w): whole units first, then its stream-K range of iterations, cut evenly over the
//     workers, which may begin in the middle of one unit's K and end in the middle of another's. Every role
//     of both CTAs walks the same pieces. The variants differ only in the plan: v7a data-parallel (every
//     unit whole: v6b's schedule through the new code), v7b stream-K (every iteration in the stream-K
//     region, ranges of at least MIN_SK_ITERS), v7c hybrid (whole waves, then the partial last wave and one
//     full wave as stream-K), v7d picked per shape by the rule of pick_streamk (the default: stream-K where
//     the units do not fill the workers once, split as finely as its cost model says; v7c's hybrid plan
//     where they do and the last turn is nearly empty, by the same model).
//  2. The main loop runs K tiles [k_begin, k_end) of a piece: the producer loads them, the consumers start
//     the accumulator with scale-d 0 at k_begin, and the ring's stage and phase carry across pieces as they
//     carried across tiles in v6.
//  3. The fixup, per consumer warpgroup (each owns 64 rows of the tile, so the two never wait for each
//     other). A piece that starts past K tile 0 ("Partial") writes its 64x256 fp32 accumulators to its slot
//     of a global workspace (64 KB; thread t's float4 j at float4 j * 128 + t: coalesced, and the finisher's
//     thread t holds the same elements), syncs its 128 threads on its named barrier, and one thread raises
//     the slot's flag with st.release.gpu. The piece at K tile 0 of a split unit ("Finisher") ends its own
//     K range, then takes the later segments one at a time, in K order: one thread spins with
//     ld.acquire.gpu until the segment's flag is up and lowers it again, the warpgroup syncs, and every
//     thread loads the partial (ld.global.cg: from L2) and adds it. The sum order is the plan's (own part,
//     then segment 1, 2, ...), not the order the partials land in: two runs give bit-identical output.
//     Memory order: every thread's partial stores precede the barrier, and the release by one thread after
//     it is cumulative over them; the acquire, then the barrier, makes them visible to the warpgroup. (v8's
//     Hopper kernel reads a narrow tile's partials in batches, one lane per flag: this serial form cost its
//     narrow pairs 10% at 256 x 256 x 8192, the round trips queued; docs/performance/stream-k-fixup.md.)
//  4. No reset between launches. A flag is 0 between launches: raised by its writer, lowered by the one
//     finisher that consumes it, in the same launch (every partial has exactly one finisher: the CPU
//     tests). A launch back to back with the last one (the timing loop) therefore finds every flag down, and
//     nothing outside the kernel is timed or needed. (An epoch number per launch would also do, but it is
//     host state that a captured CUDA graph would freeze; the flag that is lowered by its reader is not.)
//  5. The grid: data-parallel plans launch v6's grid (at most one cluster per unit); stream-K plans launch
//     every cluster that can be resident (a finisher waits for other workers, which must all be running:
//     cudaOccupancyMaxActiveClusters), or only as many as the plan has ranges for. The workspace (one 64 KB
//     partial and one flag per consumer warpgroup of each CTA) is allocated once per prepared launch, as
//     cuBLAS's workspace is.
//  6. Dynamic scheduling (v7e), in a file of its own (work_counter_sm90.cuh): the same pieces, taken at run
//     time from a global atomic counter instead of walked from a fixed per-worker list, so that a cluster on
//     a faster SM can take more of them; every role of both CTAs reads every drawn piece from a task ring in
//     shared memory. Each role takes its pieces through work_counter::Pieces<DYNAMIC>: the plan's, or the
//     counter's. Measured slower than v7d at every shape tried (docs/performance/dynamic-scheduling.md): the
//     finer pieces cost more in fixups than the balance wins back.
//  7. The start (v7a-v7d): the producer's first piece and its tile are computed by warp 0 before the setup's
//     cluster barrier, while warp 1 initialises the barriers, and the barrier's arrival is relaxed; the
//     producer takes that piece first (next_piece), then the rest of its StreamKWork.
//  Which unit a piece covers, how wide a tile is and where the L2 keeps what are the next stage's
//  questions (v8_tile_shapes): here every unit is v6's CTA pair, 256 x 256.
//
// Why it helps: where the units do not fill the GPU (one 256x256 unit with a long K, a row of units of a
// skinny M) every SM gets an equal share of the MAC iterations instead of most of them idling.
// What it costs: per split unit, a 64 KB fp32 partial per warpgroup written and read back through L2 (~3 us
// each on the H100 when every SM does it at once: docs/performance/stream-k-fixup.md), a pipeline drain at each
// piece boundary, and, when a worker's range spans several units, the L2 reuse of the grouped order: the
// workers are then on units far apart in C at the same time.
//
// PTX ISA sections: as v6, plus "Memory Consistency Model" (release and acquire patterns at .gpu scope,
// release sequences), "st" (.release.gpu), "ld" (.acquire.gpu, .cg); v7e's: work_counter_sm90.cuh.
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
constexpr int UNIT_CTAS      = CLUSTER_SIZE;        // CTAs per unit of work (a cluster): the pair
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

// v7e's work counter: the task ring and each role's pieces, drawn at run time.
#include "v7_streamk/work_counter_sm90.cuh"

// ---- the kernel ----
// TRACE: the in-kernel profiler's `prof.` lines record each role's waits and issues (--trace); compiled out
// of the TRACE=false instantiation, which is the one checked and timed (common/profiler.cuh).
// plan: the stream-K plan (common/streamk.h), the same for every variant's kernel: whole units, stream-K
// ranges, or both. c_tma: N % 8 == 0, C is stored through c_map; else with predicated st.global.
// workspace, flags: one fp32 partial and one flag per consumer warpgroup of every CTA (the fixup). A flag is
// 0 between launches: raised (1) by its partial's writer, lowered again by the finisher that consumes it.
// DYNAMIC (v7e): the pieces are not StreamKWork's but drawn at run time from `dyn` (work_counter_sm90.cuh).
template <bool TRACE, bool DYNAMIC>
__global__ void __launch_bounds__(NUM_THREADS, 1)
    matmul_v7_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                     const __grid_constant__ CUtensorMap c_map, __nv_bfloat16* c, int m, int n, int k,
                     bool c_tma, const StreamKPlan plan, float* workspace, uint32_t* flags,
                     const work_counter::DynamicWork dyn, TraceBuffer trace) {
#if defined(GEMM_HAS_WGMMA)
  extern __shared__ uint8_t smem_raw[];
  uint8_t* ring = align_smem_1024(smem_raw);  // stage s: A tile at s * STAGE_BYTES, then its B tile
  auto a_smem   = [&](int s) { return ring + a_tile_offset(s); };
  auto b_smem   = [&](int s) { return ring + b_tile_offset(s); };
  __shared__ uint64_t tma_full_bar[NUM_STAGES];  // "full": the TMA bytes of the K tile in stage s have landed
  __shared__ uint64_t mma_done_bar[NUM_STAGES];  // "empty": all 4 consumers of the pair are done with stage s
  // v7e's task ring (work_counter_sm90.cuh): the pieces drawn for this cluster, and their full and empty
  // barriers
  __shared__ StreamKTask task_ring[work_counter::TASK_SLOTS];
  __shared__ uint64_t task_full_bar[work_counter::TASK_SLOTS];
  __shared__ uint64_t task_empty_bar[work_counter::TASK_SLOTS];
  const work_counter::Ring tasks{task_ring, task_full_bar, task_empty_bar};

  const int warp_id   = threadIdx.x / 32;
  const int lane      = threadIdx.x % 32;
  const int warpgroup = threadIdx.x / 128;  // 0: producer; 1, 2: consumers
  // A 1-D grid of clusters along x (cluster dims 2 x 1): cluster blockIdx.x / 2 is worker `worker` of the
  // plan, and the CTA of rank r takes M tile 2 * (the unit's pair row) + r. Units are numbered in v6b's
  // grouped order, so the units that run together are close in C.
  const int cta_rank = int(ptx::cluster_ctarank());
  const int worker   = int(blockIdx.x) / UNIT_CTAS;
  const int tiles_m  = num_tiles(m, BLOCK_M), tiles_n = num_tiles(n, BLOCK_N);
  const TileSchedule<ScheduleKind::Grouped> order(tiles_m, tiles_n, 1, 0, CLUSTER_SIZE, cta_rank, GROUP_M);
  const auto tile_of_unit = [&](int unit) { return order.tile_of_unit(unit); };  // this CTA's tile of a unit
  Profiler<TRACE> prof(trace, /*role=*/warpgroup, /*records=*/warp_id % 4 == 0);
  prof.begin(Ev::Setup);

  // The producer's first piece and its tile, computed by warp 0 (the producer's) before the setup's cluster
  // barrier, while warp 1 initialises the barriers: the piece and the grouped order's two integer divisions
  // took 0.35 us after the barrier, on the way to the first TMA (v8d's globaltimer marks at 1024^3: setup
  // done at 0.32 us, the first load issued at ~1.0 us; README, "The start"). Static plans in the timed
  // kernels only: the traced kernel, which keeps the profiler's state in registers too, spills; v7e draws its
  // pieces (its first too, from the counter's order), so the plan's first is not its.
  constexpr bool EARLY_FIRST = !TRACE && !DYNAMIC;
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
      ptx::mbarrier_init(&mma_done_bar[s], NUM_CONSUMERS * CLUSTER_SIZE);  // every consumer of the pair
    }
    tasks.init();
    ptx::fence_mbarrier_init();
  }
  // Both CTAs' barriers are initialised before either CTA multicasts into or arrives on the other's. The
  // arrival is relaxed: the fence above publishes the initialisations, and nothing else is written before it
  // (README, "The start").
  ptx::barrier_cluster_arrive_relaxed();
  ptx::barrier_cluster_wait();
  prof.end(Ev::Setup);

  if (warpgroup == 0) {
    // ---- producer: one thread keeps the ring full, tile after tile ----
    wg::setmaxnreg_dec<PRODUCER_REGS>();
    if (warp_id == 0 && ptx::elect_one_sync()) {
      int stage            = 0;  // ring stage of the next K tile: carried across output tiles
      uint32_t empty_phase = 1;  // parity of the "empty" phase to wait for: 1 passes at once on the first lap
      work_counter::Pieces<DYNAMIC> work(plan, worker, dyn, tasks, first_work);
      bool take_first = EARLY_FIRST, is_first = false;  // the first piece and tile: computed above
      const auto next_piece = [&](StreamKPiece& piece) {
        is_first = take_first;
        if (take_first) {
          take_first = false;
          piece      = first_piece;
          return have_first;
        }
        return work.take(piece);
      };
      for (StreamKPiece piece; next_piece(piece);) {
        const ScheduledTile t = is_first ? first_tile : tile_of_unit(piece.unit);
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
        for (int k_tile = piece.k_begin; k_tile < piece.k_end; ++k_tile) {
          prof.begin(Ev::WaitEmpty);
          ptx::mbarrier_wait(&mma_done_bar[stage], empty_phase, "mma_done_bar");
          prof.end(Ev::WaitEmpty);
          prof.begin(Ev::IssueTma);
          load(k_tile, stage);
          prof.end(Ev::IssueTma);
          // v7e: the next piece, drawn one ahead while this one's first load is on its way
          if (DYNAMIC && cta_rank == 0 && k_tile == piece.k_begin) work.draw();
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
    if constexpr (DYNAMIC)
      ptx::barrier_cluster_arrive();  // v7e: its task ring takes remote arrivals that no tail waits for
    else
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
    // (2w + r) * NUM_CONSUMERS + consumer. Thread t keeps float4 j of its accumulators at
    // float4 j * 128 + t of the partial: coalesced, and the finisher's thread t holds the same elements.
    auto slot = [&](int w) { return (w * UNIT_CTAS + cta_rank) * NUM_CONSUMERS + consumer; };

    // The K loop's bookkeeping in few instructions: the ring's position as one count of the K tiles this
    // warpgroup has taken, all pieces (stage ring_k % NUM_STAGES, phase (ring_k / NUM_STAGES) % 2); the
    // descriptors built once per piece and moved per stage and K step by one add; no branch in the loop (the
    // release below). Where ptxas can also prove the count, the K range, the ring's address and the
    // warpgroup's index warp-uniform (the shuffles) and the warp converged at each piece (a barrier, and the
    // piece loop's condition through a shuffle), it keeps all of it on the uniform datapath: 63 instructions
    // per K tile against v6's loop's 111 (tools/sass_loops.py), and no register spilled beside v7e's task ring.
    uint32_t ring_k = 0;
    uint64_t mma_issued = 0;  // trace: when the MMAs of k_tile - 1 were issued
    work_counter::Pieces<DYNAMIC> work(plan, worker, dyn, tasks);
    int owner = worker;  // the plan's worker of the piece (v7e: the drawn piece's), whose fixup slot it uses
    const auto next_piece = [&](StreamKPiece& piece) {
      const bool more = work.read(piece, owner);
      // The warpgroup's barrier: after it ptxas knows the warp converged, which, with the loop's condition
      // through a shuffle, lets it keep the K loop on the uniform datapath (v7e: and all 128 threads have
      // read the task slot, which one of them then releases)
      ptx::named_barrier_sync(c_bar, 128);
      work.release(wg_thread == 0);
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
      // (elect.sync's predicate inside the asm): the barriers' addresses in both CTAs, found once per piece.
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
        // CTAs of the pair, since both multicast into it
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
      // ... and the piece's last stage is free: release it too (the next piece's loads are waiting for it)
      const int last_stage = int((ring_k + NUM_STAGES - 1) % NUM_STAGES);
      if (warp_id % 4 == 0 && ptx::elect_one_sync())
        for (int peer = 0; peer < CLUSTER_SIZE; ++peer)
          ptx::mbarrier_arrive_cluster(ptx::mapa_shared_cluster(&mma_done_bar[last_stage], uint32_t(peer)));
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
        for (int w = owner + 1; w <= last; ++w) {
          if (warp_id % 4 == 0 && lane == 0) {  // one thread waits for the partial's flag
            while (ptx::ld_acquire_gpu(flags + slot(w)) == 0) {
            }
            flags[slot(w)] = 0;  // consumed: down again for the next launch (its writer runs after us)
          }
          ptx::named_barrier_sync(c_bar, 128);  // the acquire by that thread, then the barrier: seen by all
          const float4* part =
              reinterpret_cast<const float4*>(workspace) + size_t(slot(w)) * (PARTIAL_FLOATS / 4);
          add_partials<1>(acc, part + wg_thread);  // common/fixup.cuh: ld.global.cg, from L2, then the adds
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
    if constexpr (DYNAMIC)
      ptx::barrier_cluster_arrive();  // v7e: its task ring takes remote arrivals that no tail waits for
    else
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
// With `trace`: the TRACE=true instantiation, recording into a buffer sized from the plan (--trace).
// PICK: the policy and the ranges' minimum length come from the picking rule (pick_streamk), not POLICY.
// DYNAMIC (v7e, with PICK): the picking rule's plan, its stream-K ranges DYNAMIC_SPLIT times shorter, drawn
// at run time in the dynamic order (common/streamk.h); no traced kernel.
template <StreamKPolicy POLICY, bool PICK, bool DYNAMIC = false>
Launch prepare_v7(const GemmArgs& g, DeviceTrace* trace) {
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
  auto* kernel = trace && !DYNAMIC ? matmul_v7_kernel<!DYNAMIC, DYNAMIC> : matmul_v7_kernel<false, DYNAMIC>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));

  // The plan. Data-parallel: v6's grid, at most one cluster per unit. Stream-K and hybrid: every cluster
  // that can be resident is a worker (the finishers wait for other workers, which must all be running), or
  // only as many as the plan gives a stream-K range where it has no whole units.
  const int tiles_m = num_tiles(g.m, BLOCK_M), tiles_n = num_tiles(g.n, BLOCK_N);
  PersistentGrid grid =
      persistent_grid(kernel, NUM_THREADS, SMEM_BYTES, CLUSTER_SIZE, tiles_m, tiles_n, "v7 (sm_90a)");
  const int units = num_tiles(tiles_m, CLUSTER_SIZE) * tiles_n, iters = num_k_tiles(g.k, BLOCK_K);
  StreamKPolicy policy = POLICY;
  int min_iters        = MIN_SK_ITERS;
  if (PICK) {
    const StreamKChoice choice = pick_streamk(units, iters, grid.max_clusters, FIXUP_ITERS);
    policy                     = choice.policy;
    min_iters                  = choice.min_iters;
  }
  int workers = policy == StreamKPolicy::DataParallel ? grid.clusters : grid.max_clusters;
  if (DYNAMIC) work_counter::split_finer(policy, grid.max_clusters, workers, min_iters);  // v7e: more ranges
  const StreamKPlan plan = make_streamk_plan(units, iters, workers, policy, min_iters);
  grid.resize(plan.dp_units > 0 ? plan.workers : plan.sk_workers);
  const work_counter::Counter counter(DYNAMIC, plan, grid);  // v7e: the pieces in order, the counters, the grid
  std::shared_ptr<FixupMemory> fixup;  // one slot per CTA of each of the plan's stream-K ranges
  if (plan.sk_workers > 0)  // one partial and one flag per consumer warpgroup of each CTA (common/fixup_memory.h)
    fixup = std::make_shared<FixupMemory>(size_t(plan.sk_workers * UNIT_CTAS) * NUM_CONSUMERS, PARTIAL_FLOATS);
  float* workspace = fixup ? fixup->workspace : nullptr;
  uint32_t* flags  = fixup ? fixup->flags : nullptr;

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
    grid.launch(stream, kernel, a_map, b_map, c_map, c, m, n, k, c_tma, plan, workspace, flags, counter.work, buf);
    (void)fixup;  // held by the launch: the workspace lives as long as any copy of it
  };
}
template <StreamKPolicy POLICY, bool PICK = false, bool DYNAMIC = false>
Launch prepare_v7_untraced(const GemmArgs& g) {
  return prepare_v7<POLICY, PICK, DYNAMIC>(g, nullptr);
}
template <StreamKPolicy POLICY, bool PICK = false>
Launch prepare_v7_traced(const GemmArgs& g, DeviceTrace& trace) {
  return prepare_v7<POLICY, PICK>(g, &trace);
}

}  // namespace

std::vector<Variant> sm90_variants() {
  const ShapeRule any_mn = any_mn_shape_rule(2);  // any M and N; K a multiple of 8 (the TMA stride rule)
  const char* kernel     = "sm_90a wgmma kernel, the Hopper twin (v7_streamk/matmul_v7_sm90.cu)";
  SmemTiles tiles{A_TILE, B_TILE, WGMMA_M, /*tma_3d=*/false, NUM_STAGES, SLICE_K, TMA_BOXES, tma_box};
  tiles.b_split = CLUSTER_SIZE;  // B's tile: one 128-row box multicast by each CTA of the pair
  using P = StreamKPolicy;
  return {
      {"v7a", "v6b's schedule as a plan: whole units only (data-parallel)", kernel, any_mn, tiles,
       prepare_v7_untraced<P::DataParallel>, prepare_v7_traced<P::DataParallel>},
      {"v7b", "stream-K: all K iterations split evenly, fixup", kernel, any_mn, tiles,
       prepare_v7_untraced<P::StreamK>, prepare_v7_traced<P::StreamK>},
      {"v7c", "hybrid: whole waves, stream-K for the last 1-2", kernel, any_mn, tiles,
       prepare_v7_untraced<P::Hybrid>, prepare_v7_traced<P::Hybrid>},
      {"v7d", "picked per shape: v7a, or stream-K split to the cost model; the default", kernel, any_mn, tiles,
       prepare_v7_untraced<P::DataParallel, true>, prepare_v7_traced<P::DataParallel, true>},
      {"v7e", "dynamic: v7d's pieces, cut finer, drawn from a global atomic counter", kernel, any_mn, tiles,
       prepare_v7_untraced<P::DataParallel, true, true>, nullptr},
  };
}

}  // namespace gemm
