// matmul_v6.cu: stage 6 on Blackwell (sm_100a): the persistent kernel. One CTA per SM, in 2-CTA clusters,
// each cluster looping over 256x256 output tiles; the accumulator is double-buffered in TMEM so that the
// epilogue of one tile runs while the MMAs of the next are already under way. Any M and N.
//
// C[M,N] = A[M,K] * B[N,K]^T, bf16 in and out, fp32 accumulation, both operands K-major.
//
// What changed since v5 (seed 000, "Persistent kernel (with static scheduling)"), in four parts:
//  1. Persistence: a persistent grid, as many 2-CTA clusters as can be resident at once
//     (cudaOccupancyMaxActiveClusters: one CTA per SM, the ring fills its shared memory), at most one per
//     unit of work, each looping over 256x256 tiles (the cluster is v5's: dims 2 x 1, blockIdx.x = 2c +
//     rank). The ring's stage index and phase carry across tiles (never k_tile % NUM_STAGES from zero per
//     tile: the next tile's loads go into the stages the last tile has just freed).
//  2. The second ring, mainloop -> epilogue, over TMEM: two accumulators of BLOCK_N columns (all 512
//     columns), each with a tmem_full / tmem_empty barrier pair. The MMA thread waits until the epilogues of
//     BOTH CTAs have read accumulator `acc` (tmem_empty_bar, CTA 0's: 4 warps x 2 CTAs = 8 arrivals, CTA 1's
//     through mapa), fills it, and commits tmem_full_bar[acc] to both CTAs. The accumulator index and its
//     phase carry across tiles too. The epilogue gets warps of its own: six warps, warp 0 TMA, warp 1 MMA
//     (CTA 0 of the pair) and TMEM allocation, warps 2-5 the epilogue. A warp may only touch the TMEM lanes
//     of its quarter, 32 * (warp % 4) .. +31, so epilogue warp w handles rows 32 * (w % 4) + lane: warps 4,
//     5, 2, 3 take rows 0, 32, 64, 96.
//  3. The schedules: each cluster walks its tiles in the order of common/scheduler.h, one variant each: v6a
//     static (the seed's round-robin over v5's order, N fastest), v6b grouped (GROUP_M rows of tiles walked
//     together, common/tile_order.h), v6c Hilbert. Every role of both CTAs keeps its own copy of the
//     schedule; all copies see the same tiles, so the pair stays in step.
//  4. The edges: any M >= 1, N >= 1, K a multiple of 8 (the TMA global stride rule; common/edge.h):
//     - loads: 2D tensor maps (K extent = K itself) so that the boxes past M, N and K are zero-filled by TMA,
//       the short last K tile included (the 3D maps of v5 cut K into 64-element slices and would drop a
//       tail). With one 64-wide box per operand and K tile, the 2D box lands exactly as v5's 3D one did.
//     - a box wholly outside its tensor is not issued at all (the A rows of the padding tile a rank-1 CTA
//       gets when tiles_m is odd; B rows past N when N - n0 <= 128), and its bytes are not announced: no
//       reliance on the unverified wholly-outside case (common/edge.h). The stale shared memory the MMA
//       then reads only reaches accumulator rows or columns that lie outside C and are never stored.
//     - stores: predicated st.global from registers (row < valid rows, column < valid columns), one 16-byte
//       store per 8 columns where N % 8 == 0, element by element elsewhere. Why not a TMA store (it clips by
//       itself): it needs N % 8 == 0 (C's row stride), so a direct store must exist anyway for the other N;
//       it needs a staging tile in shared memory (64 KB for 128x256 bf16, two of the seven ring stages);
//       and the TMEM double buffer already hides the epilogue behind the next tile's main loop, which is the
//       point of this stage. One code path for every N, the ring untouched.
//
// Why it helps: setup (barrier init, TMEM alloc, cluster barriers) is paid once per SM instead of once per
// tile, and the tensor cores no longer idle while the epilogue drains TMEM: with two accumulators the MMA
// of tile i+1 runs during the epilogue of tile i. The grouped and Hilbert schedules keep the tiles that run
// together close in C, so that their A and B blocks are L2 hits.
// What it costs: all 512 TMEM columns (one CTA per SM, which the ring forces anyway); two more warps; a
// second ring to get right; the last wave may leave SMs idle (fewer tiles left than clusters).
//
// PTX ISA sections: as v5, plus "cp.async.bulk.tensor" (2D, .cta_group::2, out-of-bound fill),
// "Tensor Memory Allocation" (512 columns), "tcgen05 Memory Consistency Model" (fence::before_thread_sync
// with a relaxed cluster arrive: "Non-pipelined instructions, different thread").
//
// Status: compiled for sm_100a and sm_103a and model-checked (tests/test_layout_model.cpp, the CUTLASS
// cross-check, SASS tests); not run on Blackwell hardware by this project. Published B200 anchor (seed 000):
// v6 1476 TFLOPS at 4096^3 (cuBLAS 1507; its v5: 1302), a static schedule, with BLOCK_N 256, BLOCK_K 64 and
// 7 stages (the code the seed links; its text states only BLOCK_M 128 and the static schedule).
// Through the tcgen05 emulator (common/tcgen05_emu.h) it passes against cuBLAS on an H100, under both
// MMA schedules: `matmul_v6 --emulate` (correctness only; emulation times nothing).
#include <cuda_bf16.h>

