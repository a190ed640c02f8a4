// matmul_v3.cu: stage 3 on Blackwell (sm_100a): a ring of shared-memory stages, so that loads are in flight
// while the tensor core multiplies.
//
// C[M,N] = A[M,K] * B[N,K]^T, bf16 in and out, fp32 accumulation, both operands K-major.
//
// What changed since v2 (seed 000, "Pipelining"): the K loop is software-pipelined "Ampere style": the same
// thread still issues both the TMA and the MMAs (no warp specialisation yet: that is v4).
//  1. NUM_STAGES shared-memory stages (an A and a B tile each) form a ring. Each stage has its own
//     tma_full_bar (its bytes have landed) and mma_done_bar (the MMAs that read it are done: it may be
//     refilled).
//  2. Before the loop, NUM_STAGES - 1 K tiles are put in flight (fewer if K is short). In iteration k the
//     MMAs of tile k are issued and committed to mma_done_bar[stage of k]; then the stage of tile k - 1 is
//     refilled with tile k + NUM_STAGES - 1 as soon as the MMAs of k - 1 have completed. The MMAs of k are
//     already queued behind those, so the tensor core has work while the thread waits, and NUM_STAGES - 1
//     loads are in flight at any time.
//  3. Phase bookkeeping: a stage index and one phase bit that flips each time the index wraps. A stage's
//     barriers complete once per use of the stage, so every wait names the parity of that use. The parities
//     are never kept in an array indexed at run time (that would put it in local memory).
//  4. Before the epilogue the MMAs of the last K tile must have completed: __syncthreads() does not wait for
//     tcgen05.mma; warp 0 waits for the last tile's mma_done_bar, then the barrier tells the other warps.
// v3 builds on v2b (one 3D TMA box per operand, 128B swizzle); the 2D-box variant v2a is dropped. The layout
// and its builders (kmajor_desc_sm100, kmajor_tma_3d) are v2's.
//
// Why it helps: in v2 the tensor core idles during every load (the latency of a TMA round trip per K tile)
// and the TMA engine idles during every multiply. With the ring, each load overlaps the MMAs of earlier
// tiles. Measured on the Hopper twin (H100): the tables in v2_swizzle128/README.md and v3_pipeline/README.md.
// What it costs: NUM_STAGES times the shared memory (7 x 32 KB here, as many as fit) and the phase
// bookkeeping.
//
// PTX ISA sections: as v2, plus "mbarrier" (phases, and try_wait.parity waiting for the phase of a parity)
// and "tcgen05.commit" (one mbarrier per stage tracks the completion of the MMAs issued before it).
//
// Status: compiled for sm_100a and model-checked (tests/test_layout_model.cpp, SASS tests); not run on
// Blackwell hardware by this project. Published B200 anchor (seed 000): v3 940 TFLOPS at 4096^3
// (cuBLAS 1507), with BLOCK_N 256, BLOCK_K 128 and 2 stages (the code the seed links; its text states
// BLOCK_M 128 only).
// Through the tcgen05 emulator (common/tcgen05_emu.h) it passes against cuBLAS on an H100, under both
// MMA schedules, with its 7-stage ring: `matmul_v3 --emulate` (correctness only; emulation times nothing).
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
constexpr int BLOCK_M     = 128;      // = MMA M: one tcgen05.mma covers all 128 TMEM lanes
constexpr int BLOCK_N     = 128;      // = MMA N (ISA: 8..256 in steps of 8 at M=128; ours: steps of 16)
constexpr int BLOCK_K     = 64;       // K of one tile load: 128 bytes of bf16
constexpr int MMA_K       = 16;       // fixed for kind::f16: 32 bytes of K per MMA
constexpr int SLICE_K     = 64;       // one 128-byte slice of K: the width of a 128B swizzle atom
constexpr int NUM_THREADS = 128;      // 4 warps: the epilogue needs one warp per 32-lane TMEM quarter
constexpr int TMEM_COLS   = BLOCK_N;  // one fp32 TMEM column per output column

