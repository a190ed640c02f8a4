// test_tcgen05_emu_gpu.cu: tcgen05, instruction by instruction, on the GPU, against the CPU layout model.
//
// One source, two GPUs:
//  - on a Blackwell GPU (sm_100a) the tc5:: wrappers are the real instructions: this is a bring-up of
//    tcgen05.alloc / mma / commit / ld / dealloc before any kernel (never run in this project: no B200 here);
//  - on a Hopper GPU (sm_90a) they are the tcgen05 emulator's (common/tcgen05_emu.h), under its eager, late
//    and strict schedules: this proves the emulator against the model before the stages run through it.
//
//   test_tcgen05_emu_gpu mma         every tcgen05 tile of tests/stage_configs.h (its A and B rows): the tile
//                                    filled with random bf16 (printed seed; GEMM_TEST_SEED replays), the K
//                                    steps of one BLOCK_K issued as the kernels issue them (the first
//                                    overwrites), committed, read back with tcgen05.ld.32x32b.x8; every
//                                    register of every lane mapped to D[row][col] by the layout model
//                                    (tmem_ld_32x32b, tmem_accumulator_m128) and compared with the model's
//                                    product of the same shared memory (mma_kmajor_read), in fp64, within the
//                                    bound of an fp32 sum: |err| <= 2 * 64 * 2^-24 * sum |a b| (+ 2^-126).
//                                    Also v2a's tiles at N = 120: the ISA's steps of 8 at cta_group::1
//                                    M = 128, which no kernel uses; and the 32B and 64B swizzle tiles no
//                                    stage uses (stage_configs.h SWIZZLE_TILES, 2D and 3D boxes, N 128 and
//                                    64). cta_group::2 (v5) rows placed by the model's pair split (pair_row).
//                                    Every swizzled case also shows the comparison can tell the swizzle: D
//                                    read with each other mode's XOR (same rows) must fail the bound.
//   test_tcgen05_emu_gpu mxf8        the MXFP8 stage's instructions on its own tiles (mxfp8/matmul_mxfp8.cu):
//   a
//                                    2-CTA pair with random e4m3 tiles and random UE8M0 scale tiles (a
//                                    different SFB in each CTA); three tcgen05.cp.32x128b.warpx4 of the scale
//                                    tiles, four block-scaled MMAs (M = 256, N = 256, K = 32 each, SF ids
//                                    0..3), one multicast commit. Checked: every scale byte read back from
//                                    TMEM with tcgen05.ld against the model's pair copy
//                                    (tcgen05_cp_32x128b_warpx4_pair: each CTA from its own shared memory),
//                                    and every element of D, read with tcgen05.ld.32x32b.x32, against the
//                                    model's product with the scales where the model puts them
//                                    (mma_scale_read_block32), in fp64, within 2 * 128 * 2^-24 * sum |a b| (+
//                                    2^-126).
//   test_tcgen05_emu_gpu peer        a cta_group::1 multicast commit that only another CTA waits for (v8's
//                                    token pair): in a cluster of two, both CTAs issue the same MMAs (v2a's
//                                    tiles, one random image) into their own TMEM; CTA 1 commits its MMAs to
//                                    CTA 0's barrier alone and waits on a barrier of its own that CTA 0
//                                    arrives on once its wait on both CTAs' commits has ended (begun after
//                                    CTA 1's commit); then each CTA reads its TMEM. No thread of CTA 1
//                                    waits on its commit's barrier: under the strict schedule CTA 0's wait
//                                    must run CTA 1's queue, or the launch hangs (checked: it does, without
//                                    that lookup). Checked: both CTAs' D bit-identical, finite, not all 0.
//   test_tcgen05_emu_gpu trap RULE   (Hopper only) a kernel that breaks RULE (tcgen05_emu.h) must trap with
//                                    exactly that rule's report; ld_poison / ld_poison_pair: a kernel that
//                                    stores the registers of every tcgen05.ld before its tcgen05.wait::ld
//                                    runs to its end and stored nothing but the poison (LD_POISON_BITS).
// Exit: 0 pass, 1 fail, GEMM_SKIP_CODE (77) where no suitable GPU is present (and for trap tests on a B200).
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "common/check.h"
#include "common/descriptors.cuh"
#include "common/mx_scale_layout.h"
#include "common/ptx.cuh"
#include "common/tcgen05.cuh"
#include "common/tcgen05_emu.h"
#include "tests/layout_model.h"
#include "tests/stage_configs.h"

#ifndef GEMM_SKIP_CODE
#define GEMM_SKIP_CODE 77
#endif

