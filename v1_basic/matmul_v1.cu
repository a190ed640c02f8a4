// matmul_v1.cu: stage 1 on Blackwell (sm_100a), the basic tcgen05 kernel.
//
// C[M,N] = A[M,K] * B[N,K]^T, bf16 in and out, fp32 accumulation, both operands K-major.
//
// What this stage teaches (seed 000, "Basic tcgen05 kernel"):
//  1. TMA: one thread copies a tile of A and of B from global to shared memory (cp.async.bulk.tensor) and an
//     mbarrier counts the bytes as they land.
//  2. The no-swizzle "core-matrix" layout the tensor core reads: each 8-row x 16-byte core matrix must be 128
//     contiguous bytes, so a [rows x 64] bf16 tile is stored as 8 slices of [rows x 16 B]. Two ways to get it:
//       v1a: 8 2D TMA boxes per operand, each 8 elements (16 B) wide;
//       v1b: one 3D TMA box {8, rows, 8} whose third dimension steps 16 B along K.
//  3. Tensor memory (TMEM): the fp32 accumulator lives there, 128 lanes x BLOCK_N columns, allocated by one
//     warp (tcgen05.alloc), freed by the same warp (tcgen05.dealloc) after giving up the alloc permit.
//  4. tcgen05.mma kind::f16 issued by ONE thread from two shared-memory descriptors (LBO/SBO of the
//     core-matrix layout) and a 32-bit instruction descriptor; tcgen05.commit arrives on an mbarrier when
//     the MMAs are done.
//  5. Epilogue: 4 warps, each reads its 32 TMEM lanes (= 32 output rows) with tcgen05.ld.32x32b.x8, converts
//     to bf16 and stores 16 B per thread.
// Everything is serial: load, wait, multiply, wait. Later stages overlap these steps.
//
// PTX ISA sections: "cp.async.bulk.tensor", "mbarrier", "Tensorcore 5th Generation Family Instructions"
// (tcgen05.alloc/dealloc/relinquish_alloc_permit, tcgen05.mma, tcgen05.commit, tcgen05.ld, tcgen05.fence),
// "Shared Memory Descriptor", "Instruction descriptor", "Matrix fragments for tcgen05.ld .32x32b".
//
// Status: compiled for sm_100a and model-checked (tests/test_layout_model.cpp, SASS tests); not run on
// Blackwell hardware by this project. Published B200 anchor (seed 000): v1a 255, v1b 253 TFLOPS at 4096^3,
// with BLOCK_N 256 and BLOCK_K 256 (the code the seed links; its text states BLOCK_M 128 only; this file:
// 128x128x64).
// Through the tcgen05 emulator (common/tcgen05_emu.h) it passes against cuBLAS on an H100, under both
// MMA schedules: `matmul_v1 --emulate` (correctness only; emulation times nothing).
#include <cuda_bf16.h>

#include "common/check.h"
#include "common/descriptors.cuh"
#include "common/harness.h"
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
constexpr int SLICE_K     = 8;        // one 16-byte slice of K: the width of a core matrix
constexpr int NUM_THREADS = 128;      // 4 warps: the epilogue needs one warp per 32-lane TMEM quarter
constexpr int TMEM_COLS   = BLOCK_N;  // one fp32 TMEM column per output column

constexpr Swizzle SWIZZLE = Swizzle::None;  // written by the TMA, read by the MMA: none, core matrices
constexpr KMajorTile A_TILE{BLOCK_M, BLOCK_K, 2, SWIZZLE};
constexpr KMajorTile B_TILE{BLOCK_N, BLOCK_K, 2, SWIZZLE};
constexpr uint32_t A_TILE_BYTES = kmajor_tile_bytes(A_TILE);
constexpr uint32_t B_TILE_BYTES = kmajor_tile_bytes(B_TILE);
constexpr uint32_t SMEM_BYTES   = A_TILE_BYTES + B_TILE_BYTES + SMEM_ALIGN;
// kind::f16, BF16 x BF16 -> F32, both K-major, M = 128, N = BLOCK_N.
constexpr uint32_t IDESC = make_idesc_f16(F16Kind::BF16, F16Kind::BF16, AccKind::F32, BLOCK_M, BLOCK_N);

