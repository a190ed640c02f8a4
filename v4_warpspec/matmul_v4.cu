// matmul_v4.cu: stage 4 on Blackwell (sm_100a): warp specialisation, a TMA warp and an MMA warp, each
// running its own loop over the ring.
//
// C[M,N] = A[M,K] * B[N,K]^T, bf16 in and out, fp32 accumulation, both operands K-major.
//
// What changed since v3 (seed 000, "Warp specialization"): the K loop is no longer run by one thread that
// both loads and multiplies. Only one thread is needed to issue each, so each gets a warp of its own:
//  1. Warp 0 is the producer: one elected thread waits until a stage is empty and refills it with the next
//     K tile. Warp 1 is the MMA issuer: one elected thread waits until a stage is full, issues its MMAs and
//     commits them to the stage's "empty" barrier. Warp 1 also allocates TMEM, as before.
//  2. A full/empty barrier pair per stage: tma_full_bar (its bytes have landed) and mma_done_bar (the MMAs
//     that read it are done: it is empty). Each role keeps its own phase variable. The producer's wait on
//     "empty" starts at parity 1, the parity of the phase before the first, which counts as completed: the
//     ring starts empty, and no prologue is needed. Neither thread ever waits for the other's instructions,
//     only for the barriers, so the MMA thread queues tile k + 1 while later TMAs are in flight.
//  3. After the last K tile the MMA thread commits to mainloop_done_bar; all four warps wait on it before
//     the tcgen05.ld epilogue. __syncthreads() would only prove that the last MMA was issued (seed 000 got
//     wrong results that way); the commit arrives once every MMA is done.
//  4. The ring is v3's, as deep as the 227 KB allow: NUM_STAGES = 7 stages of 32 KB; the producer can now
//     run up to 7 tiles ahead of the MMAs. The tile stays v3's 128x128x64 (seed 000's text does not state
//     the tile of its v4; the code it links uses this one, with 7 stages), so that the step is warp
//     specialisation alone; 128x256 tiles (48 KB stages, only 4 of them, 256 TMEM columns) come with the
//     2-SM MMA of v5.
//  5. Exit: after its last load the producer waits until the MMAs have released the last NUM_STAGES stages.
//     A commit's arrival is asynchronous; the next CTA on this SM initialises its barriers at the same
//     shared-memory offsets, and an arrival still on its way would complete a phase of the new CTA's
//     barrier, letting its producer overwrite a stage an MMA still reads. CUTLASS's producer runs the same
//     tail ("load_tail").
// The phases are still never kept in an array indexed at run time (local memory; the SASS tests check).
//
// Why it helps: in v3 the one thread that issued the MMAs of tile k then waited for those of k - 1 before it
// could refill a stage; the producer and the MMA issuer now run ahead of each other as far as the ring
// allows.
// What it costs: a second loop, one more barrier, and two idle warps until the epilogue.
//
// PTX ISA sections: as v3; "mbarrier" (phase completion and parity: the producer's first wait on parity 1)
// and "tcgen05.commit" (the commit to mainloop_done_bar tracks every earlier MMA of the thread).
//
// Status: compiled for sm_100a and model-checked (tests/test_layout_model.cpp, SASS tests); not run on
// Blackwell hardware by this project. Published B200 anchor (seed 000): v4 1209 TFLOPS at 4096^3
// (cuBLAS 1507), with 128x128x64 tiles and 7 stages; its v3, at 940, had BLOCK_N 256, BLOCK_K 128 and 2
// stages, so the seed's step changed the tile too (the code the seed links; its text states BLOCK_M 128
// only).
// Through the tcgen05 emulator (common/tcgen05_emu.h) it passes against cuBLAS on an H100, under both
// MMA schedules: `matmul_v4 --emulate` (correctness only; emulation times nothing).
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