namespace {

using namespace gemm;

constexpr int THREADS    = 128;  // 4 warps: one per TMEM lane quarter
constexpr int TMEM_COLS  = 256;  // N <= 256
constexpr int MMA_K_BYTES = 32;

// What a test kernel does wrong on purpose (trap tests), or NONE.
enum class Breach : int {
  NONE,
  ALLOC_SIZE,           // tcgen05.alloc of 48 columns
  NOT_CONVERGED,        // tcgen05.alloc by half a warp
  LANE_QUARTER,         // warp 1 reads lane quarter 0
  DEALLOC_WARP,         // warp 2 frees what warp 1 allocated
  DEALLOC_RANGE,        // frees half the allocation
  OUTSIDE_ALLOCATION,   // tcgen05.ld past the allocation's last column
  MMA_UNALLOCATED,      // an MMA whose N columns run past the allocation
  IDESC_RESERVED,       // reserved idesc bit 23 set
  IDESC_SHAPE,          // N = 264 (over 256: outside the ISA's shape table)
  SMEM_DESC,            // descriptor version bits 46-48 = 0
  SMEM_ALIGN,           // a 128B-swizzled operand 128 bytes off its 1024-byte pattern
  CTA_GROUP_RANK,       // a cta_group::2 MMA issued by the odd CTA
  EXIT_HOLDING,         // the kernel returns without tcgen05.dealloc
  CP_ADDRESS,           // tcgen05.cp .warpx4 to lane 32 (the lane field must be 0)
  SMEM_RANGE,           // A's descriptor 48 KB past its tile: beyond the CTA's dynamic shared memory
  LD_EARLY_USE,         // the registers of each tcgen05.ld stored before its tcgen05.wait::ld (then it waits)
  LD_NO_WAIT,           // no tcgen05.wait::ld after the loads
  LD_PENDING_LIMIT,     // 17 tcgen05.ld before one wait::ld (legal; beyond the emulator's 16)
  NO_FENCE_AFTER_WAIT,  // tcgen05.ld after the wait on the commit's barrier, no fence::after_thread_sync
  NO_FENCE_AFTER_CLUSTER,  // tcgen05.mma after the setup's cluster barrier, no fence::after_thread_sync
  BARRIER_AFTER_FENCE,     // __syncthreads() between fence::after_thread_sync and tcgen05.ld
  NO_FENCE_BEFORE,         // the teardown's cluster barrier after tcgen05.ld, no fence::before_thread_sync
  ARRIVE_NOT_COMMIT,       // a plain mbarrier.arrive where tcgen05.commit belongs
  SHAPE_M64,               // cta_group::1 M = 64 (legal, not emulated)
  SHAPE_PAIR_M128,         // cta_group::2 M = 128 (legal, not emulated)
  DEALLOC_PENDING,         // (late, strict schedules) warp 1 issues an MMA and frees TMEM before any commit
  TMEM_WAR,                // warp 0 overwrites the columns warps 1-3 read, told by a plain shared counter
  LD_PENDING_WRITE,        // (strict schedule) the loads follow the MMAs' commit through a CTA barrier (the
                           // pair: a cluster barrier, and only the odd CTA loads), not a wait on its mbarrier
  PEER_LD_EARLY,           // (strict, peer_commit_kernel) CTA 1 reads its TMEM before CTA 0 tells it its
                           // commit has arrived (a cluster barrier instead of the wait on go_bar)
};

struct MmaParams {
  KMajorTile a_tile, b_tile;
  uint32_t a_off, b_off;  // tile addresses relative to a 1024-aligned base (stage_configs.h tile_addr)
  uint32_t image_bytes;   // bytes of each CTA's shared-memory image
  uint32_t idesc;
  int n;                  // MMA N (the pair's, for cta_group::2)
  int ksteps;
  Breach breach;
};

template <int CTA_GROUP>
__global__ void __launch_bounds__(THREADS) mma_kernel(const __grid_constant__ MmaParams p, const uint8_t* image,
                                                      float* out) {
#if defined(GEMM_HAS_TCGEN05)
  extern __shared__ uint8_t smem_raw[];
  uint8_t* base = align_smem_1024(smem_raw);
  __shared__ uint64_t mma_bar;
  __shared__ uint32_t tmem_slot;
  __shared__ uint32_t reads_done;  // TMEM_WAR: warps that have read
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t rank = CTA_GROUP == 2 ? ptx::cluster_ctarank() : 0;

  // This CTA's shared-memory image, written by the generic proxy and read by the MMA (async proxy).
  const uint8_t* src = image + size_t(rank) * p.image_bytes;
  for (uint32_t i = threadIdx.x * 16; i < p.image_bytes; i += THREADS * 16)
    *reinterpret_cast<uint4*>(base + i) = *reinterpret_cast<const uint4*>(src + i);
  ptx::fence_proxy_async_shared();
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&mma_bar, 1);
    ptx::fence_mbarrier_init();
    reads_done = 0;
  }
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
  if (warp == 1) {
    if (p.breach == Breach::ALLOC_SIZE) {
      tc5::tmem_alloc<CTA_GROUP>(&tmem_slot, 48);
    } else if (p.breach == Breach::NOT_CONVERGED) {
      if (lane < 16) tc5::tmem_alloc<CTA_GROUP>(&tmem_slot, TMEM_COLS);
    } else {
      tc5::tmem_alloc<CTA_GROUP>(&tmem_slot, TMEM_COLS);
    }
    tc5::tmem_relinquish_alloc_permit<CTA_GROUP>();
  }
  tc5::fence_before_thread_sync();
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
  if (p.breach != Breach::NO_FENCE_AFTER_CLUSTER) tc5::fence_after_thread_sync();
  const uint32_t tmem = tmem_slot;

  if (p.breach == Breach::DEALLOC_PENDING) {
    if (warp == 1) {
      if (ptx::elect_one_sync())
        tc5::mma_f16_ss<CTA_GROUP>(tmem, kmajor_desc_sm100(p.a_tile, ptx::smem_addr(base) + p.a_off, 0),
                                   kmajor_desc_sm100(p.b_tile, ptx::smem_addr(base) + p.b_off, 0), p.idesc, 0u);
      __syncwarp();
      tc5::tmem_dealloc<CTA_GROUP>(tmem, TMEM_COLS);
    }
    return;
  }

  const bool issuer = p.breach == Breach::CTA_GROUP_RANK ? rank == 1 : rank == 0;
  if (issuer && warp == 0 && ptx::elect_one_sync()) {
    const uint32_t a_addr = ptx::smem_addr(base) + p.a_off, b_addr = ptx::smem_addr(base) + p.b_off;
    for (int ks = 0; ks < p.ksteps; ++ks) {
      uint64_t a_desc = kmajor_desc_sm100(p.a_tile, a_addr, ks), b_desc = kmajor_desc_sm100(p.b_tile, b_addr, ks);
      uint32_t idesc = p.idesc, d = tmem;
      if (p.breach == Breach::IDESC_RESERVED) idesc |= 1u << 23;
      if (p.breach == Breach::IDESC_SHAPE) idesc = (idesc & ~(0x3Fu << 17)) | ((264u >> 3) << 17);
      if (p.breach == Breach::SHAPE_M64 || p.breach == Breach::SHAPE_PAIR_M128)
        idesc = (idesc & ~(0x1Fu << 24)) | ((uint32_t(64 * CTA_GROUP) >> 4) << 24);
      if (p.breach == Breach::SMEM_DESC) a_desc &= ~(7ull << 46);
      if (p.breach == Breach::SMEM_ALIGN) a_desc += 128 >> 4;
      if (p.breach == Breach::SMEM_RANGE) a_desc += 49152 >> 4;
      if (p.breach == Breach::MMA_UNALLOCATED) d += 192;  // columns 192 .. 192 + N - 1 > 255
      tc5::mma_f16_ss<CTA_GROUP>(d, a_desc, b_desc, idesc, ks > 0 ? 1u : 0u);
    }
    if constexpr (CTA_GROUP == 1) {
      if (p.breach == Breach::ARRIVE_NOT_COMMIT) ptx::mbarrier_arrive(&mma_bar);
      else tc5::commit(&mma_bar);
    } else {
      tc5::commit_multicast<CTA_GROUP>(&mma_bar, 0b11);
    }
  }
  if (p.breach == Breach::LD_PENDING_WRITE) {
    // Every thread passes a barrier after the issue and the commit, none waits on mma_bar: the MMAs may still
    // be in flight when the loads below read their columns.
    tc5::fence_before_thread_sync();
    if constexpr (CTA_GROUP == 1) {
      __syncthreads();
    } else {
      ptx::barrier_cluster_arrive();
      ptx::barrier_cluster_wait();
    }
  } else {
    ptx::mbarrier_wait(&mma_bar, 0, "mma_bar");
  }
  if (p.breach != Breach::NO_FENCE_AFTER_WAIT) tc5::fence_after_thread_sync();
  if (p.breach == Breach::BARRIER_AFTER_FENCE) __syncthreads();

  // Every register of every lane, raw: out[(((rank * 4 + warp) * (n / 8) + col / 8) * 32 + lane) * 8 + reg]
  const int n_cta = p.n;  // D has N columns in each CTA's TMEM
  const int quarter_warp = p.breach == Breach::LANE_QUARTER ? (warp + 3) % 4 : warp;
  if (p.breach == Breach::LD_PENDING_LIMIT) {
    float v[8];
    for (int i = 0; i < 17; ++i) tc5::ld_32x32b_x8(tmem_addr(tmem, 32u * uint32_t(warp), 0), v);
    tc5::wait_ld();
  }
  // LD_PENDING_WRITE of the pair: only the odd CTA loads (it finds the MMAs in the even CTA's queue).
  const bool loads = !(p.breach == Breach::LD_PENDING_WRITE && CTA_GROUP == 2 && rank == 0);
  for (int col = 0; col < n_cta && loads; col += 8) {
    float v[8];
    uint32_t col_addr = uint32_t(col);
    if (p.breach == Breach::OUTSIDE_ALLOCATION) col_addr += TMEM_COLS;
    tc5::ld_32x32b_x8(tmem_addr(tmem, 32u * uint32_t(quarter_warp), col_addr), v);
    float* dst = out + ((size_t(rank * 4 + warp) * size_t(n_cta / 8) + size_t(col / 8)) * 32 + lane) * 8;
    if (p.breach == Breach::LD_EARLY_USE) {  // what a kernel that skips the wait would compute with
#pragma unroll
      for (int i = 0; i < 8; ++i) dst[i] = v[i];
    }
    if (p.breach != Breach::LD_NO_WAIT) tc5::wait_ld();
    if (p.breach != Breach::LD_EARLY_USE) {
#pragma unroll
      for (int i = 0; i < 8; ++i) dst[i] = v[i];
    }
  }

  if (p.breach == Breach::TMEM_WAR) {
    // Warps 1-3 tell warp 0 they have read their lane quarters through a shared-memory counter, which orders
    // nothing for tcgen05 (no fence::before_thread_sync, no barrier): its MMA over those columns must trap.
    if (warp != 0) {
      __syncwarp();
      if (lane == 0) atomicAdd(&reads_done, 1u);
    } else if (ptx::elect_one_sync()) {
      while (atomicAdd(&reads_done, 0u) != 3u) {
      }
      tc5::mma_f16_ss<CTA_GROUP>(tmem, kmajor_desc_sm100(p.a_tile, ptx::smem_addr(base) + p.a_off, 0),
                                 kmajor_desc_sm100(p.b_tile, ptx::smem_addr(base) + p.b_off, 0), p.idesc, 0u);
    }
    __syncwarp();
  }
  if (p.breach != Breach::NO_FENCE_BEFORE) tc5::fence_before_thread_sync();
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
  const int dealloc_warp = p.breach == Breach::DEALLOC_WARP ? 2 : 1;
  if (warp == dealloc_warp && p.breach != Breach::EXIT_HOLDING) {
    tc5::fence_after_thread_sync();
    tc5::tmem_dealloc<CTA_GROUP>(tmem, p.breach == Breach::DEALLOC_RANGE ? TMEM_COLS / 2 : TMEM_COLS);
  }
#elif defined(__CUDA_ARCH__)
  __trap();
#endif
}

