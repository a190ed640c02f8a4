// matmul_v5_sm90.cu: stage 5 on Hopper (sm_90a), the twin of matmul_v5.cu with wgmma: two CTAs share one
// operand tile through a 2-CTA cluster and TMA multicast.
//
// C[M,N] = A[M,K] * B[N,K]^T, bf16 in and out, fp32 accumulation, both operands K-major.
//
// What changed since v4 (seed 000, "2-SM MMA"; CUDA Programming Guide, "Distributed Shared Memory"): Hopper has no MMA
// that spans two SMs, but it has clusters, whose CTAs can write into each other's shared memory. Two CTAs
// that need the same B tile now read it from L2 once:
//  1. A cluster of 2 CTAs (cudaLaunchKernelEx with a cluster-dimension attribute, 2 x 1). The two CTAs,
//     blockIdx.x = 2c and 2c + 1, take vertically adjacent 128-row M tiles and the same 256-column N tile c:
//     together a 256x256 block of C. The clusters walk these blocks in v4's order (N fastest).
//  2. Each CTA loads its own A tile, and ONE HALF of the shared B tile (128 rows) with a multicast TMA
//     (ctaMask 0b11), which writes it to the same offset in both CTAs' shared memory and completes its bytes
//     on the full barrier at the same offset in both. Each CTA's tma_full_bar still expects the whole stage,
//     A plus both halves of B: its own copies and the peer's. Both CTAs issue half, so neither is the
//     bottleneck. The two halves are the two 128-row boxes of one 256-row tile (tma_box, box j by CTA j).
//  3. A stage is empty only when the consumers of BOTH CTAs are done with it: the peer's multicast writes
//     into this CTA's ring too. So mma_done_bar counts NUM_CONSUMERS x 2 arrivals, and each consumer warpgroup
//     arrives on the barrier of both CTAs, through the shared::cluster address mapa gives for each rank
//     (mbarrier.arrive.relaxed.cluster.shared::cluster: its reads were wgmma reads, already waited for).
//  4. Cluster barriers (barrier.cluster.arrive/wait) replace the CTA barrier after setup, so that no
//     multicast or remote arrival reaches a barrier the peer has not initialised; and one comes before exit,
//     so that no CTA leaves while its peer may still arrive on its barriers. Its two halves are split: each
//     thread arrives after its last remote operation (the producer after its loop, the consumers before the
//     epilogue) and waits just before exit, so the pair's epilogues do not wait for each other.
// The tile order stays v4's, so that this step is the shared B tile alone (in that order each wave at 8192^3
// streams all of B from DRAM: docs/performance/v4-no-faster-than-v3.md, "The answer"). Orders that keep the
// clusters of a wave close in C, for L2, come with the persistent kernel of v6.
//
// Why it helps: the B tile, 32 KB per K tile, crosses from L2 to the SMs once per pair instead of twice: per
// FLOP the CTAs read 2/3 of v4's operand bytes from L2 (A 16 KB + half of B 16 KB per CTA and K tile,
// against 48 KB): B's bytes per FLOP halve.
// What it costs: clusters must be scheduled as a pair on two free SMs of one GPC; a stage is refilled only
// when the slower CTA of the pair has released it, so each CTA waits for its peer; remote arrivals.
//
// PTX ISA sections: as v4, plus "cp.async.bulk.tensor" (.multicast::cluster, ctaMask), "mapa", "mbarrier"
// (shared::cluster arrivals, relaxed at cluster scope), "barrier.cluster", "Special Registers:
// %cluster_ctarank", and the CUDA Programming Guide's "Thread Block Clusters" (the launch attribute).
#include <cuda_bf16.h>

#include "common/check.h"
#include "common/descriptors.cuh"
#include "common/harness.h"
#include "common/profiler.cuh"
#include "common/ptx.cuh"
#include "common/tma.h"
#include "common/wgmma.cuh"

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

constexpr KMajorTile A_TILE{BLOCK_M, BLOCK_K, 2, Swizzle::B128};
constexpr KMajorTile B_TILE{BLOCK_N, BLOCK_K, 2, Swizzle::B128};
constexpr uint32_t A_TILE_BYTES = kmajor_tile_bytes(A_TILE);
constexpr uint32_t B_TILE_BYTES = kmajor_tile_bytes(B_TILE);
constexpr uint32_t STAGE_BYTES  = A_TILE_BYTES + B_TILE_BYTES;  // one ring stage: [A tile][B tile]
// The ring's layout is the same in both CTAs of the cluster, and must be: a multicast copy and its barrier
// signal land at the SAME offsets in every destination CTA. It is a function of these constants only (no CTA
// rank), and the barriers are static shared memory, laid out identically by the compiler for every CTA of
// the kernel: nothing here can differ between the two CTAs.
GEMM_HD constexpr uint32_t a_tile_offset(int s) { return uint32_t(s) * STAGE_BYTES; }
GEMM_HD constexpr uint32_t b_tile_offset(int s) { return uint32_t(s) * STAGE_BYTES + A_TILE_BYTES; }
// Ring depth: as many stages as fit in the 227 KB a block may have, after the alignment slack and the
// barriers (static shared memory, under 1 KB): 4 x 48 KB, as in v3.
constexpr uint32_t SMEM_BUDGET = 227 * 1024;
constexpr int NUM_STAGES       = int((SMEM_BUDGET - SMEM_ALIGN - 1024) / STAGE_BYTES);
constexpr uint32_t SMEM_BYTES  = NUM_STAGES * STAGE_BYTES + SMEM_ALIGN;

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
static_assert(BLOCK_K == SLICE_K, "B's halves are contiguous only with one K slice per tile (128 B rows)");
static_assert((BOX_ROWS * 128) % 1024 == 0, "each half of B starts on a whole 1024-B swizzle atom");
static_assert(b_tile_offset(1) - b_tile_offset(0) == STAGE_BYTES && a_tile_offset(0) == 0 &&
                  b_tile_offset(NUM_STAGES - 1) + B_TILE_BYTES == NUM_STAGES * STAGE_BYTES,
              "the ring layout: [A_s B_s] per stage, contiguous, from the 1024-B aligned base");
