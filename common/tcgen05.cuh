// tcgen05.cuh: the 5th-generation tensor-core instructions of sm_100a (PTX ISA "Tensorcore 5th Generation
// Family Instructions"), one wrapper per instruction. Compiled only where the target has them, so the
// Hopper files can include this header without error.
//
// All tcgen05 instructions of one kernel must use the same .cta_group. The wrappers that have one take it as
// a template argument, CTA_GROUP = 1 by default (stages v1-v4: one CTA per MMA). v5 (2-SM) passes 2: the MMA
// spans the CTA pair of a cluster, M = 256, and alloc/dealloc/relinquish are done by one warp of EACH CTA of
// the pair, together (PTX ISA "tcgen05 Issue Granularity").
#pragma once

#include <cstdint>

#include "common/ptx.cuh"

namespace gemm::tc5 {

// Which device passes have tcgen05 (checked with nvcc 13.0; the SASS tests sass/v1/sm_100f, sm_100-traps and
// sm_90-traps keep it so):
//  - arch-specific targets sm_100a / sm_103a define __CUDA_ARCH_FEAT_SM100_ALL / __CUDA_ARCH_FEAT_SM103_ALL;
//  - family targets sm_100f (runs on 10.0 and 10.3) / sm_103f define only __CUDA_ARCH_FAMILY_SPECIFIC__ =
//    1000 / 1030, and NOT the FEAT macros: a guard on those alone compiles an sm_100f kernel to nothing.
// A plain sm_100 (or any other) target has no tcgen05: kernels trap there (see the #else of each kernel).
// Emulation (common/tcgen05_emu.h): with GEMM_TCGEN05_EMULATE, a Blackwell file's sm_90a pass also has
// tcgen05: the wrappers are then the emulator's (common/tcgen05_emu.cuh), not the ones below.
#if defined(GEMM_TC5_EMULATED)  // set by common/tcgen05_emu.cuh, through common/ptx.cuh
#define GEMM_HAS_TCGEN05 1
#elif defined(__CUDA_ARCH_FEAT_SM100_ALL) || defined(__CUDA_ARCH_FEAT_SM101_ALL) || defined(__CUDA_ARCH_FEAT_SM103_ALL)
#define GEMM_HAS_TCGEN05 1
#elif defined(__CUDA_ARCH_FAMILY_SPECIFIC__) && \
    (__CUDA_ARCH_FAMILY_SPECIFIC__ == 1000 || __CUDA_ARCH_FAMILY_SPECIFIC__ == 1030)
#define GEMM_HAS_TCGEN05 1
#endif

#if defined(GEMM_HAS_TCGEN05) && !defined(GEMM_TC5_EMULATED)

// ---- Tensor memory allocation: each by one whole warp (.sync.aligned) ----
// Allocates `columns` (a power of two, 32..512) TMEM columns of all 128 lanes; the TMEM address is written
// to `slot` in shared memory. (cuda::ptx::tcgen05_alloc)
template <int CTA_GROUP = 1>
__device__ __forceinline__ void tmem_alloc(uint32_t* slot, uint32_t columns) {
  static_assert(CTA_GROUP == 1 || CTA_GROUP == 2, "cta_group is 1 or 2");
  if constexpr (CTA_GROUP == 1)
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(
                     ptx::smem_addr(slot)),
                 "r"(columns)
                 : "memory");
  else
    asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(
                     ptx::smem_addr(slot)),
                 "r"(columns)
                 : "memory");
}

// Gives up this CTA's right to allocate more TMEM, so that CTAs co-resident on the SM waiting in
// tmem_alloc are not blocked behind it. (cuda::ptx::tcgen05_relinquish_alloc_permit)
template <int CTA_GROUP = 1>
__device__ __forceinline__ void tmem_relinquish_alloc_permit() {
  static_assert(CTA_GROUP == 1 || CTA_GROUP == 2, "cta_group is 1 or 2");
  if constexpr (CTA_GROUP == 1)
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  else
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;" ::: "memory");
}

// Frees TMEM; must be done by the allocating warp before the kernel exits: a kernel that exits holding TMEM
// leaves it allocated for later CTAs on that SM. (cuda::ptx::tcgen05_dealloc)
template <int CTA_GROUP = 1>
__device__ __forceinline__ void tmem_dealloc(uint32_t taddr, uint32_t columns) {
  static_assert(CTA_GROUP == 1 || CTA_GROUP == 2, "cta_group is 1 or 2");
  if constexpr (CTA_GROUP == 1)
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(columns)
                 : "memory");
  else
    asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(columns)
                 : "memory");
}

