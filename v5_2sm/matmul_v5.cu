// matmul_v5.cu: stage 5 on Blackwell (sm_100a): the 2-SM MMA. Two CTAs of a cluster, on two SMs, compute one
// 256x256 tile with tcgen05.mma.cta_group::2, issued by one thread of CTA 0.
//
// C[M,N] = A[M,K] * B[N,K]^T, bf16 in and out, fp32 accumulation, both operands K-major.
//
// What changed since v4 (seed 000, "2-SM MMA"; seed 002, "The 2-SM Variant"; seed 004, levels 0-3):
//  1. A cluster of 2 CTAs (cudaLaunchKernelEx with a cluster-dimension attribute, 2 x 1): the CTAs
//     blockIdx.x = 2c, 2c + 1 take vertically adjacent 128-row M tiles of N tile c; the clusters walk these
//     256x256 blocks of C in v4's order (N fastest).
//     Every tcgen05 instruction of the kernel uses .cta_group::2: alloc, relinquish and dealloc by warp 1 of
//     EACH CTA together, the MMA and its commits by one thread of CTA 0 (PTX ISA "tcgen05 Issue
//     Granularity").
//  2. MMA_M = 256, MMA_N = BLOCK_N = 256: each CTA holds its own 128 rows of A (BLOCK_M) and HALF of the 256
//     B rows (N columns), and gets its 128 rows of D (256 fp32 TMEM columns) in its own TMEM. CTA 0's thread
//     issues the MMAs with its LOCAL shared-memory descriptors; the tensor cores read the peer's tiles at the
//     same offsets. So the shared-memory layout must be identical in both CTAs: it is a function of
//     compile-time constants only (a_tile_offset, b_tile_offset, static barriers; no CTA rank), asserted
//     below.
//  3. Both CTAs' TMA bytes complete on CTA 0's tma_full_bar, the one barrier its MMA thread waits on. Its
//     count is 2 (one arrive.expect_tx per CTA's producer, each announcing its own bytes) and its expected
//     bytes are both CTAs' A and B halves. Each producer reaches CTA 0's barrier through the shared::cluster
//     address mapa gives for rank 0, with the TMA form that lets a peer's barrier take the bytes
//     (cp.async.bulk.tensor ... .cta_group::2).
//  4. The commits multicast to both CTAs (ctaMask 0b11): mma_done_bar[s] tells both producers that stage s is
//     empty, mainloop_done_bar tells both epilogues that their TMEM holds the result. The producer's exit
//     tail (v4) now also covers the arrivals CTA 0's commits send to CTA 1.
//  5. Cluster barriers: one after barrier setup and before the 2-CTA TMEM allocation, whose SASS is an
//     exchange between the two CTAs (the even CTA writes into the odd CTA's shared memory and arrives on a
//     barrier there: the peer must have started; seed 000 allocated first, a race that happened to hold);
//     one after the allocation (no CTA arrives on, or sends bytes to, a barrier the peer has not
//     initialised, or reads a TMEM address not yet written); one before TMEM dealloc (no CTA frees TMEM
//     while the pair's MMAs or the peer's epilogue may still use it; seed 000 left it out and called it a
//     race).
// The tile order stays v4's, so that this step is the pair alone; orders that keep the clusters of a wave
// close in C, for L2, come with the persistent kernel of v6.
//
// Why it helps: per K tile each SM loads 16 KB of A and 16 KB of B (its half) for a 128x256 block of C,
// where v4 loaded the same 32 KB for 128x128: the operand bytes per FLOP halve. The pair's B tile is read
// from L2 once, half by each CTA, and the MMA fetches the other half from the peer's shared memory; one MMA
// instruction does the work of two.
// What it costs: clusters must be scheduled as a pair on two SMs; CTA 1's MMA warp idles; a stage is
// refilled only when the MMAs reading both CTAs' halves are done; cross-CTA barriers; both CTAs must keep one
// shared-memory layout.
//
// PTX ISA sections: as v4, plus "tcgen05.mma" (.cta_group::2), "tcgen05.commit" (.multicast::cluster),
// "tcgen05.alloc" and "tcgen05 Issue Granularity", "cp.async.bulk.tensor" (.cta_group::2), "mapa",
// "mbarrier" (shared::cluster arrivals), "barrier.cluster", "Special Registers: %cluster_ctarank".
//
// Status: compiled for sm_100a and sm_103a and model-checked (tests/test_layout_model.cpp, SASS tests); not
// run on Blackwell hardware by this project. Published B200 anchor (seed 000): v5 1302 TFLOPS at 4096^3
// (cuBLAS 1507; its v4: 1209), with BLOCK_N 256 (the pair's MMA N), BLOCK_K 64 and 7 stages, tiles grouped
// by GROUP_M = 2 (the code the seed links; its text states only BLOCK_M 128 and GROUP_M; this file keeps
// v4's order).
// Through the tcgen05 emulator (common/tcgen05_emu.h) it passes against cuBLAS on an H100, under both
// MMA schedules: `matmul_v5 --emulate` (correctness only; emulation times nothing).
#include <cuda_bf16.h>

