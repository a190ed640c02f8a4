// matmul_v4_sm90.cu: stage 4 on Hopper (sm_90a), the twin of matmul_v4.cu with wgmma: warp specialisation.
//
// C[M,N] = A[M,K] * B[N,K]^T, bf16 in and out, fp32 accumulation, both operands K-major.
//
// What changed since v3 (seed 000, "Warp specialization"): the K loop is no longer shared. Each warpgroup
// has one job and runs its own loop over the ring:
//  1. A producer warpgroup (warpgroup 0): one elected thread waits until a stage is empty and refills it
//     with the next K tile. It holds no accumulators.
//  2. Two consumer warpgroups (1 and 2) on the same 128x256 tile as v3, each multiplying its 64 rows of A
//     with one m64n256k16 wgmma per K step: they wait until a stage is full, multiply, and release it.
//  3. A full/empty barrier pair per stage: tma_full_bar (the TMA bytes have landed) and mma_done_bar (both
//     consumers are done reading: the stage is empty). mma_done_bar counts one arrival per consumer
//     warpgroup. Each role keeps its own phase variable; the producer's wait on "empty" starts at parity 1,
//     the parity of the phase before the first, which counts as completed: the ring starts empty.
//  4. setmaxnreg (PTX ISA "Miscellaneous Instructions: setmaxnreg"): __launch_bounds__(384, 1) gives every
//     thread 168 registers; the producer gives most of its own back (setmaxnreg.dec to PRODUCER_REGS) and
//     the consumers take them (setmaxnreg.inc to CONSUMER_REGS), so 128 accumulators plus addresses fit.
//  5. No CTA barrier after setup: the producer never waits for a consumer's registers, only for the empty
//     barrier, so a slow warpgroup no longer holds up the refill of a stage the other has released.
// The release uses wgmma.wait_group 1 as in v3: after committing the MMAs of tile k, a consumer waits until
// its group k - 1 is done and releases that stage, so one group is always queued behind the running one.
//
// Why it helps: in v3 a thread of consumer warpgroup 0 also issued the TMA, after its own wait_group and
// behind the other warpgroup's release; here the producer refills a stage as soon as it is released, and
// the consumers' loop holds nothing but waits and MMAs.
// What it costs: a third warpgroup (128 threads that hold registers and mostly sleep), and the register
// split has to be declared by hand.
// Measured on an H100 SXM (ncu, one launch, clocks locked): 4096^3 v3 236 us -> v4 236 us, tensor pipe
// active 83% of the cycles in both; 8192^3 2.14 -> 2.07 ms. On Hopper v3 already behaved much like this
// (wgmma is asynchronous, and its refill waited for the same two releases), so the step gains little here.
// What limits both is the epilogue: with its stores compiled out the tensor pipe is 96% active and the
// kernel 11% faster. The ring cannot deepen: a 5th 48 KB stage would need 240 KB. See the README, "Stage 4".
//
// PTX ISA sections: as v3, plus "setmaxnreg" and "mbarrier" (arrival counts for several producers/consumers).
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

