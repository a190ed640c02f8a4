// matmul_mxfp8.cu: the MXFP8 stage on Blackwell (sm_100a): block-scaled FP8. v6's persistent 2-CTA kernel,
// with e4m3 operands, one e8m0 scale per 1x32 block of K for each operand, and fp32 output.
//
// C[M,N] (fp32) = dequant(A)[M,K] * dequant(B)[N,K]^T, A and B e4m3 and K-major, their scales in the blocked
// layout of common/mx_scale_layout.h (as mxfp8/mx_quant.h writes them).
//
// What changed since v6 (seed 001, "MXFP8 GEMM: up to 99% of cuBLAS"):
//  1. The MMA: tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale.block32, M = 256 (the pair), N = 256,
//     K = 32 per instruction (32 bytes of e4m3: twice v6's K per MMA, the same bytes). Its instruction
//     descriptor is the block-scaled one: A and B E4M3 (code 0), scale type UE8M0 (bit 23), and per K step
//     the SF ids (bits 29-30 for A, 4-5 for B) that pick which of the 4 scale columns of the tile the MMA
//     applies: K step j of a 128-wide K tile reads scale column j.
//  2. Scales live in TMEM: the MMA reads them from there, not from shared memory. Per ring stage TMA loads
//     this CTA's SFA tile (128 rows x 4 scale columns, 512 B) and the SFB tiles of the pair's whole N = 256
//     (2 x 512 B): 4D tensor maps over the blocked layout, one box = whole 512-byte tiles. The MMA thread
//     copies them into TMEM with tcgen05.cp.cta_group::2.32x128b.warpx4 (one 512-byte tile -> 4 columns of
//     all four lane quarters; cta_group::2: each CTA copies its own tile into its own TMEM) right before
//     the stage's MMAs. tcgen05.cp then tcgen05.mma from the same thread with the same cta_group run in
//     order (PTX ISA "tcgen05 Memory Consistency Model", pipelined pairs): no wait between them.
//  3. SFB in full on both CTAs: with cta_group::2 each CTA's tensor core applies B scales of all 256 columns
//     of N to its rows, although it holds only its half of B (seed 001 anticipated it from an NVFP4 report). CTA 0 loads
//     the SFB box once and multicasts it to both CTAs (.multicast::cluster, mask 0b11).
//  4. The TMEM budget (512 columns): two 256-column fp32 accumulators would take all 512 and leave none for
//     scales. So the two accumulators overlap by 128 columns (seed 001's "Optimization 1"): accumulator 0 =
//     columns [0, 256), accumulator 1 = [128, 384); the scales of ring stage s at 384 + 12 s (SFA: 4
//     columns, SFB: 8). Three regions, X [0,128) Y [128,256) Z [256,384), each with its own tmem_empty
//     barrier: the epilogue loads the shared region Y first, all of it into registers, and releases it
//     before storing it and reading its own region (seed 001), so the next tile's MMAs (which need Y and
//     the other accumulator's own region) start as soon as possible. Scale slots per stage (not one slot reused by every stage): a slot is rewritten only after
//     the stage's mma_done_bar has fired, i.e. after the MMAs that read it are complete, so the ordering of
//     an MMA before a LATER tcgen05.cp (not among the ISA's pipelined pairs) is never relied on.
//  5. BLOCK_K = 128 (one 128-byte swizzle span of fp8 and exactly one scale tile per 128 rows), 6 stages of
//     34 KB. Any M, N >= 1 and K a multiple of 32: the last K tile issues only its existing K steps.
//  6. fp32 output, the epilogue: TMEM -> registers (32x32b.x32) -> st.global.v8.f32 with L1::no_allocate
//     (seed 001, Optimizations 2 and 7). Seed 001 found a pipelined TMA-store epilogue 1% faster at >= 8192
//     and 10% slower at 2048, and picked one per shape. Here one path only, argued: the TMA store needs a
//     staging buffer (one of the 6 ring stages at least), and needs N % 4 == 0 for C's row stride, so the
//     direct store must exist anyway for other N; the 1% it bought at large shapes is within this project's
//     run-to-run noise (+-5%: docs/benchmark-method.md), and it cannot be measured here. The direct store with a
//     scalar fallback covers every N with one code path.
//  7. Tile order: Hilbert only when M, N and K are all >= 8192, the static order otherwise (seed 001,
//     "Optimization 8": neutral or worse below). Variants mx-static / mx-hilbert force one.
//  8. No runtime-indexed arrays of barriers or phases in registers (seed 001, "Optimization 5": the compiler
//     put them in local memory, and removing them gained up to 17% TFLOPS at 4096^3, i.e. they had cost
//     about 15% of the time): barriers are addressed in shared memory, phases are scalars; the SASS test
//     checks that there is no LDL/STL.
//
// Why it helps: e4m3 doubles the tensor-core rate of bf16 on B200, and halves the bytes loaded per FLOP;
// 1x32 scales keep outliers local.
// What it costs: the scale traffic (1/32 of the data bytes per operand, SFB twice through the multicast),
// three tcgen05.cp per stage, 128 TMEM columns of accumulator overlap with their extra barrier, an fp32
// output (twice the bytes of bf16).
//
// PTX ISA sections: as v6, plus "tcgen05.mma" (.kind::mxf8f6f4, .block_scale, .block32), "Instruction
// descriptor" (the block-scaled table), "tcgen05.cp" (.32x128b, .warpx4), "Scale factor A/B matrix layout"
// in TMEM, "cp.async.bulk.tensor" (4D, .multicast::cluster with .cta_group::2), "st" (.v8, .L1::no_allocate).
//
// Status: compiled for sm_100a and sm_103a and model-checked (tests/test_layout_model.cpp: the scale
// descriptor and the TMEM scale layout; tests/test_cutlass_crosscheck.cpp; the SASS test); not run on
// Blackwell hardware by this project. Published B200 anchor (seed 001): 2599 TFLOPS at 8192^3 against cuBLAS
// MXFP8's 2692, from the seed's final kernel: BK 256 ("Optimization 3"; this file: 128), BN 256, 2-CTA,
// persistent.
// Through the tcgen05 emulator (common/tcgen05_emu.h) it passes on an H100, under both MMA schedules, against
// the exact result (exact inputs bit for bit; tests/test_mxfp8_sm100_gpu.cpp built as gpu/mxfp8/sm100_emulated)
// and `matmul_mxfp8 --emulate` (correctness only; emulation times nothing).
#include <cuda_fp8.h>