constexpr KMajorTile A_TILE{BLOCK_M, BLOCK_K, 2, Swizzle::B128};
constexpr KMajorTile B_TILE{BLOCK_N, BLOCK_K, 2, Swizzle::B128};
constexpr uint32_t A_TILE_BYTES = kmajor_tile_bytes(A_TILE);
constexpr uint32_t B_TILE_BYTES = kmajor_tile_bytes(B_TILE);
constexpr uint32_t STAGE_BYTES  = A_TILE_BYTES + B_TILE_BYTES;  // one ring stage: [A tile][B tile]
// Ring depth: as many stages as fit in the 227 KB a block may have, after the alignment slack and the
// barriers and TMEM slot (static shared memory, under 1 KB): 7 x 32 KB.
constexpr uint32_t SMEM_BUDGET = 227 * 1024;
constexpr int NUM_STAGES       = int((SMEM_BUDGET - SMEM_ALIGN - 1024) / STAGE_BYTES);
constexpr uint32_t SMEM_BYTES  = NUM_STAGES * STAGE_BYTES + SMEM_ALIGN;
// kind::f16, BF16 x BF16 -> F32, both K-major, M = 128, N = BLOCK_N.
constexpr uint32_t IDESC = make_idesc_f16(F16Kind::BF16, F16Kind::BF16, AccKind::F32, BLOCK_M, BLOCK_N);

static_assert(BLOCK_M == 128, "v3 uses the M=128 cta_group::1 MMA: one accumulator row per TMEM lane");
static_assert(BLOCK_N % 16 == 0 && BLOCK_N >= 16 && BLOCK_N <= 256, "MMA N: 16..256, step 16 (ours; the ISA allows 8)");
static_assert(BLOCK_K % MMA_K == 0, "a tile holds whole MMA K steps");
static_assert(BLOCK_K % SLICE_K == 0, "a tile holds whole 128-byte swizzle spans of K");
static_assert(A_TILE_BYTES % 1024 == 0 && B_TILE_BYTES % 1024 == 0,
              "tiles are whole 1024-B swizzle atoms, so the B tile after A starts 1024-B aligned too");