// ---- a cta_group::1 multicast commit that only the other CTA waits for (v8's token pair) ----
// Both CTAs: the same image, the same MMAs into their own TMEM. CTA 0's commit arrives on its mma_bar, CTA
// 1's (multicast, mask 0b01) on CTA 0's mma_bar too; CTA 0 waits on it, then arrives on CTA 1's go_bar, on
// which CTA 1 waits before it reads. CTA 0 begins that wait only once CTA 1 has issued its commit
// (order_bar): under the strict schedule a commit issued while its barrier's waiter already waits runs at
// once, so only this order needs the waiter to look at the other CTA's queue. out: as mma_kernel's layout,
// CTA r's at r * 128 * n.
__global__ void __launch_bounds__(THREADS)
    peer_commit_kernel(const __grid_constant__ MmaParams p, const uint8_t* image, float* out) {
#if defined(GEMM_HAS_TCGEN05)
  extern __shared__ uint8_t smem_raw[];
  uint8_t* base = align_smem_1024(smem_raw);
  __shared__ uint64_t mma_bar;    // CTA 0: both CTAs' commits
  __shared__ uint64_t go_bar;     // CTA 1: CTA 0's arrival once its wait on mma_bar has ended
  __shared__ uint64_t order_bar;  // CTA 0: CTA 1 has committed (PEER_LD_EARLY: has read its TMEM)
  __shared__ uint32_t tmem_slot;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t rank = ptx::cluster_ctarank();
  for (uint32_t i = threadIdx.x * 16; i < p.image_bytes; i += THREADS * 16)
    *reinterpret_cast<uint4*>(base + i) = *reinterpret_cast<const uint4*>(image + i);
  ptx::fence_proxy_async_shared();
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&mma_bar, 2);
    ptx::mbarrier_init(&go_bar, 1);
    ptx::mbarrier_init(&order_bar, 1);
    ptx::fence_mbarrier_init();
  }
  if (warp == 1) {
    tc5::tmem_alloc(&tmem_slot, TMEM_COLS);
    tc5::tmem_relinquish_alloc_permit();
  }
  tc5::fence_before_thread_sync();
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
  tc5::fence_after_thread_sync();
  const uint32_t tmem = tmem_slot;
  if (warp == 0 && ptx::elect_one_sync()) {
    const uint32_t a_addr = ptx::smem_addr(base) + p.a_off, b_addr = ptx::smem_addr(base) + p.b_off;
    for (int ks = 0; ks < p.ksteps; ++ks)
      tc5::mma_f16_ss(tmem, kmajor_desc_sm100(p.a_tile, a_addr, ks), kmajor_desc_sm100(p.b_tile, b_addr, ks),
                      p.idesc, ks > 0 ? 1u : 0u);
    if (rank == 0) {
      tc5::commit(&mma_bar);
    } else {
      tc5::commit_multicast<1>(&mma_bar, 0b01);  // to CTA 0's barrier only
      if (p.breach != Breach::PEER_LD_EARLY)
        ptx::mbarrier_arrive_release_cluster(ptx::mapa_shared_cluster(&order_bar, 0));
    }
  }
  __syncwarp();
  if (rank == 0) {
    // PEER_LD_EARLY: CTA 0's wait, which runs CTA 1's MMAs, only once CTA 1 has read (so that it always
    // traps)
    ptx::mbarrier_wait(&order_bar, 0, "order_bar");
    ptx::mbarrier_wait(&mma_bar, 0, "mma_bar");
    if (threadIdx.x == 0) ptx::mbarrier_arrive_release_cluster(ptx::mapa_shared_cluster(&go_bar, 1));
  } else if (p.breach == Breach::PEER_LD_EARLY) {
    __syncthreads();  // orders nothing for the MMAs: CTA 1 has not learnt that its commit arrived
  } else {
    ptx::mbarrier_wait(&go_bar, 0, "go_bar");
  }
  tc5::fence_after_thread_sync();
  for (int col = 0; col < p.n; col += 8) {
    float v[8];
    tc5::ld_32x32b_x8(tmem_addr(tmem, 32u * uint32_t(warp), uint32_t(col)), v);
    tc5::wait_ld();
    float* dst = out + ((size_t(rank * 4 + warp) * size_t(p.n / 8) + size_t(col / 8)) * 32 + lane) * 8;
#pragma unroll
    for (int i = 0; i < 8; ++i) dst[i] = v[i];
  }
  if (p.breach == Breach::PEER_LD_EARLY && rank == 1) {
    __syncthreads();
    if (threadIdx.x == 0) ptx::mbarrier_arrive_release_cluster(ptx::mapa_shared_cluster(&order_bar, 0));
  }
  tc5::fence_before_thread_sync();
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
  if (warp == 1) {
    tc5::fence_after_thread_sync();
    tc5::tmem_dealloc(tmem, TMEM_COLS);
  }
#elif defined(__CUDA_ARCH__)
  __trap();
#endif
}

// ---- the MXFP8 stage's instructions: tcgen05.cp, the block-scaled MMA, tcgen05.ld.32x32b.x32 ----
// Each CTA's shared-memory image, as the MXFP8 kernel lays out one ring stage (1024-aligned base).
constexpr KMajorTile MX_A_TILE{128, 128, 1, Swizzle::B128};  // this CTA's 128 rows of A, one K tile of 128 B
constexpr KMajorTile MX_B_TILE{128, 128, 1, Swizzle::B128};  // this CTA's half of the pair's N = 256
constexpr uint32_t MX_A_OFF = 0, MX_B_OFF = 16384, MX_SFA_OFF = 32768, MX_SFB_OFF = MX_SFA_OFF + 512;
constexpr uint32_t MX_IMAGE_BYTES = MX_SFB_OFF + 1024;
constexpr int MX_N = 256, MX_K_STEPS = 4, MX_TMEM_COLS = 512;
constexpr uint32_t MX_SFA_COL = 384, MX_SFB_COL = MX_SFA_COL + 4;  // as the kernel's first scale slot
constexpr int MX_SF_READ_COLS = 16;                                // columns 384..399 read back

// out: D as [cta][warp][col / 32][lane][32 registers], then the scale columns as [cta][warp][lane][16].
__global__ void __launch_bounds__(THREADS) mx_kernel(const uint8_t* image, float* out, uint32_t* sf_out,
                                                     Breach breach) {
#if defined(GEMM_HAS_TCGEN05)
  extern __shared__ uint8_t smem_raw[];
  uint8_t* base = align_smem_1024(smem_raw);
  __shared__ uint64_t mma_bar;
  __shared__ uint32_t tmem_slot;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t rank = ptx::cluster_ctarank();
  const uint8_t* src  = image + size_t(rank) * MX_IMAGE_BYTES;
  for (uint32_t i = threadIdx.x * 16; i < MX_IMAGE_BYTES; i += THREADS * 16)
    *reinterpret_cast<uint4*>(base + i) = *reinterpret_cast<const uint4*>(src + i);
  ptx::fence_proxy_async_shared();
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&mma_bar, 1);
    ptx::fence_mbarrier_init();
  }
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
  if (warp == 1) {
    tc5::tmem_alloc<2>(&tmem_slot, MX_TMEM_COLS);
    tc5::tmem_relinquish_alloc_permit<2>();
  }
  tc5::fence_before_thread_sync();
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
  tc5::fence_after_thread_sync();
  const uint32_t tmem = tmem_slot;

  if (rank == 0 && warp == 0 && ptx::elect_one_sync()) {
    const uint32_t b0 = ptx::smem_addr(base), sfa = tmem + MX_SFA_COL, sfb = tmem + MX_SFB_COL;
    tc5::cp_32x128b_warpx4(breach == Breach::CP_ADDRESS ? sfa + (32u << 16) : sfa,
                           mx_sf_cp_desc_sm100(b0 + MX_SFA_OFF));
    for (int i = 0; i < 2; ++i)
      tc5::cp_32x128b_warpx4(sfb + 4u * uint32_t(i), mx_sf_cp_desc_sm100(b0 + MX_SFB_OFF + 512u * uint32_t(i)));
    for (int ks = 0; ks < MX_K_STEPS; ++ks)
      tc5::mma_mxf8f6f4_block32(tmem, kmajor_desc_sm100(MX_A_TILE, b0 + MX_A_OFF, ks),
                                kmajor_desc_sm100(MX_B_TILE, b0 + MX_B_OFF, ks),
                                make_idesc_mxf8f6f4(MxKind::E4M3, MxKind::E4M3, 256, MX_N, uint32_t(ks),
                                                    uint32_t(ks)),
                                sfa, sfb, ks > 0 ? 1u : 0u);
    tc5::commit_multicast<2>(&mma_bar, 0b11);
  }
  ptx::mbarrier_wait(&mma_bar, 0, "mma_bar");
  tc5::fence_after_thread_sync();

  const uint32_t lane0 = 32u * uint32_t(warp);
  for (int col = 0; col < MX_N; col += 32) {
    float v[32];
    tc5::ld_32x32b_x32(tmem_addr(tmem, lane0, uint32_t(col)), v);
    tc5::wait_ld();
    float* dst = out + ((size_t(rank * 4 + warp) * (MX_N / 32) + size_t(col / 32)) * 32 + size_t(lane)) * 32;
#pragma unroll
    for (int i = 0; i < 32; ++i) dst[i] = v[i];
  }
  for (int col = 0; col < MX_SF_READ_COLS; col += 8) {
    float v[8];
    tc5::ld_32x32b_x8(tmem_addr(tmem, lane0, MX_SFA_COL + uint32_t(col)), v);
    tc5::wait_ld();
    uint32_t* dst = sf_out + (size_t(rank * 4 + warp) * 32 + size_t(lane)) * MX_SF_READ_COLS + size_t(col);
#pragma unroll
    for (int i = 0; i < 8; ++i) dst[i] = __float_as_uint(v[i]);
  }

  tc5::fence_before_thread_sync();
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
  if (warp == 1) {
    tc5::fence_after_thread_sync();
    tc5::tmem_dealloc<2>(tmem, MX_TMEM_COLS);
  }