#include <cstdio>
#include <cstdlib>

#include "common/check.h"
#include "common/descriptors.cuh"
#include "common/edge.h"
#include "common/harness.h"  // SMEM_ALIGN
#include "common/mx_scale_layout.h"
#include "common/options.h"
#include "common/persistent_grid.h"
#include "common/problem.h"
#include "common/ptx.cuh"
#include "common/scheduler.h"
#include "common/tcgen05.cuh"
#include "common/tma.h"
#include "mxfp8/matmul_mxfp8_sm100.h"

namespace gemm {
namespace {

// ---- configuration ----
constexpr int BLOCK_M            = 128;  // this CTA's rows of A and of C: all 128 TMEM lanes
constexpr int BLOCK_N            = 256;  // = MMA N, the pair's N (cta_group::2 allows up to 256)
constexpr int CLUSTER_SIZE       = 2;    // the CTA pair of one MMA, along M
constexpr int MMA_M              = CLUSTER_SIZE * BLOCK_M;    // 256: the pair's rows
constexpr int CTA_GROUP          = CLUSTER_SIZE;              // every tcgen05 instruction's .cta_group
constexpr uint16_t CLUSTER_MASK  = (1u << CLUSTER_SIZE) - 1;  // commits and the SFB multicast: 0b11
constexpr int BLOCK_K            = 128;  // K of one tile load: 128 bytes of e4m3, one swizzle span
constexpr int MMA_K              = 32;   // fixed for kind::mxf8f6f4: 32 bytes of K per MMA = one MX block
constexpr int K_STEPS            = BLOCK_K / MMA_K;                        // 4 MMAs per K tile, SF ids 0..3
constexpr int EPILOGUE_WARP0     = 2;                                      // warps 2..5: the epilogue
constexpr int NUM_EPILOGUE_WARPS = 4;                                      // one per 32-lane TMEM quarter
constexpr int NUM_THREADS = (EPILOGUE_WARP0 + NUM_EPILOGUE_WARPS) * 32;    // 6 warps: TMA, MMA, 4 x epilogue
constexpr int NUM_ACCUMULATORS       = 2;                                  // the TMEM ring, as v6
constexpr uint32_t EPILOGUE_ARRIVALS = NUM_EPILOGUE_WARPS * CLUSTER_SIZE;  // per tmem_empty phase

// -- the TMEM budget (512 columns x 128 lanes x 32 bit) --
constexpr int TMEM_COLS         = 512;                        // all of it: one CTA per SM anyway
constexpr int ACC_OVERLAP       = 128;                        // columns the two accumulators share (region Y)
constexpr int ACC_STRIDE        = BLOCK_N - ACC_OVERLAP;      // accumulator a starts at column a * 128
constexpr int ACC_SPAN          = ACC_STRIDE + BLOCK_N;       // 384: X, Y, Z
constexpr int REGION_COLS       = ACC_OVERLAP;                // X, Y, Z: 128 columns each
constexpr int REGION_Y          = 1;                          // tmem_empty_bar index of the shared region
constexpr int NUM_REGIONS       = 3;                          // X, Y, Z: each with its tmem_empty barrier
constexpr int SFA_TILES         = BLOCK_M / MX_SF_TILE_ROWS;  // 1 scale tile of A per CTA and K tile
constexpr int SFB_TILES         = BLOCK_N / MX_SF_TILE_ROWS;  // 2 scale tiles of B: the pair's whole N
constexpr int SF_COLS_PER_STAGE = (SFA_TILES + SFB_TILES) * int(MX_SF_TMEM_COLS);  // 12
constexpr int SF_TMEM_COL0      = ACC_SPAN;  // the scale slots follow the accumulators

constexpr KMajorTile A_TILE{BLOCK_M, BLOCK_K, 1, Swizzle::B128};
constexpr KMajorTile B_TILE{BLOCK_N / CLUSTER_SIZE, BLOCK_K, 1, Swizzle::B128};  // this CTA's half of B
constexpr uint32_t A_TILE_BYTES   = kmajor_tile_bytes(A_TILE);                   // 16 KB
constexpr uint32_t B_TILE_BYTES   = kmajor_tile_bytes(B_TILE);                   // 16 KB
constexpr uint32_t SFA_TILE_BYTES = SFA_TILES * MX_SF_TILE_BYTES;                // 512 B
constexpr uint32_t SFB_TILE_BYTES = SFB_TILES * MX_SF_TILE_BYTES;                // 1 KB
constexpr uint32_t AB_STAGE_BYTES = A_TILE_BYTES + B_TILE_BYTES;
constexpr uint32_t SF_STAGE_BYTES = SFA_TILE_BYTES + SFB_TILE_BYTES;
constexpr uint32_t STAGE_BYTES    = AB_STAGE_BYTES + SF_STAGE_BYTES;  // 33.5 KB
// The bytes each CTA announces on CTA 0's full barrier per stage, each for the copies IT issues, before
// issuing them (so the barrier's tx-count never goes below zero): its A, its half of B, its SFA, and for CTA
// 0 the SFB multicast twice (with .cta_group::2 the signal of CTA 1's copy goes to CTA 0's barrier, the
// barrier's CTA parity: both copies complete on it).
constexpr uint32_t CTA_STAGE_TX = A_TILE_BYTES + B_TILE_BYTES + SFA_TILE_BYTES;
constexpr uint32_t SFB_STAGE_TX = CLUSTER_SIZE * SFB_TILE_BYTES;
static_assert(CLUSTER_SIZE * CTA_STAGE_TX + SFB_STAGE_TX == CLUSTER_SIZE * STAGE_BYTES,
              "CTA 0's full barrier receives every byte of both CTAs' ring stage, announced once");
// The ring: [A_s B_s] for every stage (1024-B swizzle atoms), then [SFA_s SFB_s] for every stage. A function
// of constants only, the same in both CTAs (the MMA and tcgen05.cp read the peer's stage at CTA 0's offsets).
constexpr uint32_t SMEM_BUDGET = 227 * 1024;
constexpr int NUM_STAGES       = int((SMEM_BUDGET - SMEM_ALIGN - 1024) / STAGE_BYTES);
GEMM_HD constexpr uint32_t a_tile_offset(int s) {
  return uint32_t(s) * AB_STAGE_BYTES;
}
GEMM_HD constexpr uint32_t b_tile_offset(int s) {
  return uint32_t(s) * AB_STAGE_BYTES + A_TILE_BYTES;
}
GEMM_HD constexpr uint32_t sfa_offset(int s) {
  return uint32_t(NUM_STAGES) * AB_STAGE_BYTES + uint32_t(s) * SF_STAGE_BYTES;
}
GEMM_HD constexpr uint32_t sfb_offset(int s) {
  return sfa_offset(s) + SFA_TILE_BYTES;
}
constexpr uint32_t SMEM_BYTES = NUM_STAGES * STAGE_BYTES + SMEM_ALIGN;

// kind::mxf8f6f4, E4M3 x E4M3 -> F32 with UE8M0 scales, both K-major, M = 256 (the pair), N = 256; the SF
// ids of K step j are (j, j): scale column j of the stage's tiles.
GEMM_HD constexpr uint32_t idesc_for_k_step(int j) {
  return make_idesc_mxf8f6f4(MxKind::E4M3, MxKind::E4M3, MMA_M, BLOCK_N, uint32_t(j), uint32_t(j));
}

static_assert(BLOCK_M == 128 && MMA_M == 256, "cta_group::2 M=256 MMA: 128 rows per CTA, one per TMEM lane");
static_assert(BLOCK_N % 16 == 0 && BLOCK_N >= 16 && BLOCK_N <= 256, "MMA N must be 16..256 in steps of 16");
static_assert(CLUSTER_SIZE == 2 && CTA_GROUP == 2, "cta_group::2 spans exactly the 2 CTAs of the cluster");
static_assert(MMA_K == MX_BLOCK_K, "one block-scaled MMA covers exactly one MX block of K (.block32)");
static_assert(BLOCK_K == MX_SF_TILE_COLS * MX_BLOCK_K,
              "a K tile is exactly one scale tile's 4 columns: SF id j = K step j, no partial scale tiles");
static_assert(BLOCK_K * 1 == 128, "one 128-byte swizzle span of e4m3 per row: one TMA box per operand");
static_assert(K_STEPS == 4, "SF ids are 2 bits: at most 4 K steps per scale tile");
static_assert(BLOCK_M % MX_SF_TILE_ROWS == 0 && BLOCK_N % MX_SF_TILE_ROWS == 0, "whole 128-row scale tiles");
// The TMEM budget, in columns: two accumulators of 256 would need 512 alone, plus 12 per stage for scales.
//   accumulators: 128 (X) + 128 (Y, shared) + 128 (Z)                     = 384
//   scales: NUM_STAGES x (4 SFA + 8 SFB) = 6 x 12                          =  72
//   total                                                                  = 456 <= 512
// (Without the overlap: 512 + 72 = 584 > 512. One scale slot shared by all stages would fit 2 x 256 + 12 =
// 524 neither.)
static_assert(ACC_SPAN == NUM_REGIONS * REGION_COLS && ACC_STRIDE == REGION_COLS,
              "accumulator 0 = X|Y, accumulator 1 = Y|Z: three 128-column regions");
static_assert(SF_TMEM_COL0 + NUM_STAGES * SF_COLS_PER_STAGE <= TMEM_COLS,
              "TMEM budget: 384 accumulator columns + 12 scale columns per stage must fit in 512");
static_assert(NUM_ACCUMULATORS * BLOCK_N + SF_COLS_PER_STAGE > TMEM_COLS,
              "the overlap exists because two whole accumulators and one scale slot do not fit");
static_assert(SF_TMEM_COL0 % 4 == 0 && SF_COLS_PER_STAGE % 4 == 0, "scale slots start on 4-column groups");
static_assert(a_tile_offset(1) - a_tile_offset(0) == AB_STAGE_BYTES && AB_STAGE_BYTES % 1024 == 0,
              "A and B tiles stay on 1024-B swizzle atoms");
static_assert(sfa_offset(0) % 1024 == 0 && SF_STAGE_BYTES % 128 == 0,
              "scale tiles start 128-B aligned (TMA destination)");
static_assert(sfb_offset(NUM_STAGES - 1) + SFB_TILE_BYTES == NUM_STAGES * STAGE_BYTES, "the ring is packed");
static_assert(NUM_EPILOGUE_WARPS == 4 && EPILOGUE_WARP0 >= 2,
              "one epilogue warp per TMEM lane quarter, after the TMA and MMA warps");
static_assert(NUM_THREADS == 6 * 32, "6 warps: TMA, MMA, 4 epilogue");
static_assert(NUM_ACCUMULATORS == 2, "accumulator a's own region is 2a: X or Z");
static_assert(NUM_STAGES == 6, "33.5 KB stages: 6 fit in 227 KB");
static_assert(SMEM_BYTES <= SMEM_BUDGET, "the ring must fit in the 227 KB of shared memory per block");

// ---- the instructions this stage introduces: wrappers in common/tcgen05.cuh (tc5::mma_mxf8f6f4_block32,
//      tc5::cp_32x128b_warpx4, tc5::tma_load_4d_cta_group2, tc5::tma_load_4d_multicast_cta_group2,
//      tc5::ld_32x32b_x32) and common/ptx.cuh (ptx::st_global_v8_f32_no_allocate) ----

// ---- the kernel ----
template <ScheduleKind SCHEDULE>
__global__ void __launch_bounds__(NUM_THREADS, 1)
    matmul_mxfp8_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                        const __grid_constant__ CUtensorMap sfa_map,
                        const __grid_constant__ CUtensorMap sfb_map, float* c, int m, int n, int k,
                        bool vector_stores) {
#if defined(GEMM_HAS_TCGEN05)
  extern __shared__ uint8_t smem_raw[];
  uint8_t* ring = align_smem_1024(smem_raw);
  auto a_smem   = [&](int s) { return ring + a_tile_offset(s); };
  auto b_smem   = [&](int s) { return ring + b_tile_offset(s); };
  auto sfa_smem = [&](int s) { return ring + sfa_offset(s); };
  auto sfb_smem = [&](int s) { return ring + sfb_offset(s); };
  __shared__ uint64_t tma_full_bar[NUM_STAGES];  // "full" (CTA 0's only): both CTAs' bytes of stage s landed
  __shared__ uint64_t mma_done_bar[NUM_STAGES];  // "empty": the MMAs that read stage s of both CTAs are done
  __shared__ uint64_t tmem_full_bar[NUM_ACCUMULATORS];  // accumulator a holds a finished tile (both CTAs)
  __shared__ uint64_t
      tmem_empty_bar[NUM_REGIONS];  // (CTA 0's only) TMEM region X, Y, Z read by both epilogues
  __shared__ uint32_t tmem_slot;

  const int warp_id   = threadIdx.x / 32;
  const int lane      = threadIdx.x % 32;
  const int cta_rank  = int(ptx::cluster_ctarank());
  const int tiles_m   = num_tiles(m, BLOCK_M);
  const int tiles_n   = num_tiles(n, BLOCK_N);
  const auto schedule = [&] {
    return TileSchedule<SCHEDULE>(tiles_m, tiles_n, int(gridDim.x) / CLUSTER_SIZE,
                                  int(blockIdx.x) / CLUSTER_SIZE, CLUSTER_SIZE, cta_rank);
  };

  // ---- setup: barriers by one thread, TMEM by one whole warp ----
  if (warp_id == 0 && ptx::elect_one_sync()) {
    for (int s = 0; s < NUM_STAGES; ++s) {
      ptx::mbarrier_init(&tma_full_bar[s], CLUSTER_SIZE);  // one arrival per CTA's TMA thread (CTA 0's only)
      ptx::mbarrier_init(&mma_done_bar[s], 1);             // one arrival: CTA 0's multicast tcgen05.commit
    }
    for (int a = 0; a < NUM_ACCUMULATORS; ++a) ptx::mbarrier_init(&tmem_full_bar[a], 1);
    for (int r = 0; r < NUM_REGIONS; ++r) ptx::mbarrier_init(&tmem_empty_bar[r], EPILOGUE_ARRIVALS);
    ptx::fence_mbarrier_init();
  }
  // Cluster barrier, then the 2-CTA allocation, then a second cluster barrier (v5: the allocation is an
  // exchange between the pair, so both CTAs must have started before it).
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
  if (warp_id == 1) {
    tc5::tmem_alloc<CTA_GROUP>(&tmem_slot, TMEM_COLS);
    tc5::tmem_relinquish_alloc_permit<CTA_GROUP>();
  }
  tc5::fence_before_thread_sync();
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
  tc5::fence_after_thread_sync();
  const uint32_t tmem_base = tmem_slot;  // accumulator a at column a * ACC_STRIDE; scales from column 384

  const int num_k_tiles = gemm::num_k_tiles(k, BLOCK_K);  // the last one may hold 1..4 MX blocks
  if (warp_id == 0) {
    // ---- producer (warp 0): one thread keeps the ring full, tile after tile ----
    if (ptx::elect_one_sync()) {
      // load: this CTA's A rows, its half of B and its SFA tile into its own stage `s`; CTA 0 also loads the
      // pair's two SFB tiles once, multicast into both CTAs. All bytes complete on CTA 0's full barrier.
      // A box wholly outside its tensor is neither issued nor announced (v6); the SFB box is never wholly
      // outside (its first 128 rows start at a valid N tile).
      auto load = [&](int m0, int b_row0, int n0, int k_tile, int s) {
        const bool load_a = m0 < m, load_b = b_row0 < n;
        const uint32_t full_bar_cta0 = ptx::mapa_shared_cluster(&tma_full_bar[s], 0);
        ptx::mbarrier_arrive_expect_tx_cluster(
            full_bar_cta0, CTA_STAGE_TX - (load_a ? 0u : A_TILE_BYTES + SFA_TILE_BYTES) -
                               (load_b ? 0u : B_TILE_BYTES) + (cta_rank == 0 ? SFB_STAGE_TX : 0u));
        const int k0 = k_tile * BLOCK_K;
        if (load_a) {
          tc5::tma_load_2d_cta_group2(a_smem(s), &a_map, full_bar_cta0, k0, m0);
          // SFA: box {16 B, 32 lines, 1 K tile, 1 row block} = tile (m0 / 128, k_tile)
          tc5::tma_load_4d_cta_group2(sfa_smem(s), &sfa_map, full_bar_cta0, 0, 0, k_tile,
                                      m0 / MX_SF_TILE_ROWS);
        }
        if (load_b) tc5::tma_load_2d_cta_group2(b_smem(s), &b_map, full_bar_cta0, k0, b_row0);
        if (cta_rank == 0)  // SFB: box {16, 32, 1, 2} = tiles (n0 / 128 + {0, 1}, k_tile), to both CTAs
          tc5::tma_load_4d_multicast_cta_group2(sfb_smem(s), &sfb_map, full_bar_cta0, CLUSTER_MASK, 0, 0,
                                                k_tile, n0 / MX_SF_TILE_ROWS);
      };
      int stage            = 0;
      uint32_t empty_phase = 1;
      auto schedule_p      = schedule();
      for (ScheduledTile t; schedule_p.next(t);) {
        const int m0 = t.m * BLOCK_M, n0 = t.n * BLOCK_N, b_row0 = n0 + cta_rank * B_TILE.rows;
        for (int k_tile = 0; k_tile < num_k_tiles; ++k_tile) {
          ptx::mbarrier_wait(&mma_done_bar[stage], empty_phase, "mma_done_bar");
          load(m0, b_row0, n0, k_tile, stage);
          if (++stage == NUM_STAGES) {
            stage = 0;
            empty_phase ^= 1;
          }
        }
      }
      // Exit: wait for the release of the last NUM_STAGES loads (v4): no multicast commit, and no SFB
      // multicast into the peer, is still on its way when this CTA exits.
      for (int i = 0; i < NUM_STAGES; ++i) {
        ptx::mbarrier_wait(&mma_done_bar[stage], empty_phase, "mma_done_bar");
        if (++stage == NUM_STAGES) {
          stage = 0;
          empty_phase ^= 1;
        }
      }
    }
    __syncwarp();
  } else if (warp_id == 1 && cta_rank == 0) {
    // ---- mma (warp 1 of CTA 0): scales to TMEM, then the block-scaled MMAs of the pair ----
    if (ptx::elect_one_sync()) {
      int stage                = 0;
      uint32_t full_phase      = 0;
      int acc                  = 0;
      uint32_t acc_empty_phase = 1;  // regions X / Z: each used every second tile
      uint32_t y_empty_phase   = 1;  // region Y: used by every tile
      auto schedule_m          = schedule();
      for (ScheduledTile t; schedule_m.next(t);) {
        // Both regions of accumulator `acc` must have been read by both epilogues: the shared Y (released
        // by the previous tile, whichever accumulator) and its own X or Z (released two tiles ago).
        ptx::mbarrier_wait(&tmem_empty_bar[REGION_Y], y_empty_phase, "tmem_empty_bar Y");
        ptx::mbarrier_wait(&tmem_empty_bar[2 * acc], acc_empty_phase, "tmem_empty_bar X/Z");
        tc5::fence_after_thread_sync();
        const uint32_t tmem_acc = tmem_base + uint32_t(acc * ACC_STRIDE);
        for (int k_tile = 0; k_tile < num_k_tiles; ++k_tile) {
          ptx::mbarrier_wait(&tma_full_bar[stage], full_phase, "tma_full_bar");
          tc5::fence_after_thread_sync();

          // scales of this stage -> its TMEM slot (SFA: 4 columns, SFB: 2 x 4), in both CTAs
          const uint32_t sfa_tmem = tmem_base + uint32_t(SF_TMEM_COL0 + stage * SF_COLS_PER_STAGE);
          const uint32_t sfb_tmem = sfa_tmem + uint32_t(SFA_TILES * MX_SF_TMEM_COLS);
          tc5::cp_32x128b_warpx4(sfa_tmem, mx_sf_cp_desc_sm100(ptx::smem_addr(sfa_smem(stage))));
#pragma unroll
          for (int i = 0; i < SFB_TILES; ++i)
            tc5::cp_32x128b_warpx4(
                sfb_tmem + uint32_t(i) * MX_SF_TMEM_COLS,
                mx_sf_cp_desc_sm100(ptx::smem_addr(sfb_smem(stage)) + uint32_t(i) * MX_SF_TILE_BYTES));

          // compute: one MMA per MX block of the tile (the last tile of K may have fewer than 4)
          const int k_steps     = min(K_STEPS, (k - k_tile * BLOCK_K) / MMA_K);
          const uint32_t a_addr = ptx::smem_addr(a_smem(stage)), b_addr = ptx::smem_addr(b_smem(stage));
#pragma unroll
          for (int k_step = 0; k_step < K_STEPS; ++k_step) {
            if (k_step < k_steps)
              tc5::mma_mxf8f6f4_block32(tmem_acc, kmajor_desc_sm100(A_TILE, a_addr, k_step),
                                        kmajor_desc_sm100(B_TILE, b_addr, k_step), idesc_for_k_step(k_step),
                                        sfa_tmem, sfb_tmem, (k_tile > 0 || k_step > 0) ? 1u : 0u);
          }
          // both CTAs' stage s (data and scales, and its TMEM scale slot) are free once these are done
          tc5::commit_multicast<CTA_GROUP>(&mma_done_bar[stage], CLUSTER_MASK);
          if (++stage == NUM_STAGES) {
            stage = 0;
            full_phase ^= 1;
          }
        }
        tc5::commit_multicast<CTA_GROUP>(&tmem_full_bar[acc], CLUSTER_MASK);
        y_empty_phase ^= 1;
        if (++acc == NUM_ACCUMULATORS) {
          acc = 0;
          acc_empty_phase ^= 1;
        }
      }
    }
    __syncwarp();
  } else if (warp_id >= EPILOGUE_WARP0) {
    // ---- epilogue (warps 2-5 of both CTAs): TMEM -> registers -> C (fp32), shared region first ----
    const uint32_t lane0    = tmem_warp_lane_base(warp_id);
    const int row_in_tile   = int(lane0) + lane;
    int acc                 = 0;
    uint32_t acc_full_phase = 0;
    auto schedule_e         = schedule();
    for (ScheduledTile t; schedule_e.next(t);) {
      ptx::mbarrier_wait(&tmem_full_bar[acc], acc_full_phase, "tmem_full_bar");
      __syncwarp();
      tc5::fence_after_thread_sync();

      const int rows_valid = tile_extent(m, BLOCK_M, t.m);
      const int cols_valid = tile_extent(n, BLOCK_N, t.n);
      const bool row_ok    = row_in_tile < rows_valid;
      float* c_row =
          c + (row_ok ? size_t(t.m * BLOCK_M + row_in_tile) * size_t(n) : 0) + size_t(t.n) * BLOCK_N;
      // store: 32 loaded columns from `col` of the tile to this thread's row of C (edges: scalar stores)
      auto store = [&](int col, const float* v) {
        if (!row_ok) return;
#pragma unroll
        for (int j = 0; j < 32; j += 8) {
          if (vector_stores && col + j + 8 <= cols_valid) {
            ptx::st_global_v8_f32_no_allocate(c_row + col + j, v + j);
          } else {
#pragma unroll
            for (int i = 0; i < 8; ++i)
              if (col + j + i < cols_valid) c_row[col + j + i] = v[j + i];
          }
        }
      };
      // release: the region's loads are complete (wait::ld) and the fence orders them before one relaxed
      // cluster arrival per warp on CTA 0's tmem_empty barrier (as v6)
      auto release = [&](int region) {
        tc5::fence_before_thread_sync();
        __syncwarp();
        if (lane == 0) ptx::mbarrier_arrive_cluster(ptx::mapa_shared_cluster(&tmem_empty_bar[region], 0));
      };
      // The accumulator's half in region Y first: columns [128, 256) of accumulator 0, [0, 128) of 1. All of
      // it is loaded into registers (128 per thread) and released at once, before it is stored (seed 001):
      // the next tile's MMAs, which need Y, wait for 4 TMEM loads, not for 64 KB of global stores per CTA.
      const int y_first_col = acc == 0 ? ACC_OVERLAP : 0;
      float y[REGION_COLS];
#pragma unroll
      for (int j = 0; j < REGION_COLS; j += 32)
        if (y_first_col + j < cols_valid)  // chunks wholly past N are skipped by the whole warp
          tc5::ld_32x32b_x32(tmem_addr(tmem_base, lane0, uint32_t(acc * ACC_STRIDE + y_first_col + j)),
                             *reinterpret_cast<float(*)[32]>(y + j));
      tc5::wait_ld();
      release(REGION_Y);
#pragma unroll
      for (int j = 0; j < REGION_COLS; j += 32)
        if (y_first_col + j < cols_valid) store(y_first_col + j, y + j);
      // Then its own region (X or Z), 32 columns at a time, released once read.
      const int own_first_col = ACC_OVERLAP - y_first_col;
#pragma unroll 1
      for (int col = own_first_col; col < own_first_col + REGION_COLS && col < cols_valid; col += 32) {
        float v[32];
        tc5::ld_32x32b_x32(tmem_addr(tmem_base, lane0, uint32_t(acc * ACC_STRIDE + col)), v);
        tc5::wait_ld();
        store(col, v);
      }
      release(2 * acc);
      if (++acc == NUM_ACCUMULATORS) {
        acc = 0;
        acc_full_phase ^= 1;
      }
    }
  }

  // ---- teardown (v6): all TMEM reads of both CTAs done before the pair's TMEM is freed ----
  tc5::fence_before_thread_sync();
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
  if (warp_id == 1) {
    tc5::fence_after_thread_sync();
    tc5::tmem_dealloc<CTA_GROUP>(tmem_base, TMEM_COLS);
  }
#elif defined(__CUDA_ARCH__)
  __trap();
#endif  // GEMM_HAS_TCGEN05
}

}  // namespace