constexpr KMajorTile A_TILE{BLOCK_M, BLOCK_K, 2, Swizzle::B128};
constexpr KMajorTile B_TILE{BLOCK_N, BLOCK_K, 2, Swizzle::B128};
constexpr uint32_t A_TILE_BYTES = kmajor_tile_bytes(A_TILE);
constexpr uint32_t B_TILE_BYTES = kmajor_tile_bytes(B_TILE);
constexpr uint32_t STAGE_BYTES  = A_TILE_BYTES + B_TILE_BYTES;  // one ring stage: [A tile][B tile]
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
// TRACE: the in-kernel profiler's `prof.` lines record each role's waits and issues (--trace); compiled out
// of the TRACE=false instantiation, which is the one checked and timed (common/profiler.cuh).
template <bool TRACE>
__global__ void __launch_bounds__(NUM_THREADS, 1)
    matmul_v4_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                     __nv_bfloat16* c, int m, int n, int k, TraceBuffer trace) {
#if defined(GEMM_HAS_WGMMA)
  extern __shared__ uint8_t smem_raw[];
  uint8_t* ring = align_smem_1024(smem_raw);  // stage s: A tile at s * STAGE_BYTES, then its B tile
  auto a_smem   = [&](int s) { return ring + s * STAGE_BYTES; };
  auto b_smem   = [&](int s) { return ring + s * STAGE_BYTES + A_TILE_BYTES; };
  __shared__ uint64_t tma_full_bar[NUM_STAGES];  // "full": the TMA bytes of the K tile in stage s have landed
  __shared__ uint64_t mma_done_bar[NUM_STAGES];  // "empty": both consumers' MMAs that read stage s are done

  const int warp_id   = threadIdx.x / 32;
  const int lane      = threadIdx.x % 32;
  const int warpgroup = threadIdx.x / 128;  // 0: producer; 1, 2: consumers
  const int m0        = blockIdx.y * BLOCK_M;
  const int n0        = blockIdx.x * BLOCK_N;
  (void)m;
  Profiler<TRACE> prof(trace, /*role=*/warpgroup, /*records=*/warp_id % 4 == 0);
  prof.begin(Ev::Setup);

  // ---- setup: the barriers by one thread ----
  if (warp_id == 0 && ptx::elect_one_sync()) {
    for (int s = 0; s < NUM_STAGES; ++s) {
      ptx::mbarrier_init(&tma_full_bar[s], 1);              // one arrival: the thread that issues the TMA
      ptx::mbarrier_init(&mma_done_bar[s], NUM_CONSUMERS);  // one arrival per consumer warpgroup
    }
    ptx::fence_mbarrier_init();
  }
  __syncthreads();
  prof.end(Ev::Setup);

  const int num_k_tiles = k / BLOCK_K;
  if (warpgroup == 0) {
    // ---- producer: one thread keeps the ring full ----
    wg::setmaxnreg_dec<PRODUCER_REGS>();
    if (warp_id == 0 && ptx::elect_one_sync()) {
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
    }
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

      // release: one thread per consumer warpgroup says it no longer reads the stage of k_tile - 1
      const int prev_stage = stage == 0 ? NUM_STAGES - 1 : stage - 1;
      if (k_tile > 0 && warp_id % 4 == 0 && ptx::elect_one_sync())
        ptx::mbarrier_arrive(&mma_done_bar[prev_stage]);

      if (++stage == NUM_STAGES) {
        stage = 0;
        full_phase ^= 1;
      }
    }
    prof.begin(Ev::WaitMma);
    wg::wait_group<0>();  // the last group is done: accumulators final
    prof.end(Ev::WaitMma);
    prof.span(Ev::Mma, mma_issued);
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
#elif defined(__CUDA_ARCH__)
  __trap();  // compiled for a GPU without wgmma: fail loudly, never return with C unwritten
#endif  // GEMM_HAS_WGMMA
}

// ---- host launcher ----
// With `trace`: the TRACE=true instantiation, recording into a buffer sized from the grid (--trace).
Launch prepare_v4(const GemmArgs& g, DeviceTrace* trace) {
  // B's tensor map is N rows high: B is [N, K].
  const TmaDesc a_desc = kmajor_tma_3d(g.m, g.k, BLOCK_M, BLOCK_K, SLICE_K, 2, Swizzle::B128);
  const TmaDesc b_desc = kmajor_tma_3d(g.n, g.k, BLOCK_N, BLOCK_K, SLICE_K, 2, Swizzle::B128);
  const CUtensorMap a_map = make_tensor_map(a_desc, g.a, "A");
  const CUtensorMap b_map = make_tensor_map(b_desc, g.b, "B");
  auto* kernel            = trace ? matmul_v4_kernel<true> : matmul_v4_kernel<false>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
  const dim3 grid(unsigned(g.n / BLOCK_N), unsigned(g.m / BLOCK_M));
  auto* c = static_cast<__nv_bfloat16*>(g.c);
  const int m = int(g.m), n = int(g.n), k = int(g.k);
  TraceBuffer buf;  // --trace: per CTA and role, setup, 4 events per K tile, the last wait, the epilogue
  if (trace)
    buf = trace->allocate(grid.x * grid.y, {"producer", "consumer 0", "consumer 1"}, 4 * (k / BLOCK_K) + 8);
  return [=](cudaStream_t stream) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim            = grid;
    cfg.blockDim           = dim3(NUM_THREADS);
    cfg.dynamicSmemBytes   = SMEM_BYTES;
    cfg.stream             = stream;
    CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, a_map, b_map, c, m, n, k, buf));
  };
}
Launch prepare_v4(const GemmArgs& g) { return prepare_v4(g, nullptr); }
Launch prepare_v4_traced(const GemmArgs& g, DeviceTrace& trace) {
  return prepare_v4(g, &trace);
}

}  // namespace

std::vector<Variant> sm90_variants() {
  const ShapeRule whole_tiles{BLOCK_M, BLOCK_N, BLOCK_K, "needs whole 128x256x64 tiles"};
  const char* kernel = "sm_90a wgmma kernel, the Hopper twin (v4_warpspec/matmul_v4_sm90.cu)";
  const SmemTiles tiles{A_TILE, B_TILE, WGMMA_M, /*tma_3d=*/true, NUM_STAGES, SLICE_K, TMA_BOXES, tma_box};
  return {
      {"v4", "wgmma, producer + 2 consumer warpgroups, setmaxnreg, 4-stage ring", kernel, whole_tiles, tiles,
       prepare_v4, prepare_v4_traced},
  };
}

}  // namespace gemm