#include "common/check.h"
#include "common/descriptors.cuh"
#include "common/harness.h"
#include "common/profiler.cuh"
#include "common/ptx.cuh"
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
constexpr int BLOCK_K     = 64;       // K of one tile load: 128 bytes of bf16
constexpr int MMA_K       = 16;       // fixed for kind::f16: 32 bytes of K per MMA
constexpr int SLICE_K     = 64;       // one 128-byte slice of K: the width of a 128B swizzle atom
constexpr int NUM_THREADS = 128;      // 4 warps: the epilogue needs one warp per 32-lane TMEM quarter
constexpr int TMEM_COLS   = BLOCK_N;  // one fp32 TMEM column per output column

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
// barriers and TMEM slot (static shared memory, under 1 KB): 7 x 32 KB.
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
static_assert(BLOCK_K % MMA_K == 0, "a tile holds whole MMA K steps");
static_assert(BLOCK_K % SLICE_K == 0, "a tile holds whole 128-byte swizzle spans of K");
static_assert(A_TILE_BYTES % 1024 == 0 && B_TILE_BYTES % 1024 == 0,
              "tiles are whole 1024-B swizzle atoms, so the B tile after A starts 1024-B aligned too");
static_assert(TMEM_COLS >= 32 && (TMEM_COLS & (TMEM_COLS - 1)) == 0, "TMEM allocations are powers of 2 >= 32");
static_assert(NUM_THREADS == 4 * 32, "one epilogue warp per TMEM lane quarter");
static_assert(NUM_STAGES >= 2, "a pipeline needs one stage to multiply and at least one to load into");
static_assert(NUM_STAGES == 7, "128-row A and B-half tiles, 64 K: 7 stages of 32 KB fit in 227 KB");
static_assert(SMEM_BYTES <= SMEM_BUDGET,
              "the ring must fit in the 227 KB of shared memory per block: use fewer stages");

// ---- where the TMA box of a K tile goes: the kernel issues exactly this one (tests/test_stage_table.cpp
//      checks it against the layout model's table) ----
// One 3D box {64, rows, BLOCK_K/64} from K slice k0/64, landing as BLOCK_K/64 [rows x 128 B] slices.
constexpr int TMA_BOXES = 1;
GEMM_HD constexpr TmaBox tma_box(KMajorTile tile, int row0, int k0, int j) {
  (void)tile, (void)j;
  return {0u, {0, row0, k0 / SLICE_K}};
}