// ---- The MMA (cuda::ptx::tcgen05_mma) ----
// D[tmem] (+)= A[smem desc] * B[smem desc]^T, issued by ONE thread, asynchronous. `accumulate` is the
// enable-input-d predicate: 0 overwrites D (first K step of a tile), 1 accumulates.
// CTA_GROUP = 2: issued by one thread of the pair with ITS OWN shared-memory descriptors; the tensor core
// reads the peer CTA's half of A and of B at the same offsets, and writes each CTA's rows of D into that
// CTA's TMEM (PTX ISA "tcgen05.mma", .cta_group::2).
template <int CTA_GROUP = 1>
__device__ __forceinline__ void mma_f16_ss(uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc, uint32_t idesc,
                                           uint32_t accumulate) {
  static_assert(CTA_GROUP == 1 || CTA_GROUP == 2, "cta_group is 1 or 2");
  if constexpr (CTA_GROUP == 1)
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "setp.ne.b32 p, %4, 0;\n\t"
        "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n\t}" ::"r"(d_tmem),
        "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(accumulate)
        : "memory");
  else
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "setp.ne.b32 p, %4, 0;\n\t"
        "tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, p;\n\t}" ::"r"(d_tmem),
        "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(accumulate)
        : "memory");
}

// Makes `bar` track completion of every earlier async tcgen05 op of this thread: its arrival happens when
// they are done (reading smem and writing TMEM). __syncthreads() does NOT wait for MMAs; this does.
// (cuda::ptx::tcgen05_commit)
__device__ __forceinline__ void commit(uint64_t* bar) {
  asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(
                   ptx::smem_addr(bar))
               : "memory");
}

// The multicast form: the arrival goes to the barrier at `bar`'s offset in every CTA of the cluster whose bit
// is set in `cta_mask` (bit i = rank i). cta_group::2 (v5): one commit of the pair's even CTA tells both CTAs
// that the MMAs that read their shared memory and wrote their TMEM are done. cta_group::1 (v8's token pair):
// a CTA's own MMAs, whose operands another CTA multicast into its shared memory, tell that CTA too that they
// have read them. (cuda::ptx::tcgen05_commit_multicast)
template <int CTA_GROUP>
__device__ __forceinline__ void commit_multicast(uint64_t* bar, uint16_t cta_mask) {
  static_assert(CTA_GROUP == 1 || CTA_GROUP == 2, "cta_group::1 or ::2");
  if constexpr (CTA_GROUP == 1)
    asm volatile(
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], "
        "%1;" ::"r"(ptx::smem_addr(bar)),
        "h"(cta_mask)
        : "memory");
  else
    asm volatile(
        "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], "
        "%1;" ::"r"(ptx::smem_addr(bar)),
        "h"(cta_mask)
        : "memory");
}