#elif defined(__CUDA_ARCH__)
  __trap();
#endif
}

enum class Gpu { NONE, HOPPER, BLACKWELL };
Gpu detect(std::string& name) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return Gpu::NONE;
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  name = prop.name;
  if (prop.major == 9 && prop.minor == 0) return Gpu::HOPPER;
  if (prop.major == 10 && (prop.minor == 0 || prop.minor == 3)) return Gpu::BLACKWELL;
  return Gpu::NONE;
}

uint16_t bf16_bits(float f) {
  const __nv_bfloat16 h = __float2bfloat16(f);
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}
double bf16_value(const uint8_t* p) {
  uint32_t w = uint32_t(p[0]) | (uint32_t(p[1]) << 8);
  w <<= 16;
  float f;
  std::memcpy(&f, &w, 4);
  return double(f);
}

// One launch of mma_kernel<CTA_GROUP>; returns the launch's error (after synchronising).
// One cluster of `ctas` CTAs (THREADS each, `image_bytes` + 1024 of dynamic shared memory) running `kernel`;
// returns the launch's error (after synchronising).
template <typename... Params, typename... Args>
cudaError_t launch_cluster(void (*kernel)(Params...), int ctas, uint32_t image_bytes, Args... args) {
  const uint32_t smem = image_bytes + 1024;
  cudaError_t e       = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
  if (e != cudaSuccess) return e;
  cudaLaunchAttribute cluster{};
  cluster.id               = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = unsigned(ctas);
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg   = {};
  cfg.gridDim              = dim3(unsigned(ctas));
  cfg.blockDim             = dim3(THREADS);
  cfg.dynamicSmemBytes     = smem;
  cfg.attrs                = &cluster;
  cfg.numAttrs             = 1;
  e = cudaLaunchKernelEx(&cfg, kernel, args...);
  if (e != cudaSuccess) return e;
  return cudaDeviceSynchronize();
}

template <int CTA_GROUP>
cudaError_t launch(const MmaParams& p, const uint8_t* d_image, float* d_out) {
  return launch_cluster(mma_kernel<CTA_GROUP>, CTA_GROUP, p.image_bytes, p, d_image, d_out);
}

struct Case {
  const stage_configs::StageConfig* a;
  const stage_configs::StageConfig* b;
};

// The tcgen05 tiles of the table: each sm_100 A row with the B row of the same stage variant; then the 32B and
// 64B swizzle tiles no stage uses (stage_configs.h SWIZZLE_TILES), paired the same way.
std::vector<Case> cases() {
  using namespace stage_configs;
  std::vector<Case> out;
  const auto pair_up = [&](const StageConfig* begin, const StageConfig* end) {
    for (const StageConfig* a = begin; a != end; ++a) {
      if (a->arch != Arch::SM100 || a->operand != Operand::A) continue;
      for (const StageConfig* b = begin; b != end; ++b)
        if (b->arch == Arch::SM100 && b->operand == Operand::B && !std::strcmp(a->stage, b->stage)) {
          out.push_back({a, b});
          break;
        }
    }
  };
  pair_up(std::begin(STAGE_CONFIGS), std::end(STAGE_CONFIGS));
  pair_up(std::begin(SWIZZLE_TILES), std::end(SWIZZLE_TILES));
  return out;
}

layout_model::SwizzleMode model_swizzle(Swizzle s) {
  return s == Swizzle::B32    ? layout_model::SwizzleMode::B32
         : s == Swizzle::B64  ? layout_model::SwizzleMode::B64
         : s == Swizzle::B128 ? layout_model::SwizzleMode::B128
                              : layout_model::SwizzleMode::NONE;
}
const char* swizzle_label(layout_model::SwizzleMode m) {
  return m == layout_model::SwizzleMode::B32    ? "32B"
         : m == layout_model::SwizzleMode::B64  ? "64B"
         : m == layout_model::SwizzleMode::B128 ? "128B"
                                                : "none";
}