// ---- host: the tensor maps of the scales, the checks, the launcher ----

// The 4D map over a blocked scale tensor of `rows` x K/32 scales: dims {16 B, 32 lines, K tiles, row blocks},
// strides {16, 512, 512 x K tiles} bytes. A box {16, 32, 1, tiles} is `tiles` whole 512-byte scale tiles of
// consecutive row blocks at one K tile, landing one after the other.
TmaDesc mx_scale_tma_4d(int64_t rows, int64_t k, uint32_t row_blocks_per_box) {
  const int cols       = mx_scale_cols(int(k));
  const int col_blocks = mx_padded_scale_cols(cols) / MX_SF_TILE_COLS;
  const int row_blocks = mx_padded_rows(int(rows)) / MX_SF_TILE_ROWS;
  TmaDesc d;
  d.rank       = 4;
  d.elem_bytes = 1;
  d.dims[0]    = 16;
  d.dims[1]    = 32;
  d.dims[2]    = uint64_t(col_blocks);
  d.dims[3]    = uint64_t(row_blocks);
  d.strides[0] = 16;
  d.strides[1] = MX_SF_TILE_BYTES;
  d.strides[2] = uint64_t(MX_SF_TILE_BYTES) * uint64_t(col_blocks);
  d.box[0]     = 16;
  d.box[1]     = 32;
  d.box[2]     = 1;
  d.box[3]     = row_blocks_per_box;
  d.swizzle    = Swizzle::None;
  return d;
}