// ---- the kernel ----
// TRACE: the in-kernel profiler's `prof.` lines record each warp's waits and issues (--trace); compiled out
// of the TRACE=false instantiation, which is the one checked and timed (common/profiler.cuh).
template <bool TRACE>
__global__ void __launch_bounds__(NUM_THREADS)
    matmul_v5_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                     __nv_bfloat16* c, int m, int n, int k, TraceBuffer trace) {
#if defined(GEMM_HAS_TCGEN05)
  extern __shared__ uint8_t smem_raw[];
  uint8_t* ring = align_smem_1024(smem_raw);  // stage s: A tile at s * STAGE_BYTES, then its B tile
  auto a_smem   = [&](int s) { return ring + a_tile_offset(s); };
  auto b_smem   = [&](int s) { return ring + b_tile_offset(s); };
  __shared__ uint64_t tma_full_bar[NUM_STAGES];  // "full" (CTA 0's only): both CTAs' bytes of stage s landed
  __shared__ uint64_t mma_done_bar[NUM_STAGES];  // "empty": the MMAs that read stage s of both CTAs are done
  __shared__ uint64_t mainloop_done_bar;         // every MMA of the K loop is done: TMEM holds the result
  __shared__ uint32_t tmem_slot;     // tcgen05.alloc writes the TMEM base address here

  const int warp_id = threadIdx.x / 32;
  const int lane    = threadIdx.x % 32;
  // The cluster is blockIdx.x = 2c, 2c + 1 (cluster dims 2 x 1): cluster (c, p = blockIdx.y) computes the
  // 256x256 block of C at N tile c and M tiles 2p, 2p + 1, in v4's order (N fastest). The CTA of rank r
  // (blockIdx.x % 2) takes M tile 2p + r and B rows n0 + r * 128.
  const int cta_rank = int(ptx::cluster_ctarank());
  const int m0       = (blockIdx.y * CLUSTER_SIZE + cta_rank) * BLOCK_M;
  const int n0       = blockIdx.x / CLUSTER_SIZE * BLOCK_N;
  (void)m;
  Profiler<TRACE> prof(trace, /*role=*/warp_id, /*records=*/true);
  prof.begin(Ev::Setup);

  // ---- setup: barriers by one thread, TMEM by one whole warp ----
  if (warp_id == 0 && ptx::elect_one_sync()) {
    for (int s = 0; s < NUM_STAGES; ++s) {
      ptx::mbarrier_init(&tma_full_bar[s], CLUSTER_SIZE);  // one arrival per CTA's TMA thread (CTA 0's only)
      ptx::mbarrier_init(&mma_done_bar[s], 1);             // one arrival: CTA 0's multicast tcgen05.commit
    }
    ptx::mbarrier_init(&mainloop_done_bar, 1);  // one arrival: the commit after the last K tile
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
  const uint32_t tmem_acc = tmem_slot;
  prof.end(Ev::Setup);

  const int num_k_tiles = k / BLOCK_K;
  if (warp_id == 0) {
    // ---- producer (warp 0): one thread keeps the ring full ----
    if (ptx::elect_one_sync()) {
      // load: announce this CTA's bytes of K tile `k_tile` on CTA 0's full barrier, then issue the copies of
      // its A rows and its half of B into its own ring stage `s`, completing on that same barrier
      auto load = [&](int k_tile, int s) {
        const uint32_t full_bar_cta0 = ptx::mapa_shared_cluster(&tma_full_bar[s], 0);
        ptx::mbarrier_arrive_expect_tx_cluster(full_bar_cta0, A_TILE_BYTES + B_TILE_BYTES);
        const int k0 = k_tile * BLOCK_K;
        for (int j = 0; j < TMA_BOXES; ++j) {
          const TmaBox a = tma_box(A_TILE, m0, k0, j);
          const TmaBox b = tma_box(B_TILE, n0 + cta_rank * B_TILE.rows, k0, j);
          tc5::tma_load_3d_cta_group2(a_smem(s) + a.smem_offset, &a_map, full_bar_cta0, a.coords[0],
                                      a.coords[1], a.coords[2]);
          tc5::tma_load_3d_cta_group2(b_smem(s) + b.smem_offset, &b_map, full_bar_cta0, b.coords[0],
                                      b.coords[1], b.coords[2]);
        }
      };
      int stage            = 0;  // ring stage of k_tile
      uint32_t empty_phase = 1;  // parity of the "empty" phase to wait for: 1 passes at once on the first lap
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
    // ---- mma (warp 1 of CTA 0): one thread issues the pair's MMAs of each full stage ----
    if (ptx::elect_one_sync()) {
      int stage           = 0;  // ring stage of k_tile
      uint32_t full_phase = 0;  // parity of this use of the stage's "full" barrier: flips when `stage` wraps
      for (int k_tile = 0; k_tile < num_k_tiles; ++k_tile) {
        prof.begin(Ev::WaitFull);
        ptx::mbarrier_wait(&tma_full_bar[stage], full_phase, "tma_full_bar");
        prof.end(Ev::WaitFull);
        tc5::fence_after_thread_sync();

        // compute: BLOCK_K/16 MMAs; the first of the whole K loop overwrites the accumulator
        prof.begin(Ev::IssueMma);
        const uint32_t a_addr = ptx::smem_addr(a_smem(stage)), b_addr = ptx::smem_addr(b_smem(stage));
#pragma unroll
        for (int k_step = 0; k_step < BLOCK_K / MMA_K; ++k_step) {
          const uint64_t a_desc = kmajor_desc_sm100(A_TILE, a_addr, k_step);
          const uint64_t b_desc = kmajor_desc_sm100(B_TILE, b_addr, k_step);
          tc5::mma_f16_ss<CTA_GROUP>(tmem_acc, a_desc, b_desc, IDESC, (k_tile > 0 || k_step > 0) ? 1u : 0u);
        }
        // arrives, in both CTAs, once the MMAs above have read this stage of both: it is empty
        tc5::commit_multicast<CTA_GROUP>(&mma_done_bar[stage], CLUSTER_MASK);
        prof.end(Ev::IssueMma);

        if (++stage == NUM_STAGES) {
          stage = 0;
          full_phase ^= 1;
        }
      }
      tc5::commit_multicast<CTA_GROUP>(&mainloop_done_bar, CLUSTER_MASK);  // once every MMA above is done
    }
    __syncwarp();
  }

  // ---- all four warps: wait until the last MMA has completed (not merely been issued) ----
  // mainloop_done_bar completes once per kernel, so no warp can confuse its phase 0 with a later one.
  prof.begin(Ev::WaitMma);
  ptx::mbarrier_wait(&mainloop_done_bar, 0, "mainloop_done_bar");
  prof.end(Ev::WaitMma);
  __syncwarp();  // the warp is converged again before the .sync.aligned TMEM loads
  tc5::fence_after_thread_sync();

  // ---- epilogue: warp w owns TMEM lanes 32w..32w+31 = output rows; thread t holds row 32w + t ----
  prof.begin(Ev::Epilogue);
  const int row = m0 + warp_id * 32 + lane;
#pragma unroll 4
  for (int col = 0; col < BLOCK_N; col += 8) {
    float v[8];
    tc5::ld_32x32b_x8(tmem_addr(tmem_acc, warp_id * 32, col), v);
    tc5::wait_ld();
    __nv_bfloat162 packed[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) packed[i] = __floats2bfloat162_rn(v[2 * i], v[2 * i + 1]);
    *reinterpret_cast<uint4*>(c + size_t(row) * n + n0 + col) = *reinterpret_cast<const uint4*>(packed);
  }

  prof.end(Ev::Epilogue);

  // ---- teardown: every TMEM read of BOTH CTAs is done before the allocating warps free the pair's TMEM;
  //      the cluster barrier also keeps each CTA alive while the peer may still signal its barriers. (The
  //      Hopper twin splits its exit barrier and arrives before its epilogue; here the epilogue's TMEM
  //      reads must come before the arrival, so arrive and wait stay together.) ----
  prof.begin(Ev::Teardown);
  tc5::fence_before_thread_sync();
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
  if (warp_id == 1) {
    tc5::fence_after_thread_sync();
    tc5::tmem_dealloc<CTA_GROUP>(tmem_acc, TMEM_COLS);  // with warp 1 of the peer CTA
  }
  prof.end(Ev::Teardown);
#elif defined(__CUDA_ARCH__)
  __trap();  // compiled for a GPU without tcgen05: fail loudly, never return with C unwritten
#endif  // GEMM_HAS_TCGEN05
}

// ---- host launcher ----
// With `trace`: the TRACE=true instantiation, recording into a buffer sized from the grid (--trace).
Launch prepare_v5(const GemmArgs& g, DeviceTrace* trace) {
  // B's tensor map is N rows high: B is [N, K] (seed 000's first version got this wrong). Its box is one
  // CTA's half of the MMA's N.
  const TmaDesc a_desc = kmajor_tma_3d(g.m, g.k, BLOCK_M, BLOCK_K, SLICE_K, 2, Swizzle::B128);
  const TmaDesc b_desc = kmajor_tma_3d(g.n, g.k, B_TILE.rows, BLOCK_K, SLICE_K, 2, Swizzle::B128);
  const CUtensorMap a_map = make_tensor_map(a_desc, g.a, "A");
  const CUtensorMap b_map = make_tensor_map(b_desc, g.b, "B");
  auto* kernel            = trace ? matmul_v5_kernel<true> : matmul_v5_kernel<false>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
  // x: CLUSTER_SIZE CTAs (one cluster) per N tile; y: one per pair of M tiles
  const dim3 grid(unsigned(g.n / BLOCK_N * CLUSTER_SIZE), unsigned(g.m / BLOCK_M / CLUSTER_SIZE));
  auto* c = static_cast<__nv_bfloat16*>(g.c);
  const int m = int(g.m), n = int(g.n), k = int(g.k);
  TraceBuffer buf;  // --trace: per CTA and warp, setup, 2 events per K tile, the wait, epilogue, teardown
  if (trace)
    buf = trace->allocate(grid.x * grid.y, {"warp 0 TMA", "warp 1 MMA", "warp 2", "warp 3"},
                          2 * (k / BLOCK_K) + 8);
  return [=](cudaStream_t stream) {
    // A cluster of CLUSTER_SIZE CTAs along x: blockIdx.x 2c and 2c + 1 run together, on two SMs of one GPC.
    cudaLaunchAttribute cluster;
    cluster.id               = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = CLUSTER_SIZE;
    cluster.val.clusterDim.y = 1;
    cluster.val.clusterDim.z = 1;
    cudaLaunchConfig_t cfg   = {};
    cfg.gridDim              = grid;
    cfg.blockDim             = dim3(NUM_THREADS);
    cfg.dynamicSmemBytes     = SMEM_BYTES;
    cfg.stream               = stream;
    cfg.attrs                = &cluster;
    cfg.numAttrs             = 1;
    CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, a_map, b_map, c, m, n, k, buf));
  };
}
Launch prepare_v5(const GemmArgs& g) { return prepare_v5(g, nullptr); }
Launch prepare_v5_traced(const GemmArgs& g, DeviceTrace& trace) {
  return prepare_v5(g, &trace);
}

}  // namespace

std::vector<Variant> sm100_variants() {
  const ShapeRule whole_tiles{CLUSTER_SIZE * BLOCK_M, BLOCK_N, BLOCK_K,
                              "needs whole 256x256x64 cluster tiles: the two CTAs of a 2-CTA cluster take "
                              "adjacent 128-row M tiles",
                              "2*BLOCK_M"};
  const char* kernel = "sm_100a tcgen05 kernel (v5_2sm/matmul_v5.cu)";
  SmemTiles tiles{A_TILE, B_TILE, BLOCK_M, /*tma_3d=*/true, NUM_STAGES, SLICE_K, TMA_BOXES, tma_box};
  tiles.cta_group = CTA_GROUP;  // the MMA spans the pair: M = 2 x 128, N = 2 x B_TILE.rows
  return {
      {"v5", "tcgen05 cta_group::2, MMA 256x256 over a 2-CTA cluster", kernel,
       whole_tiles, tiles, prepare_v5, prepare_v5_traced},
  };
}

}  // namespace gemm