// Runs one case; prints one line; true if every element is within the bound. n: the MMA's N, if not the B
// tile's rows (times the pair).
//
// For a swizzled tile the test also shows it can tell the swizzle: the same product read with the XOR of each
// other mode (the rows at the model's pitch, only the 16-byte chunk permutation changed, as an emulator that
// decoded the swizzle code wrongly would read them) must disagree with the GPU's D beyond the bound somewhere.
// Each such reading is a wrong emulator this comparison would catch.
bool run_case(const Case& c, uint64_t seed, const char* schedule, int n = 0) {
  // The 2-SM stage's rows are each CTA's half tiles of the pair's M = 256 MMA.
  const int cta_group = std::strncmp(c.a->stage, "v5", 2) == 0 ? 2 : 1;
  MmaParams p{};
  p.a_tile = KMajorTile{c.a->rows, c.a->block_k, c.a->elem_bytes, c.a->swizzle};
  p.b_tile = KMajorTile{c.b->rows, c.b->block_k, c.b->elem_bytes, c.b->swizzle};
  p.a_off  = c.a->tile_addr;
  p.b_off  = c.b->tile_addr;
  p.image_bytes = std::max(p.a_off + kmajor_tile_bytes(p.a_tile), p.b_off + kmajor_tile_bytes(p.b_tile));
  p.image_bytes = (p.image_bytes + 15) / 16 * 16;
  p.n      = n != 0 ? n : c.b->rows * cta_group;
  p.ksteps = kmajor_ksteps(p.a_tile);
  p.idesc  = make_idesc_f16(F16Kind::BF16, F16Kind::BF16, AccKind::F32, 128 * cta_group, p.n);
  p.breach = Breach::NONE;

  // Random bf16 everywhere in each CTA's image (values in [-2, 2]).
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<uint8_t> image(size_t(cta_group) * p.image_bytes);
  for (size_t i = 0; i + 1 < image.size(); i += 2) {
    const uint16_t b = bf16_bits(dist(rng));
    image[i] = uint8_t(b & 0xFF), image[i + 1] = uint8_t(b >> 8);
  }
  uint8_t* d_image = nullptr;
  float* d_out     = nullptr;
  const size_t out_floats = size_t(cta_group) * 128 * size_t(p.n);
  CUDA_CHECK(cudaMalloc(&d_image, image.size()));
  CUDA_CHECK(cudaMalloc(&d_out, out_floats * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_image, image.data(), image.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_out, 0xFF, out_floats * sizeof(float)));  // poison: NaN
  CUDA_CHECK(cta_group == 1 ? launch<1>(p, d_image, d_out) : launch<2>(p, d_image, d_out));
  std::vector<float> out(out_floats);
  CUDA_CHECK(cudaMemcpy(out.data(), d_out, out_floats * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_image));
  CUDA_CHECK(cudaFree(d_out));
  const std::string held = tc5emu::check_all_freed();
  auto fail_model = [](const std::string& why) {
    std::fprintf(stderr, "layout model: %s\n", why.c_str());
    std::exit(1);
  };

  // The model: the address of every (row, k) element of each K step, per operand, from the kernels' own
  // descriptors at the table's tile addresses (a 1024-aligned base does not change a swizzled address).
  const int k_elems = MMA_K_BYTES / 2;
  std::vector<std::vector<uint32_t>> a_addr(size_t(p.ksteps)), b_addr(size_t(p.ksteps));
  for (int ks = 0; ks < p.ksteps; ++ks) {
    std::string why = layout_model::mma_kmajor_read(kmajor_desc_sm100(p.a_tile, p.a_off, ks),
                                                    layout_model::MmaEncoding::TCGEN05_SM100, p.a_tile.rows,
                                                    MMA_K_BYTES, 2, a_addr[size_t(ks)]);
    if (why.empty())
      why = layout_model::mma_kmajor_read(kmajor_desc_sm100(p.b_tile, p.b_off, ks),
                                          layout_model::MmaEncoding::TCGEN05_SM100, p.b_tile.rows, MMA_K_BYTES,
                                          2, b_addr[size_t(ks)]);
    if (!why.empty()) fail_model(why);
  }
  // Where each row of A, B and D lives: cta_group::2 through the model's pair split [tc5-pair].
  const int m = 128 * cta_group;
  auto locate = [&](layout_model::PairOperand op, int row) {
    if (cta_group == 1) return layout_model::PairRow{0, row};
    layout_model::PairRow at{};
    const std::string why = layout_model::pair_row(op, m, p.n, row, at);
    if (!why.empty()) fail_model(why);
    return at;
  };
  std::vector<layout_model::PairRow> a_at, b_at;
  std::vector<int> d_row_of(size_t(cta_group) * 128, -1);  // [cta * 128 + lane]: the D row of the pair there
  for (int r = 0; r < m; ++r) {
    a_at.push_back(locate(layout_model::PairOperand::A, r));
    const layout_model::PairRow dr = locate(layout_model::PairOperand::D, r);
    d_row_of[size_t(dr.cta) * 128 + size_t(dr.row)] = r;
  }
  for (int col = 0; col < p.n; ++col) b_at.push_back(locate(layout_model::PairOperand::B, col));
  // The product of the model's reading, every shared-memory address first passed through `remap`.
  auto product = [&](auto remap, std::vector<double>& ref, std::vector<double>& mag) {
    ref.assign(out_floats, 0.0), mag.assign(out_floats, 0.0);  // [pair row][col]
    for (int ks = 0; ks < p.ksteps; ++ks)
      for (int r = 0; r < m; ++r) {
        const layout_model::PairRow ar = a_at[size_t(r)];
        for (int col = 0; col < p.n; ++col) {
          const layout_model::PairRow br = b_at[size_t(col)];
          const uint8_t* a_img = &image[size_t(ar.cta) * p.image_bytes];
          const uint8_t* b_img = &image[size_t(br.cta) * p.image_bytes];
          double s = 0, mg = 0;
          for (int k = 0; k < k_elems; ++k) {
            const double x = bf16_value(a_img + remap(a_addr[size_t(ks)][size_t(ar.row * k_elems + k)]));
            const double y = bf16_value(b_img + remap(b_addr[size_t(ks)][size_t(br.row * k_elems + k)]));
            s += x * y, mg += std::fabs(x * y);
          }
          ref[size_t(r) * size_t(p.n) + size_t(col)] += s;
          mag[size_t(r) * size_t(p.n) + size_t(col)] += mg;
        }
      }
  };
  // The GPU's D: each register through the model's tcgen05.ld and accumulator maps, each CTA's TMEM lane
  // through the pair split of D. [pair row][col]; every element exactly once.
  std::vector<float> d(out_floats, std::nanf(""));
  std::vector<int> hits(out_floats, 0);
  for (int cta = 0; cta < cta_group; ++cta)
    for (int w = 0; w < 4; ++w)
      for (int col = 0; col < p.n; col += 8)
        for (int lane = 0; lane < 32; ++lane)
          for (int reg = 0; reg < 8; ++reg) {
            layout_model::TmemCell cell{};
            const uint32_t taddr = (uint32_t(32 * w) << 16) | uint32_t(col);
            const std::string why = layout_model::tmem_ld_32x32b(taddr, w, lane, reg, 8, cell);
            int row = 0, dcol = 0;
            if (!why.empty() || !layout_model::tmem_accumulator_m128(cell, 0, p.n, row, dcol)) {
              std::fprintf(stderr, "layout model: no D element for warp %d lane %d reg %d (%s)\n", w, lane, reg,
                           why.c_str());
              return false;
            }
            const int pair_row = d_row_of[size_t(cta) * 128 + size_t(row)];  // the D row CTA `cta` holds there
            if (pair_row < 0) {
              std::fprintf(stderr, "layout model: no D row in CTA %d lane %d\n", cta, row);
              return false;
            }
            const size_t at = size_t(pair_row) * size_t(p.n) + size_t(dcol);
            d[at] = out[((size_t(cta * 4 + w) * size_t(p.n / 8) + size_t(col / 8)) * 32 + size_t(lane)) * 8 +
                        size_t(reg)];
            ++hits[at];
          }
  const bool covered = std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; });
  // Elements of D outside the bound of an fp32 sum of `ref`; the worst |err| / sum |a b|.
  auto outside = [&](const std::vector<double>& ref, const std::vector<double>& mag, double& worst,
                     bool print) {
    size_t bad = 0;
    worst      = 0;
    for (size_t at = 0; at < out_floats; ++at) {
      const double err = std::fabs(double(d[at]) - ref[at]);
      const double tol = 2.0 * 64 * std::ldexp(1.0, -24) * mag[at] + std::ldexp(1.0, -126);
      if (!std::isfinite(d[at]) || err > tol) {
        if (print && bad < 3)
          std::printf("  %s D[%zu][%zu]: got %.9g, model %.9g, |err| %.3g > %.3g\n", c.a->stage, at / size_t(p.n),
                      at % size_t(p.n), double(d[at]), ref[at], err, tol);
        ++bad;
      }
      if (mag[at] > 0) worst = std::max(worst, err / mag[at]);
    }
    return bad;
  };
  std::vector<double> ref, mag;
  product([](uint32_t a) { return a; }, ref, mag);
  double worst = 0;
  const size_t bad = outside(ref, mag, worst, true);

  // The power check: each other swizzle's XOR on the same rows must be caught.
  std::string power;
  bool power_ok = true;
  const layout_model::SwizzleMode mode = model_swizzle(p.a_tile.swizzle);
  if (mode != layout_model::SwizzleMode::NONE && p.b_tile.swizzle == p.a_tile.swizzle) {
    for (const layout_model::SwizzleMode other :
         {layout_model::SwizzleMode::NONE, layout_model::SwizzleMode::B32, layout_model::SwizzleMode::B64,
          layout_model::SwizzleMode::B128}) {
      if (other == mode) continue;
      // The swizzle is an involution of the address: undo the tile's, apply the other's.
      product([&](uint32_t a) {
        return layout_model::swizzle_address(layout_model::swizzle_address(a, mode), other);
      }, ref, mag);
      double ignored = 0;
      const size_t caught = outside(ref, mag, ignored, false);
      power_ok = power_ok && caught > 0;
      power += std::string(power.empty() ? "" : ", ") + swizzle_label(other) + " " + std::to_string(caught);
    }
    power = "; read as another swizzle, caught in: " + power;
  }
  const bool pass = bad == 0 && covered && held.empty() && power_ok;
  std::printf("%-4s %-12s %-4s cta_group::%d M=%d N=%-3d %d K steps, %-5s: %zu/%zu within bound (worst |err|/S "
              "%.2g)%s%s%s%s\n",
              pass ? "PASS" : "FAIL", c.a->stage, swizzle_label(mode), cta_group, m, p.n, p.ksteps, schedule,
              out_floats - bad, out_floats, worst, power.c_str(), covered ? "" : "; D NOT covered once",
              held.empty() ? "" : "  ", held.c_str());
  return pass;
}


cudaError_t launch_mx(const uint8_t* d_image, float* d_out, uint32_t* d_sf, Breach breach) {
  return launch_cluster(mx_kernel, 2, MX_IMAGE_BYTES, d_image, d_out, d_sf, breach);
}