static_assert(BLOCK_M == 128, "v4 uses the M=128 cta_group::1 MMA: one accumulator row per TMEM lane");
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
    matmul_v4_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                     __nv_bfloat16* c, int m, int n, int k, TraceBuffer trace) {
#if defined(GEMM_HAS_TCGEN05)
  extern __shared__ uint8_t smem_raw[];
  uint8_t* ring = align_smem_1024(smem_raw);  // stage s: A tile at s * STAGE_BYTES, then its B tile
  auto a_smem   = [&](int s) { return ring + s * STAGE_BYTES; };
  auto b_smem   = [&](int s) { return ring + s * STAGE_BYTES + A_TILE_BYTES; };
  __shared__ uint64_t tma_full_bar[NUM_STAGES];  // "full": the TMA bytes of the K tile in stage s have landed
  __shared__ uint64_t mma_done_bar[NUM_STAGES];  // "empty": the MMAs that read stage s are done
  __shared__ uint64_t mainloop_done_bar;         // every MMA of the K loop is done: TMEM holds the result
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
    ptx::mbarrier_init(&mainloop_done_bar, 1);  // one arrival: the commit after the last K tile
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

  const int num_k_tiles = k / BLOCK_K;
  if (warp_id == 0) {
    // ---- producer (warp 0): one thread keeps the ring full ----
    if (ptx::elect_one_sync()) {
      // load: announce the bytes of K tile `k_tile`, then issue the copies into ring stage `s`
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
  } else if (warp_id == 1) {
    // ---- mma (warp 1): one thread issues the MMAs of each full stage ----
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
          tc5::mma_f16_ss(tmem_acc, a_desc, b_desc, IDESC, (k_tile > 0 || k_step > 0) ? 1u : 0u);
        }
        tc5::commit(&mma_done_bar[stage]);  // arrives once the MMAs above have read this stage: it is empty
        prof.end(Ev::IssueMma);

        if (++stage == NUM_STAGES) {
          stage = 0;
          full_phase ^= 1;
        }
      }
      tc5::commit(&mainloop_done_bar);  // arrives once every MMA above is done
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
Launch prepare_v4(const GemmArgs& g, DeviceTrace* trace) {
  // B's tensor map is N rows high: B is [N, K] (seed 000's first version got this wrong).
  const TmaDesc a_desc = kmajor_tma_3d(g.m, g.k, BLOCK_M, BLOCK_K, SLICE_K, 2, Swizzle::B128);
  const TmaDesc b_desc = kmajor_tma_3d(g.n, g.k, BLOCK_N, BLOCK_K, SLICE_K, 2, Swizzle::B128);
  const CUtensorMap a_map = make_tensor_map(a_desc, g.a, "A");
  const CUtensorMap b_map = make_tensor_map(b_desc, g.b, "B");
  auto* kernel            = trace ? matmul_v4_kernel<true> : matmul_v4_kernel<false>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
  const dim3 grid(unsigned(g.n / BLOCK_N), unsigned(g.m / BLOCK_M));
  auto* c = static_cast<__nv_bfloat16*>(g.c);
  const int m = int(g.m), n = int(g.n), k = int(g.k);
  TraceBuffer buf;  // --trace: per CTA and warp, setup, 2 events per K tile, the wait, epilogue, teardown
  if (trace)
    buf = trace->allocate(grid.x * grid.y, {"warp 0 TMA", "warp 1 MMA", "warp 2", "warp 3"},
                          2 * (k / BLOCK_K) + 8);
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
Launch prepare_v4(const GemmArgs& g) { return prepare_v4(g, nullptr); }
Launch prepare_v4_traced(const GemmArgs& g, DeviceTrace& trace) {
  return prepare_v4(g, &trace);
}

}  // namespace

std::vector<Variant> sm100_variants() {
  const ShapeRule whole_tiles{BLOCK_M, BLOCK_N, BLOCK_K, "needs whole 128x128x64 tiles"};
  const char* kernel = "sm_100a tcgen05 kernel (v4_warpspec/matmul_v4.cu)";
  const SmemTiles tiles{A_TILE, B_TILE, BLOCK_M, /*tma_3d=*/true, NUM_STAGES, SLICE_K, TMA_BOXES, tma_box};
  return {
      {"v4", "tcgen05, TMA warp + MMA warp, full/empty barriers, 7-stage ring", kernel, whole_tiles, tiles,
       prepare_v4, prepare_v4_traced},
  };
}

}  // namespace gemm