// ---- TMA for a CTA pair (sm_100a): cp.async.bulk.tensor with .cta_group::2 ----
// As ptx::tma_load_3d, into this CTA's shared memory, but the bytes may complete on an mbarrier of the PEER
// CTA: `bar_cluster_addr` is a shared::cluster address (ptx::mapa_shared_cluster). v5 completes both CTAs'
// loads on CTA 0's barrier, the one its MMA thread waits on. (PTX ISA "cp.async.bulk.tensor", .cta_group)
__device__ __forceinline__ void tma_load_3d_cta_group2(void* dst, const CUtensorMap* map,
                                                       uint32_t bar_cluster_addr, int c0, int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 "
      "[%0], [%1, {%2, %3, %4}], [%5];" ::"r"(ptx::smem_addr(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(bar_cluster_addr)
      : "memory");
}

// The 2D form (v6): a 2D tensor map's K extent is K itself, so a short last K tile is zero-filled (the 3D
// maps cut K into whole slices). Same barrier rule as the 3D form above.
__device__ __forceinline__ void tma_load_2d_cta_group2(void* dst, const CUtensorMap* map,
                                                       uint32_t bar_cluster_addr, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 "
      "[%0], [%1, {%2, %3}], [%4];" ::"r"(ptx::smem_addr(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(bar_cluster_addr)
      : "memory");
}

// ---- Block-scaled MMA (the MXFP8 stage, mxfp8/matmul_mxfp8.cu) ----
// D[tmem] (+)= (A * 2^SFA) * (B * 2^SFB)^T over one MX block of K (32 e4m3 values), issued by one thread for
// the pair (cta_group::2): the scales are read from TMEM at sfa_tmem / sfb_tmem, the scale column picked by the
// idesc's SF ids. (PTX ISA "tcgen05.mma", .kind::mxf8f6f4 .block_scale .block32; cuda::ptx::tcgen05_mma_block_scale)
__device__ __forceinline__ void mma_mxf8f6f4_block32(uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc,
                                                     uint32_t idesc, uint32_t sfa_tmem, uint32_t sfb_tmem,
                                                     uint32_t accumulate) {
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "setp.ne.b32 p, %6, 0;\n\t"
      "tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale.block32 [%0], %1, %2, %3, [%4], [%5], p;\n\t}" ::
          "r"(d_tmem),
      "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(sfa_tmem), "r"(sfb_tmem), "r"(accumulate)
      : "memory");
}

// One 512-byte scale tile (32 rows x 128 bit in shared memory, descriptor `src_desc`) into 4 TMEM columns of
// all four 32-lane quarters, in this CTA and (cta_group::2) in the peer at the same addresses, each from its
// own shared memory. Asynchronous; ordered before the same thread's later cta_group::2 MMAs.
// (PTX ISA "tcgen05.cp", .32x128b .warpx4; cuda::ptx::tcgen05_cp_32x128b_warpx4)
__device__ __forceinline__ void cp_32x128b_warpx4(uint32_t taddr, uint64_t src_desc) {
  asm volatile("tcgen05.cp.cta_group::2.32x128b.warpx4 [%0], %1;" ::"r"(taddr), "l"(src_desc) : "memory");
}

// 4D TMA into this CTA's shared memory, bytes completing on a (possibly peer) barrier: the MXFP8 scale maps.
__device__ __forceinline__ void tma_load_4d_cta_group2(void* dst, const CUtensorMap* map, uint32_t bar_cluster,
                                                       int c0, int c1, int c2, int c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 "
      "[%0], [%1, {%2, %3, %4, %5}], [%6];" ::"r"(ptx::smem_addr(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar_cluster)
      : "memory");
}

// The same box written to `dst` in every CTA of `cta_mask`; with .cta_group::2 each copy's bytes complete on
// the barrier at `bar_cluster`'s offset in the CTA of the pair with the parity of the barrier's CTA: CTA 0's
// barrier in the MXFP8 kernel, for both copies. (PTX ISA "cp.async.bulk.tensor", .multicast::cluster with
// .cta_group)
__device__ __forceinline__ void tma_load_4d_multicast_cta_group2(void* dst, const CUtensorMap* map,
                                                                 uint32_t bar_cluster, uint16_t cta_mask, int c0,
                                                                 int c1, int c2, int c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      ".cta_group::2 [%0], [%1, {%2, %3, %4, %5}], [%6], %7;" ::"r"(ptx::smem_addr(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar_cluster), "h"(cta_mask)
      : "memory");
}

// ---- TMEM -> registers (cuda::ptx::tcgen05_ld_32x32b) ----
// 32x32b.x8: thread t of the warp receives lane (taddr.lane + t), columns taddr.col .. +7, one 32-bit word
// each. A warp may only access its own quarter of the lanes: 32 * (warp_id % 4) .. +31.
__device__ __forceinline__ void ld_32x32b_x8(uint32_t taddr, float (&v)[8]) {
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
               : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3]), "=f"(v[4]), "=f"(v[5]), "=f"(v[6]), "=f"(v[7])
               : "r"(taddr)
               : "memory");
}

// 32x32b.x32: thread t receives lane (taddr.lane + t), columns taddr.col .. +31 (the MXFP8 epilogue).
__device__ __forceinline__ void ld_32x32b_x32(uint32_t taddr, float (&v)[32]) {
  asm volatile(
      "tcgen05.ld.sync.aligned.32x32b.x32.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, "
      "%14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, [%32];"
      : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3]), "=f"(v[4]), "=f"(v[5]), "=f"(v[6]), "=f"(v[7]),
        "=f"(v[8]), "=f"(v[9]), "=f"(v[10]), "=f"(v[11]), "=f"(v[12]), "=f"(v[13]), "=f"(v[14]), "=f"(v[15]),
        "=f"(v[16]), "=f"(v[17]), "=f"(v[18]), "=f"(v[19]), "=f"(v[20]), "=f"(v[21]), "=f"(v[22]),
        "=f"(v[23]), "=f"(v[24]), "=f"(v[25]), "=f"(v[26]), "=f"(v[27]), "=f"(v[28]), "=f"(v[29]),
        "=f"(v[30]), "=f"(v[31])
      : "r"(taddr)
      : "memory");
}

// Waits until this thread's tcgen05.ld results are in registers.
__device__ __forceinline__ void wait_ld() { asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory"); }

// ---- Ordering of tcgen05 ops across thread synchronisation (PTX ISA "tcgen05 Memory Consistency Model") ----
// before_thread_sync: order this thread's earlier tcgen05 ops before a following barrier/arrive.
// after_thread_sync:  order this thread's later tcgen05 ops after a preceding barrier/wait.
__device__ __forceinline__ void fence_before_thread_sync() {
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
}
__device__ __forceinline__ void fence_after_thread_sync() {
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
}

#endif  // GEMM_HAS_TCGEN05 && !GEMM_TC5_EMULATED

}  // namespace gemm::tc5