// The block-scaled path once; prints its lines; true if every scale byte and every element of D agree with
// the model.
bool run_mx_case(uint64_t seed, const char* schedule) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> byte_dist(0, 253), exp_dist(127 - 6, 127 + 6);
  std::vector<uint8_t> image(2 * size_t(MX_IMAGE_BYTES));
  for (int cta = 0; cta < 2; ++cta) {
    uint8_t* img = image.data() + size_t(cta) * MX_IMAGE_BYTES;
    for (uint32_t i = 0; i < MX_SFA_OFF; ++i) {  // any finite e4m3 byte (not the NaNs 0x7F, 0xFF)
      const int x = byte_dist(rng);
      img[i]      = uint8_t(x < 0x7F ? x : x + 1);
    }
    for (uint32_t i = MX_SFA_OFF; i < MX_IMAGE_BYTES; ++i) img[i] = uint8_t(exp_dist(rng));  // 2^-6 .. 2^6
  }
  uint8_t* d_image = nullptr;
  float* d_out     = nullptr;
  uint32_t* d_sf   = nullptr;
  const size_t out_floats = 2 * 128 * size_t(MX_N), sf_words = 2 * 128 * size_t(MX_SF_READ_COLS);
  CUDA_CHECK(cudaMalloc(&d_image, image.size()));
  CUDA_CHECK(cudaMalloc(&d_out, out_floats * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_sf, sf_words * sizeof(uint32_t)));
  CUDA_CHECK(cudaMemcpy(d_image, image.data(), image.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_out, 0xFF, out_floats * sizeof(float)));
  CUDA_CHECK(cudaMemset(d_sf, 0xFF, sf_words * sizeof(uint32_t)));
  CUDA_CHECK(launch_mx(d_image, d_out, d_sf, Breach::NONE));
  std::vector<float> out(out_floats);
  std::vector<uint32_t> sf(sf_words);
  CUDA_CHECK(cudaMemcpy(out.data(), d_out, out_floats * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(sf.data(), d_sf, sf_words * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_image));
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaFree(d_sf));
  const std::string held = tc5emu::check_all_freed();
  auto fail_model = [](const std::string& why) {
    std::fprintf(stderr, "layout model: %s\n", why.c_str());
    std::exit(1);
  };

  // 1. The model's TMEM after the three copies, per CTA: byte (lane, column, byte) <- the image byte.
  //    Columns 384..399 (only 384..395 written); -1: not written by any copy.
  std::vector<int> tmem_bytes(2 * 128 * MX_SF_READ_COLS * 4, -1);
  auto tb = [&](int cta, uint32_t lane, uint32_t col, uint32_t byte) -> int& {
    return tmem_bytes[((size_t(cta) * 128 + lane) * MX_SF_READ_COLS + (col - MX_SFA_COL)) * 4 + byte];
  };
  const uint32_t sf_srcs[3] = {MX_SFA_OFF, MX_SFB_OFF, MX_SFB_OFF + 512};
  const uint32_t sf_cols[3] = {MX_SFA_COL, MX_SFB_COL, MX_SFB_COL + 4};
  for (int t = 0; t < 3; ++t) {  // tcgen05.cp.cta_group::2: each CTA's TMEM as the model's pair copy fills it
    std::vector<layout_model::PairCopiedByte> copied;
    const std::string why =
        layout_model::tcgen05_cp_32x128b_warpx4_pair(mx_sf_cp_desc_sm100(sf_srcs[t]), sf_cols[t], copied);
    if (!why.empty()) fail_model(why);
    for (const layout_model::PairCopiedByte& c : copied)
      tb(c.dst_cta, c.byte.dst.lane, c.byte.dst.column, c.byte.dst.byte) =
          image[size_t(c.src_cta) * MX_IMAGE_BYTES + c.byte.smem_addr];
  }
  size_t sf_bad = 0, sf_checked = 0;
  for (int cta = 0; cta < 2; ++cta)
    for (uint32_t lane = 0; lane < 128; ++lane)
      for (uint32_t col = MX_SFA_COL; col < MX_SFA_COL + 12; ++col) {
        const uint32_t got = sf[(size_t(cta) * 128 + lane) * MX_SF_READ_COLS + (col - MX_SFA_COL)];
        for (uint32_t byte = 0; byte < 4; ++byte) {
          ++sf_checked;
          const int want = tb(cta, lane, col, byte);
          if (want < 0 || int((got >> (8 * byte)) & 0xFF) != want) {
            if (sf_bad++ < 3)
              std::printf("  tcgen05.cp: CTA %d lane %u column %u byte %u: got 0x%02x, model 0x%02x\n", cta, lane,
                          col, byte, (got >> (8 * byte)) & 0xFF, want);
          }
        }
      }

  // 2. D = sum over the 4 K steps of the block-scaled products, in fp64.
  auto e4m3 = [](uint8_t b) {
    __nv_fp8_e4m3 f;
    f.__x = b;
    return double(float(f));
  };
  auto scale_of = [&](int cta, uint32_t sf_taddr, int row, int rows, uint32_t sf_id, int quarter) {
    layout_model::TmemByte at{};
    const std::string why = layout_model::mma_scale_read_block32(sf_taddr, row, rows, sf_id, quarter, at);
    if (!why.empty()) fail_model(why);
    const int e = tb(cta, at.lane, at.column, at.byte);
    return e < 0 ? NAN : std::ldexp(1.0, e - 127);
  };
  std::vector<double> ref(out_floats, 0.0), mag(out_floats, 0.0);  // [cta * 128 + row][col]
  std::vector<uint32_t> a_addr, b_addr;
  for (int ks = 0; ks < MX_K_STEPS; ++ks) {
    std::string why = layout_model::mma_kmajor_read(kmajor_desc_sm100(MX_A_TILE, MX_A_OFF, ks),
                                                    layout_model::MmaEncoding::TCGEN05_SM100, 128, 32, 1, a_addr);
    if (why.empty())
      why = layout_model::mma_kmajor_read(kmajor_desc_sm100(MX_B_TILE, MX_B_OFF, ks),
                                          layout_model::MmaEncoding::TCGEN05_SM100, 128, 32, 1, b_addr);
    if (!why.empty()) fail_model(why);
    for (int cta = 0; cta < 2; ++cta)
      for (int r = 0; r < 128; ++r) {
        const double sa = scale_of(cta, MX_SFA_COL, r, 128, uint32_t(ks), r / 32);
        for (int col = 0; col < MX_N; ++col) {
          layout_model::PairRow b_at{};  // B's row `col`: which CTA's shared memory, which row [tc5-pair]
          const std::string why_b = layout_model::pair_row(layout_model::PairOperand::B, 256, MX_N, col, b_at);
          if (!why_b.empty()) fail_model(why_b);
          const int b_cta = b_at.cta, b_row = b_at.row;
          const double sb = scale_of(cta, MX_SFB_COL, col, MX_N, uint32_t(ks), (col / 32) % 4);
          double s = 0, m = 0;
          for (int k = 0; k < 32; ++k) {
            const double x = e4m3(image[size_t(cta) * MX_IMAGE_BYTES + a_addr[size_t(r * 32 + k)]]);
            const double y = e4m3(image[size_t(b_cta) * MX_IMAGE_BYTES + b_addr[size_t(b_row * 32 + k)]]);
            s += x * y, m += std::fabs(x * y);
          }
          ref[size_t(cta * 128 + r) * MX_N + size_t(col)] += s * sa * sb;
          mag[size_t(cta * 128 + r) * MX_N + size_t(col)] += m * sa * sb;
        }
      }
  }
  size_t bad = 0, checked = 0;
  double worst = 0;
  for (int cta = 0; cta < 2; ++cta)
    for (int w = 0; w < 4; ++w)
      for (int col = 0; col < MX_N; col += 32)
        for (int lane = 0; lane < 32; ++lane)
          for (int reg = 0; reg < 32; ++reg) {
            layout_model::TmemCell cell{};
            const uint32_t taddr = (uint32_t(32 * w) << 16) | uint32_t(col);
            const std::string why = layout_model::tmem_ld_32x32b(taddr, w, lane, reg, 32, cell);
            int row = 0, dcol = 0;
            if (!why.empty() || !layout_model::tmem_accumulator_m128(cell, 0, MX_N, row, dcol))
              fail_model("no D element for a tcgen05.ld.32x32b.x32 register (" + why + ")");
            const float got  = out[((size_t(cta * 4 + w) * (MX_N / 32) + size_t(col / 32)) * 32 + size_t(lane)) * 32 +
                                  size_t(reg)];
            const size_t at  = size_t(cta * 128 + row) * MX_N + size_t(dcol);
            const double err = std::fabs(double(got) - ref[at]);
            const double tol = 2.0 * 128 * std::ldexp(1.0, -24) * mag[at] + std::ldexp(1.0, -126);
            ++checked;
            if (!std::isfinite(got) || !(err <= tol)) {
              if (bad < 3)
                std::printf("  D[%d][%d] (CTA %d): got %.9g, model %.9g, |err| %.3g > %.3g\n", row, dcol, cta,
                            double(got), ref[at], err, tol);
              ++bad;
            }
            if (mag[at] > 0) worst = std::max(worst, err / mag[at]);
          }
  const bool pass = sf_bad == 0 && bad == 0 && held.empty() && checked == out_floats;
  std::printf("%-4s mxfp8 tcgen05.cp x3 -> %zu/%zu scale bytes as the model; mxf8f6f4.block32 cta_group::2 "
              "M=256 N=%d 4 K steps, ld.32x32b.x32, %-5s: %zu/%zu within bound (worst |err|/S %.2g)%s%s\n",
              pass ? "PASS" : "FAIL", sf_checked - sf_bad, sf_checked, MX_N, schedule, checked - bad, checked,
              worst, held.empty() ? "" : "  ", held.c_str());
  return pass;
}

