// matmul_v2.cu: stage 2 on Blackwell (sm_100a): 128-byte-wide TMA boxes with the 128B swizzle.
//
// C[M,N] = A[M,K] * B[N,K]^T, bf16 in and out, fp32 accumulation, both operands K-major.
//
// What changed since v1 (seed 000, "128-byte global load and swizzling"): only how a K tile is laid out.
//  1. The TMA box is 64 bf16 = 128 B wide instead of 16 B, written with CU_TENSOR_MAP_SWIZZLE_128B: in each
//     8-row x 128 B atom (1024 B) the eight 16-byte chunks of row r are permuted by XOR with r % 8.
//       v2a: BLOCK_K/64 2D boxes {64, rows} per operand, box j at smem offset j * rows * 128;
//       v2b: one 3D box {64, rows, BLOCK_K/64}.
//     At BLOCK_K = 64 (one 128-byte span) both issue ONE box per operand and differ only in the tensor map's
//     rank; the loop of v2a shows what a wider BLOCK_K would do.
//  2. The shared-memory descriptors say swizzle mode 2 (128B) and SBO = 1024 B (the next 8-row atom); LBO is
//     unused for a K-major swizzled operand. An MMA K step (16 bf16 = 32 B) moves the start address 32 B
//     along the atom's first row; the tensor core applies the TMA's XOR when it reads, so no code here
//     computes a swizzle.
//  3. These numbers are no longer written out, as v1 wrote its own: the descriptors and the tensor maps are
//     built from the tiles (kmajor_desc_sm100, kmajor_tma_3d), the functions v1's static_asserts checked its
//     numbers against. What they compute for v2's tiles is listed beside the tiles below.
//
// Why it helps: v1 built its core-matrix layout out of 16-byte-wide boxes, so the TMA engine fetched 16 B of
// each row per request (v1a: 8 boxes per operand; v1b: one box that still walks 16-byte slices). Here each
// request fetches whole 128-byte rows: fewer, wider global reads. The seed doubts that bank conflicts were
// the problem: each v1 core matrix is 128 contiguous bytes, all 32 banks once, so the tensor core's reads
// were most likely conflict-free already. The 128B swizzle is what the MMA needs in order to read a
// 128-byte-wide row layout, not (here) a cure for conflicts. Measured on the Hopper twin (H100): the
// paired times are in v1_basic/README.md and v2_swizzle128/README.md; at 4096^3 ncu counts 2.87 GB of L2
// traffic for v1b against 1.72 GB for v2b (1.61 GB is the operand bytes the tiles need): 16-byte row pieces
// cost about 1.7x the bytes they use.
// What it costs: tiles must start 1024-B aligned (the swizzle atom), and BLOCK_K is tied to the 128 B span.
// Still everything is serial: load, wait, multiply, wait. v3 overlaps them.
//
// PTX ISA sections: as v1, plus "Tensors > Swizzling Modes" (what the TMA writes), "Shared Memory
// Descriptor" (swizzle mode, SBO of a swizzled K-major layout) and "Shared Memory Matrix Layout > Canonical
// layouts" (K-major, 128B swizzle: what the MMA reads).
//
// Status: compiled for sm_100a and model-checked (tests/test_layout_model.cpp, SASS tests); not run on
// Blackwell hardware by this project. Published B200 anchor (seed 000): v2a 681, v2b 695 TFLOPS at 4096^3
// (cuBLAS 1507), with BLOCK_N 256 and BLOCK_K 256 (the code the seed links; its text states BLOCK_M 128
// only).
// Through the tcgen05 emulator (common/tcgen05_emu.h) it passes against cuBLAS on an H100, under both
// MMA schedules: `matmul_v2 --emulate` (correctness only; emulation times nothing).
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
constexpr int SLICE_K     = 64;       // one 128-byte slice of K: the width of a 128B swizzle atom
constexpr int NUM_THREADS = 128;      // 4 warps: the epilogue needs one warp per 32-lane TMEM quarter
constexpr int TMEM_COLS   = BLOCK_N;  // one fp32 TMEM column per output column

// The tiles, 128B-swizzled: written so by the TMA, read so by the MMA (v1: Swizzle::None).
constexpr KMajorTile A_TILE{BLOCK_M, BLOCK_K, 2, Swizzle::B128};
constexpr KMajorTile B_TILE{BLOCK_N, BLOCK_K, 2, Swizzle::B128};
constexpr uint32_t A_TILE_BYTES = kmajor_tile_bytes(A_TILE);
constexpr uint32_t B_TILE_BYTES = kmajor_tile_bytes(B_TILE);
constexpr uint32_t SMEM_BYTES   = A_TILE_BYTES + B_TILE_BYTES + SMEM_ALIGN;
// kind::f16, BF16 x BF16 -> F32, both K-major, M = 128, N = BLOCK_N.
constexpr uint32_t IDESC = make_idesc_f16(F16Kind::BF16, F16Kind::BF16, AccKind::F32, BLOCK_M, BLOCK_N);

