// matmul_v2_sm90.cu: stage 2 on Hopper (sm_90a), the twin of matmul_v2.cu with wgmma.
//
// C[M,N] = A[M,K] * B[N,K]^T, bf16 in and out, fp32 accumulation, both operands K-major.
//
// The same step as the Blackwell file, with Hopper's instructions:
//  1. TMA boxes 64 bf16 = 128 B wide with CU_TENSOR_MAP_SWIZZLE_128B instead of v1's 16-byte boxes:
//     v2a issues BLOCK_K/64 2D boxes {64, rows} per operand (box j at smem offset j * rows * 128), v2b one 3D
//     box {64, rows, BLOCK_K/64}. At BLOCK_K = 64 both are ONE box per operand; they differ in the tensor
//     map's rank only.
//  2. The wgmma descriptors say swizzle mode 1 (128B on sm_90; tcgen05 calls the same layout 2) and
//     SBO = 1024 B, the next 8-row x 128 B atom; LBO is unused. A K step moves the start address 32 B along
//     the atom's first row, and the warpgroup 1 half of A starts 64 rows = 8 atoms = 8 KB further on.
//  3. As on Blackwell, these numbers are no longer written out: the descriptors and tensor maps are built
//     from the tiles (kmajor_desc_sm90, kmajor_tma_3d), the functions v1's static_asserts checked its numbers
//     against. What they compute for v2's tiles is listed beside the tiles below.
//
// Why it helps, and what the seed doubts: see matmul_v2.cu. In short, v1's core matrices (128 contiguous
// bytes each) were probably read without bank conflicts already; what changes is that the TMA fetches whole
// 128-byte rows per request instead of 16 bytes per row.
// Measured on an H100 SXM, paired with cuBLAS: the table in v2_swizzle128/README.md (v1's in
// v1_basic/README.md). ncu at 4096^3, one launch each: L2 traffic 2.87 GB (v1b) -> 1.72 GB (v2b), where the
// operand bytes the 128x256x64 tiles need are 1.61 GB, so a 16-byte piece of a row cost about 1.7x its
// bytes (it is half of a 32-byte L2 sector); tensor pipe active 19% -> 41% of the time. The LSU
// bank-conflict counter is 0 for both, but wgmma's shared-memory reads do not go through the LSU, so ncu
// says nothing either way about the seed's bank-conflict doubt.
// Still everything is serial: load, wait, multiply, wait. v3 overlaps them.
//
// PTX ISA sections: as v1, plus "Tensors > Swizzling Modes", "Matrix Descriptor Format" (swizzle mode, SBO),
// "Shared Memory Matrix Layout" for wgmma (K-major, 128B swizzle).
#include <cuda_bf16.h>

#include "common/check.h"
#include "common/descriptors.cuh"
#include "common/harness.h"
#include "common/ptx.cuh"
#include "common/tma.h"
#include "common/wgmma.cuh"