// rule RULE_NONE: the kernel must run to its end, and every register it stored must be the ld poison.
struct TrapCase {
  const char* name;
  Breach breach;
  uint32_t rule;
  int cta_group;
  tc5emu::Schedule schedule = tc5emu::Schedule::Eager;
};
const TrapCase TRAPS[] = {
    {"alloc_size", Breach::ALLOC_SIZE, tc5emu::RULE_ALLOC_SIZE, 1},
    {"not_converged", Breach::NOT_CONVERGED, tc5emu::RULE_NOT_CONVERGED, 1},
    {"lane_quarter", Breach::LANE_QUARTER, tc5emu::RULE_LANE_QUARTER, 1},
    {"dealloc_warp", Breach::DEALLOC_WARP, tc5emu::RULE_DEALLOC_WARP, 1},
    {"dealloc_range", Breach::DEALLOC_RANGE, tc5emu::RULE_DEALLOC_RANGE, 1},
    {"outside_allocation", Breach::OUTSIDE_ALLOCATION, tc5emu::RULE_OUTSIDE_ALLOCATION, 1},
    {"mma_unallocated", Breach::MMA_UNALLOCATED, tc5emu::RULE_OUTSIDE_ALLOCATION, 1},
    {"idesc_reserved", Breach::IDESC_RESERVED, tc5emu::RULE_IDESC_RESERVED, 1},
    {"idesc_shape", Breach::IDESC_SHAPE, tc5emu::RULE_IDESC_SHAPE, 1},
    {"smem_desc", Breach::SMEM_DESC, tc5emu::RULE_SMEM_DESC, 1},
    {"smem_align", Breach::SMEM_ALIGN, tc5emu::RULE_SMEM_ALIGN, 1},
    {"cta_group_rank", Breach::CTA_GROUP_RANK, tc5emu::RULE_CTA_GROUP_RANK, 2},
    {"exit_holding", Breach::EXIT_HOLDING, tc5emu::RULE_EXIT_HOLDING, 1},
    {"cp_address", Breach::CP_ADDRESS, tc5emu::RULE_CP_ADDRESS, 2},  // through mx_kernel
    {"smem_range", Breach::SMEM_RANGE, tc5emu::RULE_SMEM_RANGE, 1},
    {"ld_poison", Breach::LD_EARLY_USE, tc5emu::RULE_NONE, 1},
    {"ld_poison_pair", Breach::LD_EARLY_USE, tc5emu::RULE_NONE, 2},
    {"ld_not_waited", Breach::LD_NO_WAIT, tc5emu::RULE_LD_NOT_WAITED, 1},
    {"ld_pending_limit", Breach::LD_PENDING_LIMIT, tc5emu::RULE_EMULATOR_LIMIT, 1},
    {"fence_after_wait", Breach::NO_FENCE_AFTER_WAIT, tc5emu::RULE_FENCE_AFTER, 1},
    {"fence_after_cluster", Breach::NO_FENCE_AFTER_CLUSTER, tc5emu::RULE_FENCE_AFTER, 2},
    {"fence_after_barrier", Breach::BARRIER_AFTER_FENCE, tc5emu::RULE_FENCE_AFTER, 1},
    {"fence_before", Breach::NO_FENCE_BEFORE, tc5emu::RULE_FENCE_BEFORE, 1},
    {"arrive_not_commit", Breach::ARRIVE_NOT_COMMIT, tc5emu::RULE_FENCE_BEFORE, 1},
    {"shape_m64", Breach::SHAPE_M64, tc5emu::RULE_SHAPE_NOT_EMULATED, 1},
    {"shape_pair_m128", Breach::SHAPE_PAIR_M128, tc5emu::RULE_SHAPE_NOT_EMULATED, 2},
    {"dealloc_pending", Breach::DEALLOC_PENDING, tc5emu::RULE_DEALLOC_PENDING, 1, tc5emu::Schedule::Late},
    {"dealloc_pending_strict", Breach::DEALLOC_PENDING, tc5emu::RULE_DEALLOC_PENDING, 1,
     tc5emu::Schedule::Strict},
    {"tmem_war", Breach::TMEM_WAR, tc5emu::RULE_TMEM_WAR, 1},
    {"ld_pending_write", Breach::LD_PENDING_WRITE, tc5emu::RULE_LD_PENDING_WRITE, 1,
     tc5emu::Schedule::Strict},
    {"ld_pending_write_pair", Breach::LD_PENDING_WRITE, tc5emu::RULE_LD_PENDING_WRITE, 2,
     tc5emu::Schedule::Strict},
    {"peer_ld_early", Breach::PEER_LD_EARLY, tc5emu::RULE_LD_PENDING_WRITE, 2, tc5emu::Schedule::Strict},
};

// v2a's tiles (128B swizzle, one BLOCK_K), or v5 stage 0's for the pair: the trap tests' MMA.
MmaParams trap_params(int cta_group, Breach breach) {
  const std::vector<Case> all = cases();
  const Case* c               = nullptr;
  for (const Case& x : all)
    if (!std::strcmp(x.a->stage, cta_group == 2 ? "v5 stage 0" : "v2a")) c = &x;
  MmaParams p{};
  p.a_tile      = KMajorTile{c->a->rows, c->a->block_k, 2, c->a->swizzle};
  p.b_tile      = KMajorTile{c->b->rows, c->b->block_k, 2, c->b->swizzle};
  p.a_off       = c->a->tile_addr;
  p.b_off       = c->b->tile_addr;
  p.image_bytes = std::max(p.a_off + kmajor_tile_bytes(p.a_tile), p.b_off + kmajor_tile_bytes(p.b_tile));
  p.n           = c->b->rows * cta_group;
  p.ksteps      = kmajor_ksteps(p.a_tile);
  p.idesc       = make_idesc_f16(F16Kind::BF16, F16Kind::BF16, AccKind::F32, 128 * cta_group, p.n);
  p.breach      = breach;
  return p;
}

// peer_commit_kernel on v2a's tiles filled with random bf16 (one image for both CTAs); `out` gets both CTAs'
// D. Returns the launch's error; report: the emulator's (trap or leak), empty if none.
cudaError_t run_peer_kernel(Breach breach, uint64_t seed, std::vector<float>& out, std::string& report) {
  const MmaParams p = trap_params(1, breach);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<uint8_t> image((p.image_bytes + 15) / 16 * 16);
  for (size_t i = 0; i + 1 < image.size(); i += 2) {
    const uint16_t b = bf16_bits(dist(rng));
    image[i] = uint8_t(b & 0xFF), image[i + 1] = uint8_t(b >> 8);
  }
  uint8_t* d_image = nullptr;
  float* d_out     = nullptr;
  out.assign(2 * 128 * size_t(p.n), 0.0f);
  CUDA_CHECK(cudaMalloc(&d_image, image.size()));
  CUDA_CHECK(cudaMemcpy(d_image, image.data(), image.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMalloc(&d_out, out.size() * sizeof(float)));
  CUDA_CHECK(cudaMemset(d_out, 0xFF, out.size() * sizeof(float)));  // NaN: an unwritten element fails
  const cudaError_t e = launch_cluster(peer_commit_kernel, 2, uint32_t(image.size()), p, d_image, d_out);
  report              = e != cudaSuccess ? tc5emu::trap_report() : tc5emu::check_all_freed();
  if (e == cudaSuccess) {
    CUDA_CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_image));
    CUDA_CHECK(cudaFree(d_out));
  }
  return e;
}