static_assert(TMEM_COLS >= 32 && (TMEM_COLS & (TMEM_COLS - 1)) == 0, "TMEM allocations are powers of 2 >= 32");
static_assert(NUM_THREADS == 4 * 32, "one epilogue warp per TMEM lane quarter");
static_assert(NUM_STAGES >= 2, "a pipeline needs one stage to multiply and at least one to load into");
static_assert(NUM_STAGES == 7, "128x128x64 bf16 tiles: 7 stages of 32 KB fit in 227 KB");
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
    matmul_v3_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                     __nv_bfloat16* c, int m, int n, int k, TraceBuffer trace) {
#if defined(GEMM_HAS_TCGEN05)
  extern __shared__ uint8_t smem_raw[];
  uint8_t* ring = align_smem_1024(smem_raw);  // stage s: A tile at s * STAGE_BYTES, then its B tile
  auto a_smem   = [&](int s) { return ring + s * STAGE_BYTES; };
  auto b_smem   = [&](int s) { return ring + s * STAGE_BYTES + A_TILE_BYTES; };
  __shared__ uint64_t tma_full_bar[NUM_STAGES];  // the TMA bytes of the K tile in stage s have landed
  __shared__ uint64_t mma_done_bar[NUM_STAGES];  // the MMAs that read stage s are done: it may be refilled
  __shared__ uint32_t tmem_slot;     // tcgen05.alloc writes the TMEM base address here

  const int warp_id = threadIdx.x / 32;
  const int lane    = threadIdx.x % 32;
  const int m0      = blockIdx.y * BLOCK_M;
  const int n0      = blockIdx.x * BLOCK_N;
  (void)m;
  Profiler<TRACE> prof(trace, /*role=*/warp_id, /*records=*/true);
  prof.begin(Ev::Setup);

  // ---- setup: barriers by one thread, TMEM by one whole warp ----
  if (warp_id == 0 && ptx::elect_one_sync()) {
    for (int s = 0; s < NUM_STAGES; ++s) {
      ptx::mbarrier_init(&tma_full_bar[s], 1);  // one arrival: the thread that issues the TMA
      ptx::mbarrier_init(&mma_done_bar[s], 1);  // one arrival: tcgen05.commit
    }
    ptx::fence_mbarrier_init();
  } else if (warp_id == 1) {
    tc5::tmem_alloc(&tmem_slot, TMEM_COLS);
    tc5::tmem_relinquish_alloc_permit();
  }
  tc5::fence_before_thread_sync();
  __syncthreads();
  tc5::fence_after_thread_sync();
  const uint32_t tmem_acc = tmem_slot;
  prof.end(Ev::Setup);

  // ---- main loop, warp 0: NUM_STAGES - 1 K tiles in flight while one is multiplied ----
  // Only warp 0 waits on the barriers. Were every warp to wait, a warp that fell two phases behind could not
  // tell a barrier's phase k from phase k+2 (a wait names only a parity); the others just wait for the result.
  if (warp_id == 0) {
    const int num_k_tiles = k / BLOCK_K;
    // load: one thread announces the bytes of K tile `k_tile`, then issues the copies into ring stage `s`
    auto load = [&](int k_tile, int s) {
      ptx::mbarrier_arrive_expect_tx(&tma_full_bar[s], A_TILE_BYTES + B_TILE_BYTES);
      const int k0 = k_tile * BLOCK_K;
      for (int j = 0; j < TMA_BOXES; ++j) {
        const TmaBox a = tma_box(A_TILE, m0, k0, j), b = tma_box(B_TILE, n0, k0, j);
        ptx::tma_load_3d(a_smem(s) + a.smem_offset, &a_map, &tma_full_bar[s], a.coords[0], a.coords[1],
                         a.coords[2]);
        ptx::tma_load_3d(b_smem(s) + b.smem_offset, &b_map, &tma_full_bar[s], b.coords[0], b.coords[1],
                         b.coords[2]);
      }
    };
    // prologue: tiles 0 .. NUM_STAGES-2 into stages 0 .. NUM_STAGES-2 (only the tiles there are, if K is short)
    if (ptx::elect_one_sync()) {
      for (int t = 0; t < NUM_STAGES - 1 && t < num_k_tiles; ++t) {
        prof.begin(Ev::IssueTma);
        load(t, t);
        prof.end(Ev::IssueTma);
      }
    }
    int stage      = 0;  // ring stage of k_tile
    uint32_t phase = 0;  // parity of this use of the stage's barriers: flips each time `stage` wraps to 0
    for (int k_tile = 0; k_tile < num_k_tiles; ++k_tile) {
      prof.begin(Ev::WaitFull);
      ptx::mbarrier_wait(&tma_full_bar[stage], phase, "tma_full_bar");
      prof.end(Ev::WaitFull);
      tc5::fence_after_thread_sync();

      // compute: one thread issues BLOCK_K/16 MMAs; the first of the whole K loop overwrites the accumulator
      if (ptx::elect_one_sync()) {
        prof.begin(Ev::IssueMma);
        const uint32_t a_addr = ptx::smem_addr(a_smem(stage)), b_addr = ptx::smem_addr(b_smem(stage));
#pragma unroll
        for (int k_step = 0; k_step < BLOCK_K / MMA_K; ++k_step) {
          const uint64_t a_desc = kmajor_desc_sm100(A_TILE, a_addr, k_step);
          const uint64_t b_desc = kmajor_desc_sm100(B_TILE, b_addr, k_step);
          tc5::mma_f16_ss(tmem_acc, a_desc, b_desc, IDESC, (k_tile > 0 || k_step > 0) ? 1u : 0u);
        }
        tc5::commit(&mma_done_bar[stage]);  // arrives once the MMAs above have read this stage
        prof.end(Ev::IssueMma);
      }

      // refill: the stage of k_tile - 1 takes tile k_tile + NUM_STAGES - 1 once the MMAs that read it are
      // done. This tile's MMAs are queued behind them, so the tensor core stays busy while we wait.
      const int prev_stage      = stage == 0 ? NUM_STAGES - 1 : stage - 1;
      const uint32_t prev_phase = stage == 0 ? phase ^ 1 : phase;
      prof.begin(Ev::WaitEmpty);
      if (k_tile > 0) ptx::mbarrier_wait(&mma_done_bar[prev_stage], prev_phase, "mma_done_bar");
      prof.end(Ev::WaitEmpty);
      if (k_tile + NUM_STAGES - 1 < num_k_tiles && ptx::elect_one_sync()) {
        prof.begin(Ev::IssueTma);
        load(k_tile + NUM_STAGES - 1, prev_stage);
        prof.end(Ev::IssueTma);
      }

      if (++stage == NUM_STAGES) {
        stage = 0;
        phase ^= 1;
      }
    }
    // The epilogue reads TMEM: wait for the last tile's MMAs (its commit also tracks every earlier MMA).
    const int last_stage      = stage == 0 ? NUM_STAGES - 1 : stage - 1;
    const uint32_t last_phase = stage == 0 ? phase ^ 1 : phase;
    prof.begin(Ev::WaitMma);
    ptx::mbarrier_wait(&mma_done_bar[last_stage], last_phase, "mma_done_bar");
    prof.end(Ev::WaitMma);
  }
  // Warp 0 has seen the last MMA complete; the barrier passes that on to the other warps.
  prof.begin(Ev::WaitMma);
  tc5::fence_before_thread_sync();
  __syncthreads();
  prof.end(Ev::WaitMma);
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

  // ---- teardown: every TMEM read is done before the allocating warp frees it ----
  prof.begin(Ev::Teardown);
  tc5::fence_before_thread_sync();
  __syncthreads();
  if (warp_id == 1) {
    tc5::fence_after_thread_sync();
    tc5::tmem_dealloc(tmem_acc, TMEM_COLS);
  }
  prof.end(Ev::Teardown);
#elif defined(__CUDA_ARCH__)
  __trap();  // compiled for a GPU without tcgen05: fail loudly, never return with C unwritten
#endif  // GEMM_HAS_TCGEN05
}