static_assert(BLOCK_M == 128, "v1 uses the M=128 cta_group::1 MMA: one accumulator row per TMEM lane");
static_assert(BLOCK_N % 16 == 0 && BLOCK_N >= 16 && BLOCK_N <= 256, "MMA N: 16..256, step 16 (ours; the ISA allows 8)");
static_assert(BLOCK_K % MMA_K == 0, "a tile holds whole MMA K steps");
static_assert(TMEM_COLS >= 32 && (TMEM_COLS & (TMEM_COLS - 1)) == 0, "TMEM allocations are powers of 2 >= 32");
static_assert(NUM_THREADS == 4 * 32, "one epilogue warp per TMEM lane quarter");
static_assert(SMEM_BYTES <= 227 * 1024, "shared memory per block is at most 227 KB");

// ---- the K tile's layout in shared memory, in numbers: the tensor maps and the descriptors are built from
//      these. No swizzle: a [rows x 64] bf16 tile is 8 slices of [rows x 16 B], row r of slice j at
//      j * rows * 16 + r * 16, so each 8-row x 16 B core matrix is 128 contiguous bytes ----
constexpr uint32_t SWIZZLE_CODE = 0;            // descriptor bits 61-63: 0 = no swizzle
constexpr uint32_t A_LBO        = 2048;         // leading byte offset: to the next slice, 128 rows x 16 B
constexpr uint32_t B_LBO        = 2048;         //   B: 128 rows x 16 B
constexpr uint32_t SBO          = 128;          // stride byte offset: to the next 8 rows, one core matrix
constexpr uint32_t A_K_STEP     = 4096;         // start address step per MMA K step (32 B of K): two slices,
constexpr uint32_t B_K_STEP     = 4096;         //   2 x LBO
constexpr uint32_t SLICE_BYTES  = 16;           // one slice of K; the 3D tensor map's stride of dim 2
constexpr uint32_t A_TMA_BOX[3] = {8, 128, 8};  // 3D box (v1b): 8 bf16 x 128 rows x 8 slices, over
constexpr uint32_t B_TMA_BOX[3] = {8, 128, 8};  //   dims {8, rows, K / 8}, strides {K * 2, 16} B
// common/descriptors.cuh and common/tma.h compute the same from A_TILE and B_TILE (the functions the layout
// model and the CUTLASS cross-check test); these asserts keep the numbers above equal to theirs.
static_assert(SWIZZLE_CODE == sm100_swizzle_code(SWIZZLE), "the descriptor's code of the TMA's swizzle");
static_assert(A_LBO == kmajor_lbo(A_TILE) && B_LBO == kmajor_lbo(B_TILE), "LBO of the tiles' layout");
static_assert(SBO == kmajor_sbo(A_TILE) && SBO == kmajor_sbo(B_TILE), "SBO of the tiles' layout");
static_assert(kmajor_kstep_uniform(A_TILE, A_K_STEP) && kmajor_kstep_uniform(B_TILE, B_K_STEP),
              "MMA K step k starts k * K_STEP bytes into the tile");
static_assert(kmajor_tma_3d_lands(A_TILE, A_TMA_BOX, SLICE_BYTES) &&
                  kmajor_tma_3d_lands(B_TILE, B_TMA_BOX, SLICE_BYTES) && SLICE_K * 2 == SLICE_BYTES,
              "the TMA boxes land the slices the descriptors read");

// ---- where the TMA boxes of a K tile go: the kernel issues exactly these (tests/test_stage_table.cpp
//      checks them against the layout model's table) ----
// 2D (v1a): BLOCK_K/8 boxes {8, rows}; box j from K offset k0 + 8j to shared-memory offset j * rows * 16.
// 3D (v1b): one box {8, rows, BLOCK_K/8} from K slice k0/8, landing as BLOCK_K/8 [rows x 16 B] slices.
template <bool TMA_3D>
constexpr int TMA_BOXES = TMA_3D ? 1 : BLOCK_K / SLICE_K;
template <bool TMA_3D>
GEMM_HD constexpr TmaBox tma_box(KMajorTile tile, int row0, int k0, int j) {
  if (TMA_3D) return {0u, {0, row0, k0 / SLICE_K}};
  return {uint32_t(j * tile.rows * SLICE_BYTES), {k0 + j * SLICE_K, row0, 0}};
}