// The peer mode's check, one schedule: no trap, and both CTAs' D bit-identical, finite and not all zero.
bool run_peer_case(uint64_t seed, const char* schedule) {
  std::vector<float> out;
  std::string report;
  const cudaError_t e = run_peer_kernel(Breach::NONE, seed, out, report);
  const size_t half   = out.size() / 2;
  size_t differ = 0, bad = 0, nonzero = 0;
  for (size_t i = 0; e == cudaSuccess && i < half; ++i) {
    differ += std::memcmp(&out[i], &out[half + i], sizeof(float)) != 0;
    bad += !std::isfinite(out[i]) || !std::isfinite(out[half + i]);
    nonzero += out[i] != 0.0f;
  }
  const bool pass = e == cudaSuccess && report.empty() && differ == 0 && bad == 0 && nonzero > half / 2;
  std::printf(
      "%s peer commit [%s]: launch %s; emulator: %s; %zu of %zu elements differ between the CTAs, %zu "
      "not finite, %zu not zero\n",
      pass ? "PASS" : "FAIL", schedule, cudaGetErrorString(e), report.empty() ? "(nothing)" : report.c_str(),
      differ, half, bad, nonzero);
  return pass;
}

int run_trap(const char* name) {
  const TrapCase* t = nullptr;
  for (const TrapCase& c : TRAPS)
    if (!std::strcmp(c.name, name)) t = &c;
  if (t == nullptr) {
    std::fprintf(stderr, "unknown trap '%s'\n", name);
    return 1;
  }
  const std::string bad = tc5emu::enable(t->schedule);
  if (!bad.empty()) {
    std::fprintf(stderr, "%s\n", bad.c_str());
    return 1;
  }
  if (t->breach == Breach::CP_ADDRESS) {  // the MXFP8 path: mx_kernel, zero-filled image
    uint8_t* d_image = nullptr;
    float* d_out     = nullptr;
    uint32_t* d_sf   = nullptr;
    CUDA_CHECK(cudaMalloc(&d_image, 2 * size_t(MX_IMAGE_BYTES)));
    CUDA_CHECK(cudaMemset(d_image, 0, 2 * size_t(MX_IMAGE_BYTES)));
    CUDA_CHECK(cudaMalloc(&d_out, 2 * 128 * size_t(MX_N) * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_sf, 2 * 128 * size_t(MX_SF_READ_COLS) * sizeof(uint32_t)));
    const cudaError_t e      = launch_mx(d_image, d_out, d_sf, t->breach);
    const std::string report = e != cudaSuccess ? tc5emu::trap_report() : tc5emu::check_all_freed();
    const std::string want   = tc5emu::rule_text(t->rule);
    const bool pass          = report.find(want) != std::string::npos;
    std::printf("%s trap %s: launch %s; emulator: %s\n  expected: %s\n", pass ? "PASS" : "FAIL", name,
                cudaGetErrorString(e), report.empty() ? "(nothing)" : report.c_str(), want.c_str());
    return pass ? 0 : 1;
  }
  if (t->breach == Breach::PEER_LD_EARLY) {
    std::vector<float> out;
    std::string report;
    const cudaError_t e    = run_peer_kernel(t->breach, 1, out, report);
    const std::string want = tc5emu::rule_text(t->rule);
    const bool pass        = report.find(want) != std::string::npos;
    std::printf("%s trap %s: launch %s; emulator: %s\n  expected: %s\n", pass ? "PASS" : "FAIL", name,
                cudaGetErrorString(e), report.empty() ? "(nothing)" : report.c_str(), want.c_str());
    return pass ? 0 : 1;
  }
  const MmaParams p = trap_params(t->cta_group, t->breach);
  uint8_t* d_image = nullptr;
  float* d_out     = nullptr;
  CUDA_CHECK(cudaMalloc(&d_image, size_t(t->cta_group) * p.image_bytes));
  CUDA_CHECK(cudaMemset(d_image, 0, size_t(t->cta_group) * p.image_bytes));
  CUDA_CHECK(cudaMalloc(&d_out, size_t(t->cta_group) * 128 * size_t(p.n) * sizeof(float)));
  const cudaError_t e = t->cta_group == 1 ? launch<1>(p, d_image, d_out) : launch<2>(p, d_image, d_out);
  const std::string report = e != cudaSuccess ? tc5emu::trap_report() : tc5emu::check_all_freed();
  if (t->rule == tc5emu::RULE_NONE) {  // no trap; every register stored before its wait::ld is the poison
    size_t poisoned = 0;
    std::vector<uint32_t> out(size_t(t->cta_group) * 128 * size_t(p.n));
    if (e == cudaSuccess) {
      CUDA_CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
      for (const uint32_t bits : out) poisoned += bits == tc5emu::LD_POISON_BITS;
    }
    const bool pass = e == cudaSuccess && report.empty() && poisoned == out.size();
    std::printf("%s %s: launch %s; emulator: %s; %zu of %zu registers read before tcgen05.wait::ld hold the "
                "poison 0x%08x\n",
                pass ? "PASS" : "FAIL", name, cudaGetErrorString(e), report.empty() ? "(nothing)" : report.c_str(),
                poisoned, out.size(), tc5emu::LD_POISON_BITS);
    return pass ? 0 : 1;
  }
  const std::string want   = tc5emu::rule_text(t->rule);
  const bool pass          = report.find(want) != std::string::npos;
  std::printf("%s trap %s: launch %s; emulator: %s\n  expected: %s\n", pass ? "PASS" : "FAIL", name,
              cudaGetErrorString(e), report.empty() ? "(nothing)" : report.c_str(), want.c_str());
  return pass ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (!(mode == "mma" || mode == "mxf8" || mode == "peer" || (mode == "trap" && argc > 2))) {
    std::fprintf(stderr, "usage: %s mma | mxf8 | peer | trap RULE\n", argv[0]);
    return 2;
  }
  std::string name;
  const Gpu gpu = detect(name);
  if (gpu == Gpu::NONE) {
    std::printf("SKIPPED: needs an sm_90a (H100/H200: emulated) or sm_100a/103a (B200/B300: real) GPU\n");
    return GEMM_SKIP_CODE;
  }
  if (mode == "trap" && gpu != Gpu::HOPPER) {
    std::printf("SKIPPED: the trap tests check the emulator's rules; on %s the instructions are real\n",
                name.c_str());
    return GEMM_SKIP_CODE;
  }
  std::printf("%s: %s\n", name.c_str(),
              gpu == Gpu::HOPPER ? "tcgen05 through the emulator (common/tcgen05_emu.h)" : "real tcgen05");
  if (mode == "trap") return run_trap(argv[2]);
  uint64_t seed = std::random_device{}();
  if (const char* s = std::getenv("GEMM_TEST_SEED")) seed = std::strtoull(s, nullptr, 10);
  std::printf("seed %llu (replay with GEMM_TEST_SEED=%llu)\n", (unsigned long long)seed, (unsigned long long)seed);
  bool pass   = true;
  int n_cases = 0;
  const std::vector<tc5emu::Schedule> schedules =
      gpu == Gpu::HOPPER ? std::vector<tc5emu::Schedule>{tc5emu::Schedule::Eager, tc5emu::Schedule::Late,
                                                         tc5emu::Schedule::Strict}
                         : std::vector<tc5emu::Schedule>{tc5emu::Schedule::Eager};
  for (const tc5emu::Schedule s : schedules) {
    if (gpu == Gpu::HOPPER) {
      const std::string bad = tc5emu::enable(s);
      if (!bad.empty()) {
        std::fprintf(stderr, "%s\n", bad.c_str());
        return 1;
      }
    }
    const char* schedule_name = gpu == Gpu::HOPPER ? tc5emu::schedule_name(s) : "real";
    if (mode == "mxf8" || mode == "peer") {
      pass = (mode == "mxf8" ? run_mx_case(seed, schedule_name) : run_peer_case(seed, schedule_name)) && pass;
      ++n_cases;
      continue;
    }
    int i = 0;
    for (const Case& c : cases()) {
      pass = run_case(c, seed + uint64_t(i++), schedule_name) && pass;
      ++n_cases;
    }
    // An N no kernel uses: the ISA's steps of 8 at cta_group::1 M = 128 (v2a's tiles, B's first 120 rows).
    for (const Case& c : cases())
      if (!std::strcmp(c.a->stage, "v2a")) {
        pass = run_case(c, seed + uint64_t(i++), schedule_name, 120) && pass;
        ++n_cases;
      }
  }
  std::printf("%s: %d cases\n", pass ? "PASS" : "FAIL", n_cases);
  return pass ? 0 : 1;
}