#include "common/check.h"
#include "common/descriptors.cuh"
#include "common/edge.h"
#include "common/harness.h"
#include "common/persistent_grid.h"
#include "common/profiler.cuh"
#include "common/ptx.cuh"
#include "common/scheduler.h"
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
constexpr int GROUP_M     = 16;       // v6b's tile order: M tiles (8 cluster pairs) per group
constexpr int BLOCK_K     = 64;       // K of one tile load: 128 bytes of bf16
constexpr int MMA_K       = 16;       // fixed for kind::f16: 32 bytes of K per MMA
constexpr int SLICE_K     = 64;       // one 128-byte slice of K: the width of a 128B swizzle atom
constexpr int EPILOGUE_WARP0     = 2;  // warps 2..5: the epilogue
constexpr int NUM_EPILOGUE_WARPS = 4;  // one per 32-lane TMEM quarter
constexpr int NUM_THREADS = (EPILOGUE_WARP0 + NUM_EPILOGUE_WARPS) * 32;  // 6 warps: TMA, MMA, 4 x epilogue
constexpr int NUM_ACCUMULATORS = 2;   // the TMEM ring: the MMAs fill one while the epilogue drains the other
constexpr int TMEM_COLS   = NUM_ACCUMULATORS * BLOCK_N;  // one fp32 TMEM column per output column, twice
// tmem_empty_bar's count: every epilogue warp of BOTH CTAs (CTA 0's MMAs write the pair's TMEM)
constexpr uint32_t EPILOGUE_ARRIVALS = NUM_EPILOGUE_WARPS * CLUSTER_SIZE;

constexpr KMajorTile A_TILE{BLOCK_M, BLOCK_K, 2, Swizzle::B128};
constexpr KMajorTile B_TILE{BLOCK_N / CLUSTER_SIZE, BLOCK_K, 2, Swizzle::B128};  // this CTA's half of B
constexpr uint32_t A_TILE_BYTES = kmajor_tile_bytes(A_TILE);
constexpr uint32_t B_TILE_BYTES = kmajor_tile_bytes(B_TILE);
constexpr uint32_t STAGE_BYTES  = A_TILE_BYTES + B_TILE_BYTES;  // one ring stage: [A tile][B tile]
// The ring's layout must be the same in both CTAs: the MMA reads the peer's tiles at the offsets of CTA 0's
// descriptors, and the commits arrive at the offset of CTA 0's barrier in each CTA. It is a function of these
// constants only (no CTA rank), and the barriers are static shared memory, laid out identically by the
// compiler for every CTA of the kernel: nothing here can differ between the two CTAs.
GEMM_HD constexpr uint32_t a_tile_offset(int s) { return uint32_t(s) * STAGE_BYTES; }
GEMM_HD constexpr uint32_t b_tile_offset(int s) { return uint32_t(s) * STAGE_BYTES + A_TILE_BYTES; }
// Ring depth: as many stages as fit in the 227 KB a block may have, after the alignment slack and the
// barriers and TMEM slot (static shared memory, under 1 KB): 7 x 32 KB. The accumulators live in TMEM, so
// the persistent loop takes no shared memory from the ring.
constexpr uint32_t SMEM_BUDGET = 227 * 1024;
constexpr int NUM_STAGES       = int((SMEM_BUDGET - SMEM_ALIGN - 1024) / STAGE_BYTES);
constexpr uint32_t SMEM_BYTES  = NUM_STAGES * STAGE_BYTES + SMEM_ALIGN;
// kind::f16, BF16 x BF16 -> F32, both K-major, M = 256 (the pair), N = BLOCK_N.
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