static_assert(SMEM_BYTES <= SMEM_BUDGET,
              "the ring must fit in the 227 KB of shared memory per block: use fewer stages");

// ---- where the TMA boxes of a K tile go: the kernel issues exactly these (tests/test_stage_table.cpp
//      checks them against the layout model's table) ----
// 3D boxes {64, BOX_ROWS, 1} from K slice k0/64. A's tile is one box; B's 256-row tile is two, stacked along
// its rows: box j, rows j*128 .. +127, lands at j * 16 KB, and CTA j of the cluster multicasts it.
constexpr int TMA_BOXES = 1;  // per operand and K tile along K (B: one per CTA along its rows)
GEMM_HD constexpr TmaBox tma_box(KMajorTile tile, int row0, int k0, int j) {
  return {kmajor_row_offset(tile, j * BOX_ROWS), {0, row0 + j * BOX_ROWS, k0 / SLICE_K}};
}

// ---- the kernel ----
// TRACE: the in-kernel profiler's `prof.` lines record each role's waits and issues (--trace); compiled out
// of the TRACE=false instantiation, which is the one checked and timed (common/profiler.cuh).
template <bool TRACE>
__global__ void __launch_bounds__(NUM_THREADS, 1)
    matmul_v5_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                     __nv_bfloat16* c, int m, int n, int k, TraceBuffer trace) {
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
  // The cluster is blockIdx.x = 2c, 2c + 1 (cluster dims 2 x 1): cluster (c, p = blockIdx.y) computes the
  // 256x256 block of C at N tile c and M tiles 2p, 2p + 1, in v4's order (N fastest). The CTA of rank r
  // (blockIdx.x % 2) takes M tile 2p + r.
  const int cta_rank  = int(ptx::cluster_ctarank());
  const int m0        = (blockIdx.y * CLUSTER_SIZE + cta_rank) * BLOCK_M;
  const int n0        = blockIdx.x / CLUSTER_SIZE * BLOCK_N;
  (void)m;
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

  const int num_k_tiles = k / BLOCK_K;
  if (warpgroup == 0) {
    // ---- producer: one thread keeps the ring full ----
    wg::setmaxnreg_dec<PRODUCER_REGS>();
    if (warp_id == 0 && ptx::elect_one_sync()) {
      // load: announce the bytes of K tile `k_tile` that land in this CTA (its A, both halves of B), then
      // issue its copies into ring stage `s`: its A, and its half of B multicast to both CTAs
      auto load = [&](int k_tile, int s) {
        ptx::mbarrier_arrive_expect_tx(&tma_full_bar[s], A_TILE_BYTES + B_TILE_BYTES);
        const int k0 = k_tile * BLOCK_K;
        for (int j = 0; j < TMA_BOXES; ++j) {
          const TmaBox a = tma_box(A_TILE, m0, k0, j), b = tma_box(B_TILE, n0, k0, cta_rank);
          ptx::tma_load_3d(a_smem(s) + a.smem_offset, &a_map, &tma_full_bar[s], a.coords[0], a.coords[1],
                           a.coords[2]);
          ptx::tma_load_3d_multicast(b_smem(s) + b.smem_offset, &b_map, &tma_full_bar[s], CLUSTER_MASK,
                                     b.coords[0], b.coords[1], b.coords[2]);
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
    }
    // Its last multicast is issued: arrive on the exit barrier now, wait for the pair only at the very end.
    __syncwarp();
    ptx::barrier_cluster_arrive();
  } else {
    // ---- consumers: warpgroup 1 + w multiplies rows 64w .. 64w+63 of the tile ----
    wg::setmaxnreg_inc<CONSUMER_REGS>();
    const int consumer = warpgroup - 1;
    float acc[ACC_REGS];
#pragma unroll
    for (int i = 0; i < ACC_REGS; ++i) acc[i] = 0.0f;

    int stage           = 0;  // ring stage of k_tile
    uint32_t full_phase = 0;  // parity of this use of the stage's "full" barrier: flips when `stage` wraps
    uint64_t mma_issued = 0;  // trace: when the MMAs of k_tile - 1 were issued
    for (int k_tile = 0; k_tile < num_k_tiles; ++k_tile) {
      prof.begin(Ev::WaitFull);
      ptx::mbarrier_wait(&tma_full_bar[stage], full_phase, "tma_full_bar");
      prof.end(Ev::WaitFull);

      // compute: BLOCK_K/16 MMAs on this warpgroup's 64 rows of A; scale-d 0 on the very first
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
    // Its last remote arrival is made: arrive on the exit barrier before the epilogue, so that the pair's
    // epilogues do not wait for each other.
    ptx::barrier_cluster_arrive();
    prof.begin(Ev::Epilogue);

    // ---- epilogue: thread t of warp w (in its warpgroup) holds rows 16w + t/4 and +8,
    //      columns 8j + 2(t%4) + {0, 1} of the warpgroup's 64 x 256 block ----
    const int row = m0 + consumer * WGMMA_M + (warp_id % 4) * 16 + lane / 4;
#pragma unroll
    for (int j = 0; j < BLOCK_N / 8; ++j) {
      const int col = n0 + 8 * j + 2 * (lane % 4);
      *reinterpret_cast<__nv_bfloat162*>(c + size_t(row) * n + col) =
          __floats2bfloat162_rn(acc[4 * j + 0], acc[4 * j + 1]);
      *reinterpret_cast<__nv_bfloat162*>(c + size_t(row + 8) * n + col) =
          __floats2bfloat162_rn(acc[4 * j + 2], acc[4 * j + 3]);
    }
    prof.end(Ev::Epilogue);
  }

  // ---- teardown: no CTA exits while its peer may still arrive on its barriers or write into its ring ----
  // Every thread arrived once its last remote operation was issued (above); the peer's multicasts into this
  // CTA have all landed, since its consumers waited for them. Waiting here for every thread of the pair to
  // have arrived keeps this CTA's barriers and ring alive until the peer's last arrival on them.
  prof.begin(Ev::Teardown);
  ptx::barrier_cluster_wait();
  prof.end(Ev::Teardown);
#elif defined(__CUDA_ARCH__)
  __trap();  // compiled for a GPU without wgmma: fail loudly, never return with C unwritten
#endif  // GEMM_HAS_WGMMA
}

// ---- host launcher ----
// With `trace`: the TRACE=true instantiation, recording into a buffer sized from the grid (--trace).
Launch prepare_v5(const GemmArgs& g, DeviceTrace* trace) {
  // B's tensor map is N rows high: B is [N, K]. Its box is one CTA's half of the tile.
  const TmaDesc a_desc = kmajor_tma_3d(g.m, g.k, BLOCK_M, BLOCK_K, SLICE_K, 2, Swizzle::B128);
  const TmaDesc b_desc = kmajor_tma_3d(g.n, g.k, BOX_ROWS, BLOCK_K, SLICE_K, 2, Swizzle::B128);
  const CUtensorMap a_map = make_tensor_map(a_desc, g.a, "A");
  const CUtensorMap b_map = make_tensor_map(b_desc, g.b, "B");
  auto* kernel            = trace ? matmul_v5_kernel<true> : matmul_v5_kernel<false>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
  // x: CLUSTER_SIZE CTAs (one cluster) per N tile; y: one per pair of M tiles
  const dim3 grid(unsigned(g.n / BLOCK_N * CLUSTER_SIZE), unsigned(g.m / BLOCK_M / CLUSTER_SIZE));
  auto* c = static_cast<__nv_bfloat16*>(g.c);
  const int m = int(g.m), n = int(g.n), k = int(g.k);
  TraceBuffer buf;  // --trace: per CTA and role, setup, 4 events per K tile, the last wait, the epilogue
  if (trace)
    buf = trace->allocate(grid.x * grid.y, {"producer", "consumer 0", "consumer 1"}, 4 * (k / BLOCK_K) + 8);
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

std::vector<Variant> sm90_variants() {
  const ShapeRule whole_tiles{CLUSTER_SIZE * BLOCK_M, BLOCK_N, BLOCK_K,
                              "needs whole 256x256x64 cluster tiles: the two CTAs of a 2-CTA cluster take "
                              "adjacent 128-row M tiles",
                              "2*BLOCK_M"};
  const char* kernel = "sm_90a wgmma kernel, the Hopper twin (v5_2sm/matmul_v5_sm90.cu)";
  SmemTiles tiles{A_TILE, B_TILE, WGMMA_M, /*tma_3d=*/true, NUM_STAGES, SLICE_K, TMA_BOXES, tma_box};
  tiles.b_split = CLUSTER_SIZE;  // B's tile: one 128-row box multicast by each CTA of the pair
  return {
      {"v5", "wgmma, 2-CTA cluster along M, B tile multicast (each CTA half)", kernel,
       whole_tiles, tiles, prepare_v5, prepare_v5_traced},
  };
}

}  // namespace gemm