static_assert(BLOCK_M == 128, "v2 uses the M=128 cta_group::1 MMA: one accumulator row per TMEM lane");
static_assert(BLOCK_N % 16 == 0 && BLOCK_N >= 16 && BLOCK_N <= 256, "MMA N: 16..256, step 16 (ours; the ISA allows 8)");
static_assert(BLOCK_K % MMA_K == 0, "a tile holds whole MMA K steps");
static_assert(BLOCK_K % SLICE_K == 0, "a tile holds whole 128-byte swizzle spans of K");
static_assert(A_TILE_BYTES % 1024 == 0 && B_TILE_BYTES % 1024 == 0,
              "tiles are whole 1024-B swizzle atoms, so the B tile after A starts 1024-B aligned too");
static_assert(TMEM_COLS >= 32 && (TMEM_COLS & (TMEM_COLS - 1)) == 0, "TMEM allocations are powers of 2 >= 32");
static_assert(NUM_THREADS == 4 * 32, "one epilogue warp per TMEM lane quarter");
static_assert(SMEM_BYTES <= 227 * 1024, "shared memory per block is at most 227 KB");

// ---- the K tile's layout in shared memory. 128B swizzle: a [rows x 64] bf16 tile is one slice of
//      [rows x 128 B] in 8-row x 128 B atoms of 1024 B, the 16-byte chunks of row r permuted by XOR with
//      r % 8. v1 wrote its layout's numbers out; from here on the descriptors and tensor maps are built from
//      A_TILE and B_TILE by the functions v1 checked its numbers against (common/descriptors.cuh,
//      common/tma.h; the layout model and the CUTLASS cross-check test them). For these tiles they compute:
//        swizzle code  2 (descriptor bits 61-63: 128B; wgmma's code for it is 1)
//        LBO           16 B: unused by a K-major swizzled tile (field value 1)
//        SBO           1024 B: to the next 8 rows, one swizzle atom
//        K step        +32 B per MMA K step (32 B of K), along the atom's rows: the MMA applies the XOR
//        3D box (v2b)  {64, 128, 1} over dims {64, rows, K / 64}, strides {K * 2, 128} B ----

// ---- where the TMA boxes of a K tile go: the kernel issues exactly these (tests/test_stage_table.cpp
//      checks them against the layout model's table) ----
// 2D (v2a): BLOCK_K/64 boxes {64, rows}; box j from K offset k0 + 64j to shared-memory offset j * rows * 128.
// 3D (v2b): one box {64, rows, BLOCK_K/64} from K slice k0/64, landing as BLOCK_K/64 [rows x 128 B] slices.
template <bool TMA_3D>
constexpr int TMA_BOXES = TMA_3D ? 1 : BLOCK_K / SLICE_K;
template <bool TMA_3D>
GEMM_HD constexpr TmaBox tma_box(KMajorTile tile, int row0, int k0, int j) {
  if (TMA_3D) return {0u, {0, row0, k0 / SLICE_K}};
  return {uint32_t(j * tile.rows * kmajor_slice_bytes(tile)), {k0 + j * SLICE_K, row0, 0}};
}

// ---- the kernel ----
template <bool TMA_3D>
__global__ void __launch_bounds__(NUM_THREADS)
    matmul_v2_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
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
          const uint64_t a_desc = kmajor_desc_sm100(A_TILE, a_addr, k_step);
          const uint64_t b_desc = kmajor_desc_sm100(B_TILE, b_addr, k_step);
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
Launch prepare_v2(const GemmArgs& g) {
  // B's tensor map is N rows high: B is [N, K] (seed 000's first version got this wrong).
  const TmaDesc a_desc = TMA_3D ? kmajor_tma_3d(g.m, g.k, BLOCK_M, BLOCK_K, SLICE_K, 2, Swizzle::B128)
                                : kmajor_tma_2d(g.m, g.k, BLOCK_M, SLICE_K, 2, Swizzle::B128);
  const TmaDesc b_desc = TMA_3D ? kmajor_tma_3d(g.n, g.k, BLOCK_N, BLOCK_K, SLICE_K, 2, Swizzle::B128)
                                : kmajor_tma_2d(g.n, g.k, BLOCK_N, SLICE_K, 2, Swizzle::B128);
  const CUtensorMap a_map = make_tensor_map(a_desc, g.a, "A");
  const CUtensorMap b_map = make_tensor_map(b_desc, g.b, "B");
  auto* kernel            = matmul_v2_kernel<TMA_3D>;
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
  const char* kernel = "sm_100a tcgen05 kernel (v2_swizzle128/matmul_v2.cu)";
  const SmemTiles tiles_2d{A_TILE, B_TILE, BLOCK_M, /*tma_3d=*/false, /*num_stages=*/1,
                           SLICE_K, TMA_BOXES<false>, tma_box<false>};
  const SmemTiles tiles_3d{A_TILE, B_TILE, BLOCK_M, /*tma_3d=*/true, /*num_stages=*/1,
                           SLICE_K, TMA_BOXES<true>, tma_box<true>};
  return {
      {"v2a", "tcgen05 + TMA, 2D boxes 64 wide, 128B swizzle", kernel, whole_tiles, tiles_2d, prepare_v2<false>},
      {"v2b", "tcgen05 + TMA, one 3D box, 128B swizzle", kernel, whole_tiles, tiles_3d, prepare_v2<true>},
  };
}

}  // namespace gemm