// ---- the kernel ----
// TRACE: the in-kernel profiler's `prof.` lines record each warp's waits and issues (--trace); compiled out
// of the TRACE=false instantiation, which is the one checked and timed (common/profiler.cuh).
// SCHEDULE: the order of the tiles (common/scheduler.h), one variant each.
template <bool TRACE, ScheduleKind SCHEDULE>
__global__ void __launch_bounds__(NUM_THREADS, 1)
    matmul_v6_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                     __nv_bfloat16* c, int m, int n, int k, TraceBuffer trace) {
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

  const int warp_id = threadIdx.x / 32;
  const int lane    = threadIdx.x % 32;
  // The grid is a row of clusters, blockIdx.x = 2c + rank (cluster dims 2 x 1). Cluster c walks units
  // c, c + clusters, ... of the schedule's order; on every turn the CTA of rank r takes M tile 2p + r of the
  // pair row p and B rows n0 + r * 128. Each role below builds its own copy of the schedule.
  const int cta_rank    = int(ptx::cluster_ctarank());
  const int tiles_m     = num_tiles(m, BLOCK_M);
  const int tiles_n     = num_tiles(n, BLOCK_N);
  const auto schedule   = [&] {
    return TileSchedule<SCHEDULE>(tiles_m, tiles_n, int(gridDim.x) / CLUSTER_SIZE,
                                  int(blockIdx.x) / CLUSTER_SIZE, CLUSTER_SIZE, cta_rank, GROUP_M);
  };
  Profiler<TRACE> prof(trace, /*role=*/warp_id, /*records=*/true);
  prof.begin(Ev::Setup);

  // ---- setup: barriers by one thread, TMEM by one whole warp ----
  if (warp_id == 0 && ptx::elect_one_sync()) {
    for (int s = 0; s < NUM_STAGES; ++s) {
      ptx::mbarrier_init(&tma_full_bar[s], CLUSTER_SIZE);  // one arrival per CTA's TMA thread (CTA 0's only)
      ptx::mbarrier_init(&mma_done_bar[s], 1);             // one arrival: CTA 0's multicast tcgen05.commit
    }
    for (int a = 0; a < NUM_ACCUMULATORS; ++a) {
      ptx::mbarrier_init(&tmem_full_bar[a], 1);                   // CTA 0's multicast commit after a tile
      ptx::mbarrier_init(&tmem_empty_bar[a], EPILOGUE_ARRIVALS);  // every epilogue warp of the pair (CTA 0's)
    }
    ptx::fence_mbarrier_init();
  }
  // Cluster barrier 1: both CTAs have started and initialised their barriers before either allocates.
  // tcgen05.alloc.cta_group::2 is an exchange between the pair (in SASS the even CTA writes into the odd
  // CTA's shared memory and arrives on a barrier there): a peer that has not started yet would hang or
  // fault it. CUTLASS and DeepGEMM also allocate only after a cluster barrier.
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
  if (warp_id == 1) {
    tc5::tmem_alloc<CTA_GROUP>(&tmem_slot, TMEM_COLS);  // with warp 1 of the peer CTA
    tc5::tmem_relinquish_alloc_permit<CTA_GROUP>();
  }
  // Cluster barrier 2: the TMEM address is in tmem_slot, in both CTAs, before anyone reads it.
  tc5::fence_before_thread_sync();
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
  tc5::fence_after_thread_sync();
  const uint32_t tmem_base = tmem_slot;  // accumulator a at columns a * BLOCK_N
  prof.end(Ev::Setup);

  const int num_k_tiles = gemm::num_k_tiles(k, BLOCK_K);  // the last one may be short: TMA zero-fills it
  if (warp_id == 0) {
    // ---- producer (warp 0): one thread keeps the ring full, tile after tile ----
    if (ptx::elect_one_sync()) {
      // load: announce this CTA's bytes of K tile `k_tile` on CTA 0's full barrier, then issue the copies of
      // its A rows and its half of B into its own ring stage `s`, completing on that same barrier. A box
      // wholly outside its tensor is neither issued nor announced (its rows of C are never stored).
      auto load = [&](int m0, int b_row0, int k_tile, int s) {
        const bool load_a = m0 < m, load_b = b_row0 < n;
        const uint32_t full_bar_cta0 = ptx::mapa_shared_cluster(&tma_full_bar[s], 0);
        ptx::mbarrier_arrive_expect_tx_cluster(full_bar_cta0,
                                               (load_a ? A_TILE_BYTES : 0u) + (load_b ? B_TILE_BYTES : 0u));
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
      auto schedule_p      = schedule();
      for (ScheduledTile t; schedule_p.next(t);) {
        const int m0 = t.m * BLOCK_M, b_row0 = t.n * BLOCK_N + cta_rank * B_TILE.rows;
        for (int k_tile = 0; k_tile < num_k_tiles; ++k_tile) {
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
      auto schedule_m          = schedule();
      for (ScheduledTile t; schedule_m.next(t);) {
        // wait until the epilogues of both CTAs have read this accumulator's previous tile
        prof.begin(Ev::WaitEmpty);
        ptx::mbarrier_wait(&tmem_empty_bar[acc], acc_empty_phase, "tmem_empty_bar");
        prof.end(Ev::WaitEmpty);
        tc5::fence_after_thread_sync();
        const uint32_t tmem_acc = tmem_base + uint32_t(acc * BLOCK_N);
        for (int k_tile = 0; k_tile < num_k_tiles; ++k_tile) {
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
                                       (k_tile > 0 || k_step > 0) ? 1u : 0u);
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
    auto schedule_e         = schedule();
    for (ScheduledTile t; schedule_e.next(t);) {
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
      // Chunks wholly past N are skipped by the whole warp (cols_valid is warp-uniform).
#pragma unroll 4
      for (int col = 0; col < cols_valid; col += 8) {
        float v[8];
        tc5::ld_32x32b_x8(tmem_addr(tmem_base, lane0, uint32_t(acc * BLOCK_N + col)), v);
        tc5::wait_ld();
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
    tc5::tmem_dealloc<CTA_GROUP>(tmem_base, TMEM_COLS);  // with warp 1 of the peer CTA
  }
  prof.end(Ev::Teardown);
#elif defined(__CUDA_ARCH__)
  __trap();  // compiled for a GPU without tcgen05: fail loudly, never return with C unwritten
#endif  // GEMM_HAS_TCGEN05
}

// ---- host launcher ----
// With `trace`: the TRACE=true instantiation, recording into a buffer sized from the grid (--trace).
template <ScheduleKind SCHEDULE>
Launch prepare_v6(const GemmArgs& g, DeviceTrace* trace) {
  // B's tensor map is N rows high: B is [N, K] (seed 000's first version got this wrong). Its box is one
  // CTA's half of the MMA's N. 2D maps: their K extent is K itself, so a short last K tile is zero-filled.
  const TmaDesc a_desc = kmajor_tma_2d(g.m, g.k, BLOCK_M, SLICE_K, 2, Swizzle::B128);
  const TmaDesc b_desc = kmajor_tma_2d(g.n, g.k, B_TILE.rows, SLICE_K, 2, Swizzle::B128);
  const CUtensorMap a_map = make_tensor_map(a_desc, g.a, "A");
  const CUtensorMap b_map = make_tensor_map(b_desc, g.b, "B");
  auto* kernel = trace ? matmul_v6_kernel<true, SCHEDULE> : matmul_v6_kernel<false, SCHEDULE>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
  auto* c = static_cast<__nv_bfloat16*>(g.c);
  const int m = int(g.m), n = int(g.n), k = int(g.k);
  // A cluster of CLUSTER_SIZE CTAs along x: blockIdx.x 2c and 2c + 1 run together, on two SMs of one GPC.
  // The persistent grid (common/persistent_grid.h): the clusters that fit on the GPU at once (one CTA per SM:
  // the ring takes the shared memory), never more than there are units of work.
  const int tiles_m = num_tiles(g.m, BLOCK_M), tiles_n = num_tiles(g.n, BLOCK_N);
  PersistentGrid grid = persistent_grid(kernel, NUM_THREADS, SMEM_BYTES, CLUSTER_SIZE, tiles_m, tiles_n, "v6");
  TraceBuffer buf;  // --trace: per CTA and warp, setup, 2 events per K tile or per tile, the tail, teardown
  if (trace) {
    const int turns = ceil_div(int64_t(num_tiles(tiles_m, CLUSTER_SIZE)) * tiles_n, grid.clusters);
    buf = trace->allocate(grid.cfg.gridDim.x,
                          {"warp 0 TMA", "warp 1 MMA", "warp 2 epilogue", "warp 3 epilogue",
                           "warp 4 epilogue", "warp 5 epilogue"},
                          uint32_t(2 * turns * (num_k_tiles(k, BLOCK_K) + 1) + 8));
  }
  return [=](cudaStream_t stream) mutable { grid.launch(stream, kernel, a_map, b_map, c, m, n, k, buf); };
}
template <ScheduleKind SCHEDULE>
Launch prepare_v6_untraced(const GemmArgs& g) { return prepare_v6<SCHEDULE>(g, nullptr); }
template <ScheduleKind SCHEDULE>
Launch prepare_v6_traced(const GemmArgs& g, DeviceTrace& trace) {
  return prepare_v6<SCHEDULE>(g, &trace);
}

}  // namespace

std::vector<Variant> sm100_variants() {
  const ShapeRule any_mn = any_mn_shape_rule(2);  // any M and N; K a multiple of 8 (the TMA stride rule)
  const char* kernel = "sm_100a tcgen05 kernel (v6_persistent/matmul_v6.cu)";
  SmemTiles tiles{A_TILE, B_TILE, BLOCK_M, /*tma_3d=*/false, NUM_STAGES, SLICE_K, TMA_BOXES, tma_box};
  tiles.cta_group = CTA_GROUP;  // the MMA spans the pair: M = 2 x 128, N = 2 x B_TILE.rows
  // Which order is fastest on Blackwell cannot be measured here (no Blackwell GPU). The default is the order
  // the Hopper twin measured fastest (docs/performance/v6-epilogue-and-tile-order.md): the default by the
  // Hopper measurement, unmeasured on Blackwell. All three run unless --variant picks one.
  return {
      {"v6a", "persistent 2-CTA clusters, TMEM double buffer, any M/N; static tile order", kernel, any_mn,
       tiles, prepare_v6_untraced<ScheduleKind::Static>, prepare_v6_traced<ScheduleKind::Static>},
      {"v6b", "as v6a, grouped tile order (GROUP_M 16)", kernel, any_mn, tiles,
       prepare_v6_untraced<ScheduleKind::Grouped>, prepare_v6_traced<ScheduleKind::Grouped>},
      {"v6c", "as v6a, Hilbert tile order", kernel, any_mn, tiles, prepare_v6_untraced<ScheduleKind::Hilbert>,
       prepare_v6_traced<ScheduleKind::Hilbert>},
  };
}

}  // namespace gemm