// ---- the kernel ----
template <bool TMA_3D>
__global__ void __launch_bounds__(NUM_THREADS)
    matmul_v1_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                     __nv_bfloat16* c, int m, int n, int k) {
#if defined(GEMM_HAS_TCGEN05)
  extern __shared__ uint8_t smem_raw[];
  uint8_t* a_smem = align_smem_1024(smem_raw);
  uint8_t* b_smem = a_smem + A_TILE_BYTES;
  __shared__ uint64_t tma_full_bar;  // the TMA bytes of the current K tile have landed
  __shared__ uint64_t mma_done_bar;  // the MMAs that read the current K tile are done
  __shared__ uint32_t tmem_slot;     // tcgen05.alloc writes the TMEM base address here

  const int warp_id = threadIdx.x / 32;
  const int lane    = threadIdx.x % 32;
  const int m0      = blockIdx.y * BLOCK_M;
  const int n0      = blockIdx.x * BLOCK_N;
  (void)m;

  // ---- setup: barriers by one thread, TMEM by one whole warp ----
  if (warp_id == 0 && ptx::elect_one_sync()) {
    ptx::mbarrier_init(&tma_full_bar, 1);  // one arrival: the thread that issues the TMA
    ptx::mbarrier_init(&mma_done_bar, 1);  // one arrival: tcgen05.commit
    ptx::fence_mbarrier_init();
  } else if (warp_id == 1) {
    tc5::tmem_alloc(&tmem_slot, TMEM_COLS);
    tc5::tmem_relinquish_alloc_permit();
  }
  tc5::fence_before_thread_sync();
  __syncthreads();
  tc5::fence_after_thread_sync();
  const uint32_t tmem_acc = tmem_slot;

  // ---- main loop, warp 0: load a K tile, multiply it, wait, repeat ----
  // Only warp 0 waits on the barriers. Were every warp to wait, a warp that fell two phases behind could not
  // tell a barrier's phase k from phase k+2 (a wait names only a parity); the others just wait for the result.
  if (warp_id == 0) {
    const int num_k_tiles = k / BLOCK_K;
    uint32_t tma_phase = 0, mma_phase = 0;
    for (int k_tile = 0; k_tile < num_k_tiles; ++k_tile) {
      // load: one thread announces the bytes, then issues the copies
      if (ptx::elect_one_sync()) {
        ptx::mbarrier_arrive_expect_tx(&tma_full_bar, A_TILE_BYTES + B_TILE_BYTES);
        const int k0 = k_tile * BLOCK_K;
#pragma unroll
        for (int j = 0; j < TMA_BOXES<TMA_3D>; ++j) {
          const TmaBox a = tma_box<TMA_3D>(A_TILE, m0, k0, j), b = tma_box<TMA_3D>(B_TILE, n0, k0, j);
          if constexpr (TMA_3D) {
            ptx::tma_load_3d(a_smem + a.smem_offset, &a_map, &tma_full_bar, a.coords[0], a.coords[1],
                             a.coords[2]);
            ptx::tma_load_3d(b_smem + b.smem_offset, &b_map, &tma_full_bar, b.coords[0], b.coords[1],
                             b.coords[2]);
          } else {
            ptx::tma_load_2d(a_smem + a.smem_offset, &a_map, &tma_full_bar, a.coords[0], a.coords[1]);
            ptx::tma_load_2d(b_smem + b.smem_offset, &b_map, &tma_full_bar, b.coords[0], b.coords[1]);
          }
        }
      }
      ptx::mbarrier_wait(&tma_full_bar, tma_phase, "tma_full_bar");
      tma_phase ^= 1;
      tc5::fence_after_thread_sync();

      // compute: one thread issues BLOCK_K/16 MMAs; the first of the whole K loop overwrites the accumulator
      if (ptx::elect_one_sync()) {
        const uint32_t a_addr = ptx::smem_addr(a_smem), b_addr = ptx::smem_addr(b_smem);
#pragma unroll
        for (int k_step = 0; k_step < BLOCK_K / MMA_K; ++k_step) {
          const uint64_t a_desc =
              make_smem_desc_sm100(a_addr + k_step * A_K_STEP, A_LBO, SBO, SWIZZLE_CODE);
          const uint64_t b_desc =
              make_smem_desc_sm100(b_addr + k_step * B_K_STEP, B_LBO, SBO, SWIZZLE_CODE);
          tc5::mma_f16_ss(tmem_acc, a_desc, b_desc, IDESC, (k_tile > 0 || k_step > 0) ? 1u : 0u);
        }
        tc5::commit(&mma_done_bar);  // arrives once the MMAs above have read smem and written TMEM
      }
      // The next TMA may not overwrite the tile, nor the epilogue read TMEM, before the MMAs are done.
      ptx::mbarrier_wait(&mma_done_bar, mma_phase, "mma_done_bar");
      mma_phase ^= 1;
    }
  }
  // Warp 0 has seen the last MMA complete; the barrier passes that on to the other warps.
  tc5::fence_before_thread_sync();
  __syncthreads();
  tc5::fence_after_thread_sync();

  // ---- epilogue: warp w owns TMEM lanes 32w..32w+31 = output rows; thread t holds row 32w + t ----
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

  // ---- teardown: every TMEM read is done before the allocating warp frees it ----
  tc5::fence_before_thread_sync();
  __syncthreads();
  if (warp_id == 1) {
    tc5::fence_after_thread_sync();
    tc5::tmem_dealloc(tmem_acc, TMEM_COLS);
  }
#elif defined(__CUDA_ARCH__)
  __trap();  // compiled for a GPU without tcgen05: fail loudly, never return with C unwritten
#endif  // GEMM_HAS_TCGEN05
}