std::string mxfp8_sm100_check_shape(int64_t m, int64_t n, int64_t k) {
  const struct {
    const char* name;
    int64_t v;
  } dims[] = {{"M", m}, {"N", n}, {"K", k}};
  for (const auto& d : dims)
    if (d.v < 1)
      return std::string(d.name) + "=" + std::to_string(d.v) + " is below 1 (M, N and K must be >= 1)";
  if (k % MXFP8_SM100_K_MULTIPLE != 0)
    return "K=" + std::to_string(k) +
           " is not a multiple of 32 (MXFP8 has one scale per 32 elements of K, and each block-scaled MMA "
           "takes "
           "one whole block; try K=" +
           std::to_string(nearest_multiple(k, MXFP8_SM100_K_MULTIPLE)) + ")";
  if (m > (int64_t(1) << 30) || n > (int64_t(1) << 30) || k > (int64_t(1) << 30))
    return "M, N, K must stay at or below 2^30 (32-bit tile and scale indices in the kernel)";
  return "";
}

std::string mxfp8_sm100_check_args(const MxGemmArgs& g) {
  std::string why = mxfp8_sm100_check_shape(g.m, g.n, g.k);
  if (!why.empty()) return why;
  if (!g.a || !g.sfa || !g.b || !g.sfb || !g.c) return "a data, scale or output pointer is null";
  auto size_line = [](const char* what, uint64_t got, uint64_t want) {
    return std::string(what) + " has " + std::to_string(got) + " bytes; the shape needs " +
           std::to_string(want);
  };
  const uint64_t a_want = uint64_t(g.m) * uint64_t(g.k), b_want = uint64_t(g.n) * uint64_t(g.k);
  const uint64_t sfa_want = mx_scale_bytes(int(g.m), mx_scale_cols(int(g.k)));
  const uint64_t sfb_want = mx_scale_bytes(int(g.n), mx_scale_cols(int(g.k)));
  const uint64_t c_want   = uint64_t(g.m) * uint64_t(g.n) * 4;
  if (g.a_bytes != a_want) return size_line("A's e4m3 data", g.a_bytes, a_want);
  if (g.b_bytes != b_want) return size_line("B's e4m3 data", g.b_bytes, b_want);
  if (g.sfa_bytes != sfa_want) return size_line("A's scales (blocked layout)", g.sfa_bytes, sfa_want);
  if (g.sfb_bytes != sfb_want) return size_line("B's scales (blocked layout)", g.sfb_bytes, sfb_want);
  if (g.c_bytes != c_want) return size_line("C (fp32)", g.c_bytes, c_want);
  for (const void* p : {g.a, g.b, g.sfa, g.sfb})
    if (reinterpret_cast<uintptr_t>(p) % 16)
      return "A, B and their scale buffers must be 16-byte aligned (tensor map global addresses)";
  if (reinterpret_cast<uintptr_t>(g.c) % 4) return "C must be 4-byte aligned (fp32)";
  return "";
}