namespace gemm {
namespace {

// ---- configuration ----
constexpr int BLOCK_M        = 128;                 // two warpgroups x WGMMA_M
constexpr int BLOCK_N        = 256;                 // = WGMMA_N, the widest wgmma
constexpr int BLOCK_K        = 64;                  // K of one tile load: 128 bytes of bf16
constexpr int WGMMA_M        = 64;                  // fixed for wgmma
constexpr int WGMMA_K        = 16;                  // fixed for bf16: 32 bytes of K per MMA
constexpr int SLICE_K        = 64;                  // one 128-byte slice of K: the width of a swizzle atom
constexpr int NUM_WARPGROUPS = BLOCK_M / WGMMA_M;   // each multiplies its own 64 rows of A
constexpr int NUM_THREADS    = 128 * NUM_WARPGROUPS;
constexpr int ACC_REGS       = WGMMA_M * BLOCK_N / 128;  // fp32 accumulators per thread

// The tiles, 128B-swizzled: written so by the TMA, read so by the MMA (v1: Swizzle::None).
constexpr KMajorTile A_TILE{BLOCK_M, BLOCK_K, 2, Swizzle::B128};
constexpr KMajorTile B_TILE{BLOCK_N, BLOCK_K, 2, Swizzle::B128};
constexpr uint32_t A_TILE_BYTES = kmajor_tile_bytes(A_TILE);
constexpr uint32_t B_TILE_BYTES = kmajor_tile_bytes(B_TILE);
constexpr uint32_t SMEM_BYTES   = A_TILE_BYTES + B_TILE_BYTES + SMEM_ALIGN;

static_assert(BLOCK_M % WGMMA_M == 0, "each warpgroup multiplies 64 rows");
static_assert(BLOCK_N == 256, "the wgmma wrapper used here is m64n256k16");
static_assert(BLOCK_K % WGMMA_K == 0, "a tile holds whole MMA K steps");
static_assert(BLOCK_K % SLICE_K == 0, "a tile holds whole 128-byte swizzle spans of K");
static_assert(A_TILE_BYTES % 1024 == 0 && B_TILE_BYTES % 1024 == 0,
              "tiles are whole 1024-B swizzle atoms, so the B tile after A starts 1024-B aligned too");
static_assert(WGMMA_M % 8 == 0, "a warpgroup's half of A starts on a whole 8-row swizzle atom");
static_assert(BLOCK_N <= 256 && BLOCK_M <= 256, "a TMA box is at most 256 rows");
static_assert(SMEM_BYTES <= 227 * 1024, "shared memory per block is at most 227 KB");

// ---- the K tile's layout in shared memory. 128B swizzle: a [rows x 64] bf16 tile is one slice of
//      [rows x 128 B] in 8-row x 128 B atoms of 1024 B, the 16-byte chunks of row r permuted by XOR with
//      r % 8. v1 wrote its layout's numbers out; from here on the descriptors and tensor maps are built from
//      A_TILE and B_TILE by the functions v1 checked its numbers against (common/descriptors.cuh,
//      common/tma.h; the layout model and the CUTLASS cross-check test them). For these tiles they compute:
//        swizzle code    1 (descriptor bits 62-63: 128B; tcgen05's code for it is 2)
//        LBO             16 B: unused by a K-major swizzled tile (field value 1)
//        SBO             1024 B: to the next 8 rows, one swizzle atom
//        K step          +32 B per MMA K step (32 B of K), along the atom's rows: the MMA applies the XOR
//        warpgroup 1     its 64 rows of A start 8 swizzle atoms on, 8 x SBO = 8192 B
//        3D box (v2b)    A {64, 128, 1}, B {64, 256, 1} over dims {64, rows, K / 64},
//                        strides {K * 2, 128} B ----

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
__global__ void __launch_bounds__(NUM_THREADS, 1)
    matmul_v2_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                     __nv_bfloat16* c, int m, int n, int k) {
#if defined(GEMM_HAS_WGMMA)
  extern __shared__ uint8_t smem_raw[];
  uint8_t* a_smem = align_smem_1024(smem_raw);
  uint8_t* b_smem = a_smem + A_TILE_BYTES;
  __shared__ uint64_t tma_full_bar;  // the TMA bytes of the current K tile have landed

  const int warp_id   = threadIdx.x / 32;
  const int lane      = threadIdx.x % 32;
  const int warpgroup = threadIdx.x / 128;
  const int m0        = blockIdx.y * BLOCK_M;
  const int n0        = blockIdx.x * BLOCK_N;
  (void)m;

  // ---- setup: the barrier by one thread ----
  if (warp_id == 0 && ptx::elect_one_sync()) {
    ptx::mbarrier_init(&tma_full_bar, 1);  // one arrival: the thread that issues the TMA
    ptx::fence_mbarrier_init();
  }
  __syncthreads();

  float acc[ACC_REGS];
#pragma unroll
  for (int i = 0; i < ACC_REGS; ++i) acc[i] = 0.0f;

  // ---- main loop: load a K tile, multiply it, wait, repeat ----
  const int num_k_tiles = k / BLOCK_K;
  uint32_t tma_phase = 0;
  for (int k_tile = 0; k_tile < num_k_tiles; ++k_tile) {
    // load: one thread announces the bytes, then issues the copies
    if (warp_id == 0 && ptx::elect_one_sync()) {
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

    // compute: each warpgroup issues BLOCK_K/16 MMAs on its 64 rows of A; scale-d 0 on the very first
    const uint32_t a_addr = ptx::smem_addr(a_smem), b_addr = ptx::smem_addr(b_smem);
    wg::fence();
#pragma unroll
    for (int k_step = 0; k_step < BLOCK_K / WGMMA_K; ++k_step) {
      const uint64_t a_desc = kmajor_desc_sm90(A_TILE, a_addr, k_step, warpgroup * WGMMA_M);
      const uint64_t b_desc = kmajor_desc_sm90(B_TILE, b_addr, k_step);
      wg::mma_m64n256k16_bf16(acc, a_desc, b_desc, (k_tile > 0 || k_step > 0) ? 1u : 0u);
    }
    wg::commit_group();
    wg::wait_group<0>();  // this warpgroup's MMAs are done: accumulators final, smem no longer read
    // Nobody may overwrite the tile (next TMA) before both warpgroups are done reading it.
    __syncthreads();
  }

  // ---- epilogue: thread t of warp w (in its warpgroup) holds rows 16w + t/4 and +8,
  //      columns 8j + 2(t%4) + {0, 1} of the warpgroup's 64 x 256 block ----
  const int row = m0 + warpgroup * WGMMA_M + (warp_id % 4) * 16 + lane / 4;
#pragma unroll
  for (int j = 0; j < BLOCK_N / 8; ++j) {
    const int col = n0 + 8 * j + 2 * (lane % 4);
    *reinterpret_cast<__nv_bfloat162*>(c + size_t(row) * n + col) =
        __floats2bfloat162_rn(acc[4 * j + 0], acc[4 * j + 1]);
    *reinterpret_cast<__nv_bfloat162*>(c + size_t(row + 8) * n + col) =
        __floats2bfloat162_rn(acc[4 * j + 2], acc[4 * j + 3]);
  }
#elif defined(__CUDA_ARCH__)
  __trap();  // compiled for a GPU without wgmma: fail loudly, never return with C unwritten
#endif  // GEMM_HAS_WGMMA
}

// ---- host launcher ----
template <bool TMA_3D>
Launch prepare_v2(const GemmArgs& g) {
  // B's tensor map is N rows high: B is [N, K].
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
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim            = grid;
    cfg.blockDim           = dim3(NUM_THREADS);
    cfg.dynamicSmemBytes   = SMEM_BYTES;
    cfg.stream             = stream;
    CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, a_map, b_map, c, m, n, k));
  };
}

}  // namespace

std::vector<Variant> sm90_variants() {
  const ShapeRule whole_tiles{BLOCK_M, BLOCK_N, BLOCK_K, "needs whole 128x256x64 tiles"};
  const char* kernel = "sm_90a wgmma kernel, the Hopper twin (v2_swizzle128/matmul_v2_sm90.cu)";
  const SmemTiles tiles_2d{A_TILE, B_TILE, WGMMA_M, /*tma_3d=*/false, /*num_stages=*/1,
                           SLICE_K, TMA_BOXES<false>, tma_box<false>};
  const SmemTiles tiles_3d{A_TILE, B_TILE, WGMMA_M, /*tma_3d=*/true, /*num_stages=*/1,
                           SLICE_K, TMA_BOXES<true>, tma_box<true>};
  return {
      {"v2a", "wgmma + TMA, 2D boxes 64 wide, 128B swizzle", kernel, whole_tiles, tiles_2d, prepare_v2<false>},
      {"v2b", "wgmma + TMA, one 3D box, 128B swizzle", kernel, whole_tiles, tiles_3d, prepare_v2<true>},
  };
}

}  // namespace gemm