// ---- host launcher ----
template <bool TMA_3D>
Launch prepare_v1(const GemmArgs& g) {
  // B's tensor map is N rows high: B is [N, K] (seed 000's first version got this wrong).
  const TmaDesc a_desc = TMA_3D ? kmajor_tma_3d(g.m, g.k, A_TMA_BOX, SLICE_BYTES, 2, SWIZZLE)
                                : kmajor_tma_2d(g.m, g.k, BLOCK_M, SLICE_K, 2, SWIZZLE);
  const TmaDesc b_desc = TMA_3D ? kmajor_tma_3d(g.n, g.k, B_TMA_BOX, SLICE_BYTES, 2, SWIZZLE)
                                : kmajor_tma_2d(g.n, g.k, BLOCK_N, SLICE_K, 2, SWIZZLE);
  const CUtensorMap a_map = make_tensor_map(a_desc, g.a, "A");
  const CUtensorMap b_map = make_tensor_map(b_desc, g.b, "B");
  auto* kernel            = matmul_v1_kernel<TMA_3D>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
  const dim3 grid(unsigned(g.n / BLOCK_N), unsigned(g.m / BLOCK_M));
  auto* c = static_cast<__nv_bfloat16*>(g.c);
  const int m = int(g.m), n = int(g.n), k = int(g.k);
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
    CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, a_map, b_map, c, m, n, k));
  };
}

}  // namespace

std::vector<Variant> sm100_variants() {
  const ShapeRule whole_tiles{BLOCK_M, BLOCK_N, BLOCK_K, "needs whole 128x128x64 tiles"};
  const char* kernel = "sm_100a tcgen05 kernel (v1_basic/matmul_v1.cu)";
  const SmemTiles tiles_2d{A_TILE, B_TILE, BLOCK_M, /*tma_3d=*/false, /*num_stages=*/1,
                           SLICE_K, TMA_BOXES<false>, tma_box<false>};
  const SmemTiles tiles_3d{A_TILE, B_TILE, BLOCK_M, /*tma_3d=*/true, /*num_stages=*/1,
                           SLICE_K, TMA_BOXES<true>, tma_box<true>};
  return {
      {"v1a", "tcgen05 + TMA, 2D boxes 8 wide, no swizzle", kernel, whole_tiles, tiles_2d, prepare_v1<false>},
      {"v1b", "tcgen05 + TMA, one 3D box, no swizzle", kernel, whole_tiles, tiles_3d, prepare_v1<true>},
  };
}

}  // namespace gemm
