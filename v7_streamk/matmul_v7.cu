// matmul_v7.cu: stage 7 on Blackwell (sm_100a): work, not tiles, is what gets scheduled. v6's kernel (TMEM
// double buffer, six warps, any M and N) given its work in two ways, one template flag (CLC):
//  - v7a-v7d: a stream-K plan (common/streamk.h, the Hopper twin's): the MAC iterations (unit x K tile) cut
//    evenly over the persistent clusters, a unit whose K is split fixed up through a global workspace;
//  - v7clc: one 2-CTA cluster per unit; a cluster that finishes its unit asks the hardware to cancel the
//    launch of one that has not started yet, and does that one's unit instead (Cluster Launch Control).
// Every unit is v6's CTA pair (cta_group::2, 256 x 256); which unit and tile fit a shape is the next stage's
// question (v8_tile_shapes).
//
// C[M,N] = A[M,K] * B[N,K]^T, bf16 in and out, fp32 accumulation, both operands K-major.
//
// What changed since v6 (seed 000 names Blackwell Cluster Launch Control among "a few extra tricks" it leaves
// as an exercise):
//  1. Pieces, not tiles. Every role of both CTAs walks the same pieces: a unit (v6b's grouped order,
//     TileSchedule<Grouped>::tile_of_unit) and a range [k_begin, k_end) of its K tiles. The producer loads
//     those K tiles, the MMA thread overwrites the accumulator at k_begin, and the ring's stage and phase
//     carry across pieces as they carried across tiles.
//  2. The fixup (stream-K), in the epilogue, by each warp for its own 32 TMEM rows: a piece that ends a
//     unit's later segment (Partial) leaves its fp32 sums in a 32 KB slot of the workspace and raises the
//     slot's flag (st.release.gpu, after __syncwarp); the worker of the unit's first segment (Finisher) waits
//     for the later workers' flags (ld.acquire.gpu), lowers them for the next launch, and adds their partials
//     to its own in K order before it stores C: the order is the plan's, so runs are bit-identical. Whole
//     pieces are stored as in v6. The finisher reaches a split unit at the end of its range, the partial
//     writers at the start of theirs: every worker is resident (the persistent grid), nobody waits in a cycle.
//  3. Cluster Launch Control (v7clc), in a file of its own (clc_handout.cuh): one cluster per unit instead of
//     one per SM, a running cluster taking over the unit of one not launched yet. Each role walks its work
//     through clc_handout::Work<CLC, role>: the plan's pieces, or CLC's whole units; the kernel declares
//     the CLC ring's arrays (static shared memory) and hands them over.
// Why it helps: stream-K gives every SM the same amount of work when the units do not fill the GPU (skinny
// and small shapes, a last wave); CLC lets the GPU balance whole units at run time (a slow cluster takes
// fewer), and a cluster that never gets an SM costs nothing. What it costs: stream-K, a 32 KB partial written
// and read per warp and split unit, and a pipeline that drains at every piece; CLC, a 16-byte response and
// two barrier operations per unit and reader. The plans' picking rule (v7d) is the Hopper twin's, whose cost
// constant was measured on an H100: unmeasured on Blackwell.
//
// PTX ISA sections: as v6, plus "clusterlaunchcontrol" (try_cancel .multicast::cluster::all, query_cancel),
// "ld" / "st" with .acquire / .release at .gpu scope (the fixup's flags).
//
// Status: compiled for sm_100a and sm_103a; not run on Blackwell hardware by this project, so no number of
// its own. Through the tcgen05 emulator (common/tcgen05_emu.h, which also emulates Cluster Launch Control)
// every variant passes against cuBLAS on an H100:
// `matmul_v7 --emulate` (correctness only; emulation times nothing). Also model-checked: SASS per kernel,
// the layout model, the protocol model.
#include <cuda_bf16.h>

#include <memory>

#include "common/check.h"
#include "common/clc.cuh"
#include "common/descriptors.cuh"
#include "common/edge.h"
#include "common/fixup_memory.h"
#include "common/harness.h"
#include "common/persistent_grid.h"
#include "common/profiler.cuh"
#include "common/ptx.cuh"
#include "common/scheduler.h"
#include "common/streamk.h"
#include "common/tcgen05.cuh"
#include "common/tma.h"