// ---- host launcher ----
// With `trace`: the TRACE=true instantiation, recording into a buffer sized from the grid (--trace).
Launch prepare_v3(const GemmArgs& g, DeviceTrace* trace) {
  // B's tensor map is N rows high: B is [N, K] (seed 000's first version got this wrong).
  const TmaDesc a_desc = kmajor_tma_3d(g.m, g.k, BLOCK_M, BLOCK_K, SLICE_K, 2, Swizzle::B128);
  const TmaDesc b_desc = kmajor_tma_3d(g.n, g.k, BLOCK_N, BLOCK_K, SLICE_K, 2, Swizzle::B128);
  const CUtensorMap a_map = make_tensor_map(a_desc, g.a, "A");
  const CUtensorMap b_map = make_tensor_map(b_desc, g.b, "B");
  auto* kernel            = trace ? matmul_v3_kernel<true> : matmul_v3_kernel<false>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
  const dim3 grid(unsigned(g.n / BLOCK_N), unsigned(g.m / BLOCK_M));
  auto* c = static_cast<__nv_bfloat16*>(g.c);
  const int m = int(g.m), n = int(g.n), k = int(g.k);
  TraceBuffer buf;  // --trace: per CTA and warp, setup, 4 events per K tile, 2 waits, epilogue, teardown
  if (trace)
    buf = trace->allocate(grid.x * grid.y, {"warp 0 TMA + MMA", "warp 1", "warp 2", "warp 3"},
                          4 * (k / BLOCK_K) + 8);
  return [=](cudaStream_t stream) {
    // Launched as a cluster of one CTA, as a precaution: one public report (seed 003) says tcgen05 kernels
    // trap without a cluster launch, while seed 000's kernels ran on a B200 with a plain launch. The claim is
    // disputed and unverified here; an explicit cluster dimension costs nothing.
    cudaLaunchAttribute cluster;
    cluster.id               = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = 1;
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
Launch prepare_v3(const GemmArgs& g) { return prepare_v3(g, nullptr); }
Launch prepare_v3_traced(const GemmArgs& g, DeviceTrace& trace) {
  return prepare_v3(g, &trace);
}

}  // namespace

std::vector<Variant> sm100_variants() {
  const ShapeRule whole_tiles{BLOCK_M, BLOCK_N, BLOCK_K, "needs whole 128x128x64 tiles"};
  const char* kernel = "sm_100a tcgen05 kernel (v3_pipeline/matmul_v3.cu)";
  const SmemTiles tiles{A_TILE, B_TILE, BLOCK_M, /*tma_3d=*/true, NUM_STAGES, SLICE_K, TMA_BOXES, tma_box};
  return {
      {"v3", "tcgen05 + 3D TMA, 128B swizzle, 7-stage smem ring", kernel, whole_tiles, tiles, prepare_v3,
       prepare_v3_traced},
  };
}

}  // namespace gemm