namespace {

enum class Order { Auto, Static, Hilbert };

template <Order ORDER>
Launch prepare_mxfp8_sm100(const MxGemmArgs& g) {
  const std::string why = mxfp8_sm100_check_args(g);
  if (!why.empty()) {
    std::fprintf(stderr, "prepare_mxfp8_sm100: %s\n", why.c_str());
    std::exit(EXIT_BAD_INPUT);
  }
  // Data: 2D maps (K extent = K: the short last K tile is zero-filled), one 128-byte swizzled box per
  // operand.
  const TmaDesc a_desc      = kmajor_tma_2d(g.m, g.k, BLOCK_M, BLOCK_K, 1, Swizzle::B128);
  const TmaDesc b_desc      = kmajor_tma_2d(g.n, g.k, B_TILE.rows, BLOCK_K, 1, Swizzle::B128);
  const TmaDesc sfa_desc    = mx_scale_tma_4d(g.m, g.k, SFA_TILES);
  const TmaDesc sfb_desc    = mx_scale_tma_4d(g.n, g.k, SFB_TILES);
  const CUtensorMap a_map   = make_tensor_map(a_desc, g.a, "A (e4m3)");
  const CUtensorMap b_map   = make_tensor_map(b_desc, g.b, "B (e4m3)");
  const CUtensorMap sfa_map = make_tensor_map(sfa_desc, g.sfa, "SFA (e8m0, blocked)");
  const CUtensorMap sfb_map = make_tensor_map(sfb_desc, g.sfb, "SFB (e8m0, blocked)");
  const bool hilbert =
      ORDER == Order::Hilbert || (ORDER == Order::Auto && g.m >= 8192 && g.n >= 8192 && g.k >= 8192);
  auto* kernel =
      hilbert ? matmul_mxfp8_kernel<ScheduleKind::Hilbert> : matmul_mxfp8_kernel<ScheduleKind::Static>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
  float* c    = g.c;
  const int m = int(g.m), n = int(g.n), k = int(g.k);
  // 8 fp32 per store: rows must start 32-B aligned (N % 8 == 0 and C 32-B aligned), else element stores.
  const bool vector_stores = n % 8 == 0 && reinterpret_cast<uintptr_t>(c) % 32 == 0;
  // The persistent grid (common/persistent_grid.h): the 2-CTA clusters that fit on the GPU at once, never more
  // than there are units of work.
  PersistentGrid grid = persistent_grid(kernel, NUM_THREADS, SMEM_BYTES, CLUSTER_SIZE, num_tiles(g.m, BLOCK_M),
                                        num_tiles(g.n, BLOCK_N), "mxfp8 (sm_100a)");
  return [=](cudaStream_t stream) mutable {
    grid.launch(stream, kernel, a_map, b_map, sfa_map, sfb_map, c, m, n, k, vector_stores);
  };

}

}  // namespace

const char* mxfp8_sm100_kernel_name() {
  return "sm_100a tcgen05 block-scaled kernel (mxfp8/matmul_mxfp8.cu): 2-CTA persistent, "
         "kind::mxf8f6f4.block_scale.block32, scales in TMEM";
}

std::vector<MxSm100Variant> mxfp8_sm100_variants() {
  return {
      {"mx", "tcgen05 mxf8f6f4.block32, scales in TMEM; Hilbert if M,N,K >= 8192 else static",
       prepare_mxfp8_sm100<Order::Auto>},
      {"mx-static", "as mx, static tile order always", prepare_mxfp8_sm100<Order::Static>},
      {"mx-hilbert", "as mx, Hilbert tile order always", prepare_mxfp8_sm100<Order::Hilbert>},
  };
}

const MxSm100Variant* find_mxfp8_sm100_variant(const char* name) {
  static const std::vector<MxSm100Variant> variants = mxfp8_sm100_variants();
  for (const MxSm100Variant& v : variants)
    if (std::string(v.name) == name) return &v;
  return nullptr;
}

}  // namespace gemm