namespace gemm {
namespace {

// ---- configuration ----
constexpr int BLOCK_M     = 128;      // this CTA's rows of A and of C: all 128 TMEM lanes
constexpr int BLOCK_N     = 256;      // = MMA N, the pair's N (cta_group::2 allows N = 16..256, step 16)
constexpr int CLUSTER_SIZE = 2;       // the CTA pair of one MMA: two M tiles, one N tile
constexpr int MMA_M       = CLUSTER_SIZE * BLOCK_M;  // 256: the pair's rows
constexpr int CTA_GROUP   = CLUSTER_SIZE;            // every tcgen05 instruction's .cta_group
constexpr uint16_t CLUSTER_MASK = (1u << CLUSTER_SIZE) - 1;  // commits multicast to both CTAs: 0b11
constexpr int GROUP_M     = 16;       // the unit -> tile map: grouped, M tiles (8 cluster pairs) per group
constexpr int BLOCK_K     = 64;       // K of one tile load: 128 bytes of bf16
constexpr int MMA_K       = 16;       // fixed for kind::f16: 32 bytes of K per MMA
constexpr int SLICE_K     = 64;       // one 128-byte slice of K: the width of a 128B swizzle atom
constexpr int EPILOGUE_WARP0     = 2;  // warps 2..5: the epilogue
constexpr int NUM_EPILOGUE_WARPS = 4;  // one per 32-lane TMEM quarter
constexpr int NUM_THREADS = (EPILOGUE_WARP0 + NUM_EPILOGUE_WARPS) * 32;  // 6 warps: TMA, MMA, 4 x epilogue
constexpr int NUM_ACCUMULATORS = 2;   // the TMEM ring: the MMAs fill one while the epilogue drains the other
constexpr int TMEM_COLS   = NUM_ACCUMULATORS * BLOCK_N;  // one fp32 TMEM column per output column, twice
// tmem_empty_bar's count: every epilogue warp of both CTAs (CTA 0's MMAs write both CTAs' TMEM)
constexpr uint32_t EPILOGUE_ARRIVALS = NUM_EPILOGUE_WARPS * CLUSTER_SIZE;
// Stream-K (v7a-v7d): the fixup's unit of exchange is one epilogue warp's share of a tile, its 32 TMEM lanes
// (rows) x BLOCK_N columns of fp32: 32 KB, with one flag. Laid out chunk-major ([BLOCK_N / 8][32 lanes][8]) so
// that one warp's 8 columns of all 32 rows are 1 KB contiguous in global memory.
constexpr int PARTIAL_FLOATS = 32 * BLOCK_N;
constexpr int MIN_SK_ITERS = 4;  // v7b, v7c: no stream-K range shorter than this many K tiles (the Hopper twin's)
constexpr int FIXUP_ITERS  = 4;  // v7d's rule: a partial written or read costs ~4 K tiles (measured on Hopper)

constexpr KMajorTile A_TILE{BLOCK_M, BLOCK_K, 2, Swizzle::B128};
constexpr KMajorTile B_TILE{BLOCK_N / CLUSTER_SIZE, BLOCK_K, 2, Swizzle::B128};  // this CTA's half of B
constexpr uint32_t A_TILE_BYTES = kmajor_tile_bytes(A_TILE);
constexpr uint32_t B_TILE_BYTES = kmajor_tile_bytes(B_TILE);
constexpr uint32_t STAGE_BYTES  = A_TILE_BYTES + B_TILE_BYTES;  // one ring stage: [A tile][B tile]
// The ring's layout must be the same in both CTAs: the MMA reads the peer's tiles at the offsets of CTA 0's
// descriptors, and the commits arrive at the offset of CTA 0's barrier in each CTA. It is a function of
// these constants only (no CTA rank), and the barriers are static shared memory, laid out identically by the
// compiler for every CTA of the kernel: nothing here can differ between the two CTAs.
GEMM_HD constexpr uint32_t a_tile_offset(int s) { return uint32_t(s) * STAGE_BYTES; }
GEMM_HD constexpr uint32_t b_tile_offset(int s) { return uint32_t(s) * STAGE_BYTES + A_TILE_BYTES; }
// Ring depth: as many stages as fit in the 227 KB a block may have, after the alignment slack and the
// barriers and TMEM slot (static shared memory, under 1 KB). The accumulators live in TMEM, so the
// persistent loop takes no shared memory from the ring.
constexpr uint32_t SMEM_BUDGET = 227 * 1024;
constexpr int NUM_STAGES       = int((SMEM_BUDGET - SMEM_ALIGN - 1024) / STAGE_BYTES);
constexpr uint32_t SMEM_BYTES  = NUM_STAGES * STAGE_BYTES + SMEM_ALIGN;
// kind::f16, BF16 x BF16 -> F32, both K-major, M = 256, N = 256.
constexpr uint32_t IDESC = make_idesc_f16(F16Kind::BF16, F16Kind::BF16, AccKind::F32, MMA_M, BLOCK_N);

static_assert(BLOCK_M == 128 && MMA_M == 256, "cta_group::2 M=256 MMA: 128 rows per CTA, one per TMEM lane");
static_assert(BLOCK_N % 16 == 0 && BLOCK_N >= 16 && BLOCK_N <= 256, "MMA N must be 16..256 in steps of 16");
static_assert(CLUSTER_SIZE == 2 && CTA_GROUP == 2, "cta_group::2 spans exactly the 2 CTAs of the cluster");
static_assert(BLOCK_N % (16 * CLUSTER_SIZE) == 0, "each CTA holds a whole half of B");
static_assert(b_tile_offset(1) - b_tile_offset(0) == STAGE_BYTES && a_tile_offset(0) == 0 &&
                  b_tile_offset(NUM_STAGES - 1) + B_TILE_BYTES == NUM_STAGES * STAGE_BYTES,
              "the ring layout: [A_s B_s] per stage, contiguous, from the 1024-B aligned base");
static_assert(GROUP_M % CLUSTER_SIZE == 0, "the tile order groups whole cluster pairs");
static_assert(BLOCK_K % MMA_K == 0, "a tile holds whole MMA K steps");
static_assert(BLOCK_K % SLICE_K == 0, "a tile holds whole 128-byte swizzle spans of K");
static_assert(A_TILE_BYTES % 1024 == 0 && B_TILE_BYTES % 1024 == 0,
              "tiles are whole 1024-B swizzle atoms, so the B tile after A starts 1024-B aligned too");
static_assert(TMEM_COLS <= 512, "two accumulators of BLOCK_N fp32 columns must fit the 512 TMEM columns");
static_assert(TMEM_COLS >= 32 && (TMEM_COLS & (TMEM_COLS - 1)) == 0, "TMEM allocations are powers of 2 >= 32");
static_assert(NUM_EPILOGUE_WARPS == 4 && EPILOGUE_WARP0 >= 2,
              "one epilogue warp per TMEM lane quarter, after the TMA and MMA warps");
static_assert(NUM_THREADS == 6 * 32, "6 warps: TMA, MMA, 4 epilogue");
static_assert(NUM_ACCUMULATORS == 2, "the accumulator ring's phase flips every second tile");
static_assert(NUM_STAGES >= 2, "a pipeline needs one stage to multiply and at least one to load into");
static_assert(NUM_STAGES == 7, "128-row A and B-half tiles, 64 K: 7 stages of 32 KB fit in 227 KB");
static_assert(SMEM_BYTES <= SMEM_BUDGET,
              "the ring must fit in the 227 KB of shared memory per block: use fewer stages");

// ---- where the TMA box of a K tile goes: the kernel issues exactly this one (tests/test_stage_table.cpp
//      checks it against the layout model's table) ----
// BLOCK_K / 64 2D boxes {64, rows} at K offset k0 + 64 j, box j landing as the j-th [rows x 128 B] slice.
// BLOCK_K = 64: one box, which lands exactly as v5's 3D box did; the 2D map's K extent is K itself, so the
// short last K tile's tail is zero-filled.
constexpr int TMA_BOXES = BLOCK_K / SLICE_K;
GEMM_HD constexpr TmaBox tma_box(KMajorTile tile, int row0, int k0, int j) {
  return {uint32_t(j * tile.rows * 128), {k0 + j * SLICE_K, row0, 0}};
}

// v7clc's handout, Cluster Launch Control: the CLC ring and each role's walk through its units.
#include "v7_streamk/clc_handout.cuh"

// ---- the kernel ----
// TRACE: the in-kernel profiler's `prof.` lines record each warp's waits and issues (--trace); compiled out
// of the TRACE=false instantiation, which is the one checked and timed (common/profiler.cuh).
// CLC: where the work comes from. false (v7a-v7d): a persistent grid, each cluster (worker) walking the pieces
// of a stream-K plan fixed on the host (common/streamk.h), with the fixup through `workspace` and `flags`.
// true (v7clc): one cluster per unit, whole units handed out at run time by Cluster Launch Control
// (clc_handout.cuh).
template <bool TRACE, bool CLC>
__global__ void __launch_bounds__(NUM_THREADS, 1)
    matmul_v7_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                     __nv_bfloat16* c, int m, int n, int k, const StreamKPlan plan, float* workspace,
                     uint32_t* flags, TraceBuffer trace) {
#if defined(GEMM_HAS_TCGEN05)
  extern __shared__ uint8_t smem_raw[];
  uint8_t* ring = align_smem_1024(smem_raw);  // stage s: A tile at s * STAGE_BYTES, then its B tile
  auto a_smem   = [&](int s) { return ring + a_tile_offset(s); };
  auto b_smem   = [&](int s) { return ring + b_tile_offset(s); };
  __shared__ uint64_t tma_full_bar[NUM_STAGES];  // "full" (CTA 0's only): both CTAs' bytes of stage s landed
  __shared__ uint64_t mma_done_bar[NUM_STAGES];  // "empty": the MMAs that read stage s of both CTAs are done
  __shared__ uint64_t tmem_full_bar[NUM_ACCUMULATORS];   // accumulator a holds a finished tile (both CTAs)
  __shared__ uint64_t tmem_empty_bar[NUM_ACCUMULATORS];  // (CTA 0's only) both epilogues have read it
  __shared__ uint32_t tmem_slot;     // tcgen05.alloc writes the TMEM base address here
  // v7clc's ring (clc_handout.cuh): the responses of try_cancel, and their full and empty barriers
  __shared__ clc::Response clc_response[clc_handout::CLC_SLOTS];
  __shared__ uint64_t clc_full_bar[clc_handout::CLC_SLOTS];
  __shared__ uint64_t clc_empty_bar[clc_handout::CLC_SLOTS];
  const clc_handout::Ring clc_ring{clc_response, clc_full_bar, clc_empty_bar};

  const int warp_id = threadIdx.x / 32;
  const int lane    = threadIdx.x % 32;
  // The grid is a row of clusters, blockIdx.x = 2c + rank (cluster dims 2 x 1). A unit is a pair of tiles in
  // v6b's grouped order (TileSchedule<Grouped>::tile_of_unit): the CTA of rank r takes M tile 2p + r of the
  // pair row p and B rows n0 + r * 128. Every role of both CTAs walks the same pieces of work (a unit and a
  // range of its K tiles, common/streamk.h).
  //  - CLC (v7clc): one cluster per unit; whole units, the cluster's own (c) first, then the one each
  //    response names, until a response says that nothing is left;
  //  - otherwise (v7a-v7d): cluster c is worker c of the plan; its pieces are fixed before the launch.
  const int cta_rank   = int(ptx::cluster_ctarank());
  const int tiles_m    = num_tiles(m, BLOCK_M);
  const int tiles_n    = num_tiles(n, BLOCK_N);
  const int cluster_id = int(blockIdx.x) / CLUSTER_SIZE;  // CLC: its first unit; stream-K: its worker index
  const TileSchedule<ScheduleKind::Grouped> order(tiles_m, tiles_n, 1, 0, CLUSTER_SIZE, cta_rank, GROUP_M);
  const int num_k_tiles = gemm::num_k_tiles(k, BLOCK_K);  // the last one may be short: TMA zero-fills it

  Profiler<TRACE> prof(trace, /*role=*/warp_id, /*records=*/true);
  prof.begin(Ev::Setup);

  // ---- setup: barriers by one thread, TMEM by one whole warp ----
  if (warp_id == 0 && ptx::elect_one_sync()) {
    for (int s = 0; s < NUM_STAGES; ++s) {
      ptx::mbarrier_init(&tma_full_bar[s], CLUSTER_SIZE);  // one arrival per CTA's TMA thread (CTA 0's only)
      ptx::mbarrier_init(&mma_done_bar[s], 1);          // one arrival: CTA 0's (multicast) tcgen05.commit
    }
    for (int a = 0; a < NUM_ACCUMULATORS; ++a) {
      ptx::mbarrier_init(&tmem_full_bar[a], 1);                   // CTA 0's multicast commit after a tile
      ptx::mbarrier_init(&tmem_empty_bar[a], EPILOGUE_ARRIVALS);  // every epilogue warp of the unit
    }
    clc_ring.init();
    ptx::fence_mbarrier_init();
  }
  // Cluster barrier 1: both CTAs have started and initialised their barriers before either allocates.
  // tcgen05.alloc.cta_group::2 is an exchange between the pair (in SASS the even CTA writes into the odd
  // CTA's shared memory and arrives on a barrier there): a peer that has not started yet would hang or
  // fault it. CUTLASS and DeepGEMM also allocate only after a cluster barrier.
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
  if (warp_id == 1) {
    tc5::tmem_alloc<CTA_GROUP>(&tmem_slot, TMEM_COLS);  // the pair: with warp 1 of the peer CTA
    tc5::tmem_relinquish_alloc_permit<CTA_GROUP>();
  }
  // Cluster barrier 2: the TMEM address is in tmem_slot, in both CTAs, before anyone reads it.
  tc5::fence_before_thread_sync();
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
  tc5::fence_after_thread_sync();
  const uint32_t tmem_base = tmem_slot;  // accumulator a at columns a * BLOCK_N
  prof.end(Ev::Setup);
  if (warp_id == 0) {
    // ---- producer (warp 0): one thread keeps the ring full, tile after tile ----
    if (ptx::elect_one_sync()) {
      // load: announce this CTA's bytes of K tile `k_tile` on CTA 0's full barrier, then issue the copies of
      // its A rows and its half of B into its own ring stage `s`, completing on that same barrier. A box
      // wholly outside its tensor is neither issued nor announced (its rows of C are never stored).
      auto load = [&](int m0, int b_row0, int k_tile, int s) {
        const bool load_a = m0 < m, load_b = b_row0 < n;
        const uint32_t bytes = (load_a ? A_TILE_BYTES : 0u) + (load_b ? B_TILE_BYTES : 0u);
        const uint32_t full_bar_cta0 = ptx::mapa_shared_cluster(&tma_full_bar[s], 0);
        ptx::mbarrier_arrive_expect_tx_cluster(full_bar_cta0, bytes);
        const int k0 = k_tile * BLOCK_K;
        for (int j = 0; j < TMA_BOXES; ++j) {
          const TmaBox a = tma_box(A_TILE, m0, k0, j);
          const TmaBox b = tma_box(B_TILE, b_row0, k0, j);
          if (load_a)
            tc5::tma_load_2d_cta_group2(a_smem(s) + a.smem_offset, &a_map, full_bar_cta0, a.coords[0],
                                        a.coords[1]);
          if (load_b)
            tc5::tma_load_2d_cta_group2(b_smem(s) + b.smem_offset, &b_map, full_bar_cta0, b.coords[0],
                                        b.coords[1]);
        }
      };
      int stage            = 0;  // ring stage of the next load: carries across tiles
      uint32_t empty_phase = 1;  // parity of the "empty" phase to wait for: 1 passes at once on the first lap
      clc_handout::Work<CLC, clc_handout::PRODUCER> work(plan, cluster_id, clc_ring, num_k_tiles, cta_rank);
      StreamKPiece piece;
      bool more = work.first(piece);
      while (more) {
        const ScheduledTile t = order.tile_of_unit(piece.unit);
        const int m0 = t.m * BLOCK_M, b_row0 = t.n * BLOCK_N + cta_rank * B_TILE.rows;
        for (int k_tile = piece.k_begin; k_tile < piece.k_end; ++k_tile) {
          prof.begin(Ev::WaitEmpty);
          ptx::mbarrier_wait(&mma_done_bar[stage], empty_phase, "mma_done_bar");
          prof.end(Ev::WaitEmpty);
          prof.begin(Ev::IssueTma);
          load(m0, b_row0, k_tile, stage);
          prof.end(Ev::IssueTma);
          if (++stage == NUM_STAGES) {
            stage = 0;
            empty_phase ^= 1;
          }
        }
        more = work.next(piece);
      }
      // Exit: wait for the release of the last NUM_STAGES loads, so that no commit is still on its way to
      // this CTA's mma_done_bar when it exits: the next CTA on this SM initialises its barriers at the same
      // offsets, and a late arrival would complete a phase of one of them (waits for loads that never were
      // pass at once).
      prof.begin(Ev::WaitEmpty);
      for (int i = 0; i < NUM_STAGES; ++i) {
        ptx::mbarrier_wait(&mma_done_bar[stage], empty_phase, "mma_done_bar");
        if (++stage == NUM_STAGES) {
          stage = 0;
          empty_phase ^= 1;
        }
      }
      prof.end(Ev::WaitEmpty);
    }
    __syncwarp();  // the other 31 lanes sleep here instead of spinning beside the producer thread
  } else if (warp_id == 1 && cta_rank == 0) {
    // ---- mma (warp 1 of CTA 0): one thread issues the pair's MMAs, into one accumulator per tile ----
    if (ptx::elect_one_sync()) {
      int stage           = 0;  // ring stage of the next K tile: carries across tiles
      uint32_t full_phase = 0;  // parity of this use of the stage's "full" barrier: flips when `stage` wraps
      int acc                  = 0;  // the accumulator of this tile: carries across tiles
      uint32_t acc_empty_phase = 1;  // parity of tmem_empty_bar[acc] to wait for: 1 passes on the first lap
      clc_handout::Work<CLC, clc_handout::MMA> work(plan, cluster_id, clc_ring, num_k_tiles, cta_rank);
      StreamKPiece piece;
      bool more = work.first(piece);
      while (more) {
        // wait until the epilogues of both CTAs have read this accumulator's previous tile
        prof.begin(Ev::WaitEmpty);
        ptx::mbarrier_wait(&tmem_empty_bar[acc], acc_empty_phase, "tmem_empty_bar");
        prof.end(Ev::WaitEmpty);
        tc5::fence_after_thread_sync();
        const uint32_t tmem_acc = tmem_base + uint32_t(acc * BLOCK_N);
        for (int k_tile = piece.k_begin; k_tile < piece.k_end; ++k_tile) {
          prof.begin(Ev::WaitFull);
          ptx::mbarrier_wait(&tma_full_bar[stage], full_phase, "tma_full_bar");
          prof.end(Ev::WaitFull);
          tc5::fence_after_thread_sync();

          // compute: BLOCK_K/16 MMAs; the first of the tile's K loop overwrites the accumulator
          prof.begin(Ev::IssueMma);
          const uint32_t a_addr = ptx::smem_addr(a_smem(stage)), b_addr = ptx::smem_addr(b_smem(stage));
#pragma unroll
          for (int k_step = 0; k_step < BLOCK_K / MMA_K; ++k_step) {
            const uint64_t a_desc = kmajor_desc_sm100(A_TILE, a_addr, k_step);
            const uint64_t b_desc = kmajor_desc_sm100(B_TILE, b_addr, k_step);
            tc5::mma_f16_ss<CTA_GROUP>(tmem_acc, a_desc, b_desc, IDESC,
                                          (k_tile > piece.k_begin || k_step > 0) ? 1u : 0u);
          }
          // arrives, in both CTAs, once the MMAs above have read this stage of both: it is empty
          tc5::commit_multicast<CTA_GROUP>(&mma_done_bar[stage], CLUSTER_MASK);
          prof.end(Ev::IssueMma);

          if (++stage == NUM_STAGES) {
            stage = 0;
            full_phase ^= 1;
          }
        }
        // once every MMA of this tile is done: accumulator `acc` holds it, in both CTAs
        tc5::commit_multicast<CTA_GROUP>(&tmem_full_bar[acc], CLUSTER_MASK);
        if (++acc == NUM_ACCUMULATORS) {
          acc = 0;
          acc_empty_phase ^= 1;
        }
        more = work.next(piece);
      }
    }
    __syncwarp();
  } else if (warp_id >= EPILOGUE_WARP0) {
    // ---- epilogue (warps 2-5 of both CTAs): TMEM -> registers -> C, one accumulator per tile ----
    // Warp w may only touch TMEM lanes 32 * (w % 4) .. +31: thread t holds row 32 * (w % 4) + t of the tile.
    const uint32_t lane0  = tmem_warp_lane_base(warp_id);
    const int row_in_tile = int(lane0) + lane;
    const bool vector_stores = n % 8 == 0;  // rows start 16-B aligned: 8 columns in one 16-byte store
    int acc                 = 0;
    uint32_t acc_full_phase = 0;  // parity of tmem_full_bar[acc]: flips when `acc` wraps
    // Stream-K: this warp's share of a partial (its 32 rows), and its flag, for worker w.
    const int quarter  = int(lane0) / 32;
    const auto slot_of = [&](int w) { return (w * CLUSTER_SIZE + cta_rank) * NUM_EPILOGUE_WARPS + quarter; };
    clc_handout::Work<CLC, clc_handout::EPILOGUE> work(plan, cluster_id, clc_ring, num_k_tiles, cta_rank);
    StreamKPiece piece;
    bool more = work.first(piece);
    while (more) {
      const ScheduledTile t = order.tile_of_unit(piece.unit);
      prof.begin(Ev::WaitMma);
      ptx::mbarrier_wait(&tmem_full_bar[acc], acc_full_phase, "tmem_full_bar");
      prof.end(Ev::WaitMma);
      __syncwarp();  // the warp is converged again before the .sync.aligned TMEM loads
      tc5::fence_after_thread_sync();

      prof.begin(Ev::Epilogue);
      // The valid part of an edge tile (common/edge.h): 0 rows for a padding tile, which stores nothing.
      const int rows_valid = tile_extent(m, BLOCK_M, t.m);
      const int cols_valid = tile_extent(n, BLOCK_N, t.n);
      const bool row_ok    = row_in_tile < rows_valid;
      __nv_bfloat16* c_row = c + (row_ok ? size_t(t.m * BLOCK_M + row_in_tile) * size_t(n) : 0) +
                             size_t(t.n) * BLOCK_N;
      // Stream-K's fixup, by each warp for its 32 rows (a padding tile, t.valid false, takes no part in it: its
      // writer and its finisher are CTAs of the same rank, and both skip it). A partial piece leaves its fp32
      // sums in this worker's slot and raises the slot's flag with release semantics after __syncwarp (which
      // orders the other lanes' stores before lane 0's release). A finisher first waits for the flags of the
      // later segments' workers (acquire), one lane per segment, lowers each for the next launch, and then adds
      // their partials to its own sums in K order: the order is the plan's, so two runs give the same bits.
      const bool partial  = piece.role == StreamKPiece::Partial;
      const bool finisher = piece.role == StreamKPiece::Finisher && t.valid;
      const int last      = finisher ? plan.last_worker(piece.unit) : cluster_id;
      if (partial && t.valid) {
        float* part = workspace + size_t(slot_of(cluster_id)) * PARTIAL_FLOATS + lane * 8;
        for (int col = 0; col < cols_valid; col += 8) {
          float v[8];
          tc5::ld_32x32b_x8(tmem_addr(tmem_base, lane0, uint32_t(acc * BLOCK_N + col)), v);
          tc5::wait_ld();
          __stcg(reinterpret_cast<float4*>(part + col * 32), make_float4(v[0], v[1], v[2], v[3]));
          __stcg(reinterpret_cast<float4*>(part + col * 32 + 4), make_float4(v[4], v[5], v[6], v[7]));
        }
        __syncwarp();
        if (lane == 0) ptx::st_release_gpu(flags + slot_of(cluster_id), 1u);
      }
      if (finisher) {
        // lane i waits for the flag of segment i + 1, i + 33, ...: the waits overlap instead of queueing (v8's
        // Hopper kernel measured the serial form's round trips at 10% of 256 x 256 x 8192 on its narrow pairs;
        // v7's Hopper twin keeps the serial form)
        for (int w = cluster_id + 1 + lane; w <= last; w += 32) {
          while (ptx::ld_acquire_gpu(flags + slot_of(w)) == 0) {
          }
          flags[slot_of(w)] = 0;  // consumed: 0 again for the next launch (whose writer comes after this one)
        }
        __syncwarp();
      }
      // Chunks wholly past N are skipped by the whole warp (cols_valid is warp-uniform).
#pragma unroll 4
      for (int col = 0; col < (partial ? 0 : cols_valid); col += 8) {
        float v[8];
        tc5::ld_32x32b_x8(tmem_addr(tmem_base, lane0, uint32_t(acc * BLOCK_N + col)), v);
        tc5::wait_ld();
#pragma unroll 4  // four partials' loads issued before their adds
        for (int w = cluster_id + 1; w <= last; ++w) {  // the finisher: the later segments, in K order
          const float* part = workspace + size_t(slot_of(w)) * PARTIAL_FLOATS + lane * 8 + col * 32;
          const float4 lo = __ldcg(reinterpret_cast<const float4*>(part));
          const float4 hi = __ldcg(reinterpret_cast<const float4*>(part + 4));
          v[0] += lo.x, v[1] += lo.y, v[2] += lo.z, v[3] += lo.w;
          v[4] += hi.x, v[5] += hi.y, v[6] += hi.z, v[7] += hi.w;
        }
        if (row_ok) {
          if (vector_stores && col + 8 <= cols_valid) {
            __nv_bfloat162 packed[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) packed[i] = __floats2bfloat162_rn(v[2 * i], v[2 * i + 1]);
            *reinterpret_cast<uint4*>(c_row + col) = *reinterpret_cast<const uint4*>(packed);
          } else {
#pragma unroll
            for (int i = 0; i < 8; ++i)
              if (col + i < cols_valid) c_row[col + i] = __float2bfloat16_rn(v[i]);
          }
        }
      }
      prof.end(Ev::Epilogue);

      // Release the accumulator to CTA 0's MMA thread: the loads above are complete (wait::ld), and the
      // fence orders them before the arrival (PTX ISA "tcgen05 Memory Consistency Model": tcgen05.ld,
      // wait::ld, fence::before_thread_sync, mbarrier.arrive.relaxed.cluster). One arrival per warp.
      tc5::fence_before_thread_sync();
      __syncwarp();
      // (The barrier's address is computed here, not kept in a 2-entry array: an array of registers indexed
      // by the runtime `acc` would go to local memory.)
      if (lane == 0) ptx::mbarrier_arrive_cluster(ptx::mapa_shared_cluster(&tmem_empty_bar[acc], 0));
      if (++acc == NUM_ACCUMULATORS) {
        acc = 0;
        acc_full_phase ^= 1;
      }
      more = work.next(piece);
    }
  }

  // ---- teardown: every TMEM read of BOTH CTAs is done before the allocating warps free the pair's TMEM;
  //      the cluster barrier also keeps each CTA alive while the peer may still signal its barriers ----
  prof.begin(Ev::Teardown);
  tc5::fence_before_thread_sync();
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
  if (warp_id == 1) {
    tc5::fence_after_thread_sync();
    tc5::tmem_dealloc<CTA_GROUP>(tmem_base, TMEM_COLS);  // the pair: with warp 1 of the peer CTA
  }
  prof.end(Ev::Teardown);
#elif defined(__CUDA_ARCH__)
  __trap();  // compiled for a GPU without tcgen05: fail loudly, never return with C unwritten
#endif  // GEMM_HAS_TCGEN05
}

// ---- host launcher ----
// With `trace`: the TRACE=true instantiation, recording into a buffer sized from the grid (--trace).
// CLC: one cluster per unit (v7clc). Otherwise the plan's policy, or (PICK) the picking rule's choice.
template <bool CLC, StreamKPolicy POLICY, bool PICK>
Launch prepare_v7(const GemmArgs& g, DeviceTrace* trace) {
  // B's tensor map is N rows high: B is [N, K] (seed 000's first version got this wrong). Its box is one
  // CTA's half of the MMA's N. 2D maps: their K extent is K itself, so a short last K tile is zero-filled.
  const TmaDesc a_desc = kmajor_tma_2d(g.m, g.k, BLOCK_M, SLICE_K, 2, Swizzle::B128);
  const TmaDesc b_desc = kmajor_tma_2d(g.n, g.k, B_TILE.rows, SLICE_K, 2, Swizzle::B128);
  const CUtensorMap a_map = make_tensor_map(a_desc, g.a, "A");
  const CUtensorMap b_map = make_tensor_map(b_desc, g.b, "B");
  auto* kernel = trace ? matmul_v7_kernel<true, CLC> : matmul_v7_kernel<false, CLC>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
  auto* c = static_cast<__nv_bfloat16*>(g.c);
  const int m = int(g.m), n = int(g.n), k = int(g.k);
  const int tiles_m = num_tiles(g.m, BLOCK_M), tiles_n = num_tiles(g.n, BLOCK_N);
  const int units = num_tiles(tiles_m, CLUSTER_SIZE) * tiles_n, iters = num_k_tiles(g.k, BLOCK_K);
  // A cluster of 2 CTAs along x: blockIdx.x 2c and 2c + 1. The persistent grid's query also says how many
  // clusters fit at once (stream-K's workers; the trace's estimate for CLC).
  PersistentGrid grid = persistent_grid(kernel, NUM_THREADS, SMEM_BYTES, CLUSTER_SIZE, tiles_m, tiles_n, "v7");
  // The plan (the Hopper twin's): data-parallel on v6's grid, at most one cluster per unit; stream-K and
  // hybrid on every cluster that can be resident (a finisher waits for other workers, which must all be
  // running), or only as many as the plan gives a stream-K range where it has no whole units. The picking
  // rule's constant is the Hopper twin's measurement: unmeasured on Blackwell.
  StreamKPolicy policy = POLICY;
  int min_iters        = MIN_SK_ITERS;
  if (PICK) {
    const StreamKChoice choice = pick_streamk(units, iters, grid.max_clusters, FIXUP_ITERS);
    policy                     = choice.policy;
    min_iters                  = choice.min_iters;
  }
  const int workers      = policy == StreamKPolicy::DataParallel ? grid.clusters : grid.max_clusters;
  const StreamKPlan plan = make_streamk_plan(units, iters, workers, policy, min_iters);
  // v7clc: one cluster per unit instead (clc_handout.cuh), whose kernel reads no plan: the GPU starts as many
  // as fit; the others are canceled by the running ones or start when an SM frees up.
  grid.resize(CLC ? units : plan.dp_units > 0 ? plan.workers : plan.sk_workers);
  std::shared_ptr<FixupMemory> fixup;
  if (plan.sk_workers > 0)  // one partial and one flag per epilogue warp of each CTA (common/fixup_memory.h)
    fixup = std::make_shared<FixupMemory>(size_t(grid.clusters * CLUSTER_SIZE) * NUM_EPILOGUE_WARPS,
                                          PARTIAL_FLOATS);
  float* workspace = fixup ? fixup->workspace : nullptr;
  uint32_t* flags  = fixup ? fixup->flags : nullptr;
  TraceBuffer buf;  // --trace: per CTA and warp, setup, 2 events per K tile or per piece, the tail, teardown
  if (trace) {
    uint32_t most = CLC ? clc_handout::trace_events(units, grid.max_clusters, iters) : 0;
    for (int w = 0; !CLC && w < grid.clusters; ++w) {
      uint32_t events = 0;
      StreamKWork work(plan, w);
      for (StreamKPiece p; work.next(p);) events += uint32_t(2 * (p.k_end - p.k_begin) + 2);
      most = events > most ? events : most;
    }
    buf = trace->allocate(grid.cfg.gridDim.x,
                          {"warp 0 TMA", "warp 1 MMA", "warp 2 epilogue", "warp 3 epilogue",
                           "warp 4 epilogue", "warp 5 epilogue"},
                          most + 8);
  }
  return [=](cudaStream_t stream) mutable {
    grid.launch(stream, kernel, a_map, b_map, c, m, n, k, plan, workspace, flags, buf);
    (void)fixup;  // held by the launch: the workspace lives as long as any copy of it
  };
}
template <bool CLC, StreamKPolicy POLICY = StreamKPolicy::DataParallel, bool PICK = false>
Launch prepare_v7_untraced(const GemmArgs& g) {
  return prepare_v7<CLC, POLICY, PICK>(g, nullptr);
}
template <bool CLC, StreamKPolicy POLICY = StreamKPolicy::DataParallel, bool PICK = false>
Launch prepare_v7_traced(const GemmArgs& g, DeviceTrace& trace) {
  return prepare_v7<CLC, POLICY, PICK>(g, &trace);
}

}  // namespace

std::vector<Variant> sm100_variants() {
  const ShapeRule any_mn = any_mn_shape_rule(2);  // any M and N; K a multiple of 8 (the TMA stride rule)
  const char* kernel = "sm_100a tcgen05 kernel (v7_streamk/matmul_v7.cu)";
  SmemTiles tiles{A_TILE, B_TILE, BLOCK_M, /*tma_3d=*/false, NUM_STAGES, SLICE_K, TMA_BOXES, tma_box};
  tiles.cta_group = CTA_GROUP;  // the MMA spans the pair: M = 2 x 128, N = 2 x B_TILE.rows
  // The Hopper twin's four plans, and Cluster Launch Control. Which is fastest on Blackwell cannot be
  // measured here (no Blackwell GPU): the default, v7d, is the Hopper twin's by its measurement.
  using P = StreamKPolicy;
  return {
      {"v7a", "v6b's schedule as a plan: whole units only (data-parallel)", kernel, any_mn, tiles,
       prepare_v7_untraced<false, P::DataParallel>, prepare_v7_traced<false, P::DataParallel>},
      {"v7b", "stream-K: all K iterations split evenly, fixup through TMEM and a workspace", kernel, any_mn,
       tiles, prepare_v7_untraced<false, P::StreamK>, prepare_v7_traced<false, P::StreamK>},
      {"v7c", "hybrid: whole waves, stream-K for the last 1-2", kernel, any_mn, tiles,
       prepare_v7_untraced<false, P::Hybrid>, prepare_v7_traced<false, P::Hybrid>},
      {"v7d", "picked per shape: v7a, or stream-K split to the cost model; the default", kernel, any_mn, tiles,
       prepare_v7_untraced<false, P::DataParallel, true>, prepare_v7_traced<false, P::DataParallel, true>},
      {"v7clc", "one cluster per unit, Cluster Launch Control (try_cancel), whole units; v6's TMEM double "
                "buffer, any M/N",
       kernel, any_mn, tiles, prepare_v7_untraced<true>, prepare_v7_traced<true>},
  };
}

}  // namespace gemm
