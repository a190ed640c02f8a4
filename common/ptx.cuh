// ptx.cuh: the PTX both architectures share: mbarriers, TMA loads, elect.sync, fences.
//
// One __device__ __forceinline__ wrapper per instruction, named after its mnemonic, with a "memory" clobber
// where it orders memory. CCCL's cuda::ptx has typed equivalents (named in the comments); this series writes
// the PTX out so the reader sees it. PTX ISA sections: "Parallel Synchronization and Communication
// Instructions: mbarrier", "Data Movement: cp.async.bulk.tensor", "elect.sync", "membar/fence".
#pragma once

#include <cstdint>

#include <cuda.h>  // CUtensorMap

// With GEMM_TCGEN05_EMULATE (a Blackwell file compiled for sm_90a, common/tcgen05_emu.h), the emulator hooks
// in where a thread initialises barriers, blocks, or announces bytes on a peer's barrier, and where it arrives
// or synchronises (the tcgen05 fence rules, TMEM write-after-read and the strict schedule: before_block,
// on_mbarrier_arrive, on_mbarrier_waited, on_barrier_arrive, on_barrier_waited). Nothing otherwise.
#if defined(GEMM_TCGEN05_EMULATE)
#include "common/tcgen05_emu.cuh"  // defines GEMM_TC5_EMULATED in the device passes that emulate
#endif
#if defined(GEMM_TC5_EMULATED)
#define GEMM_EMU_HOOK(call) call
#else
#define GEMM_EMU_HOOK(call)
#endif

namespace gemm::ptx {

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// ---- mbarrier (cuda::ptx::mbarrier_init / mbarrier_arrive_expect_tx / mbarrier_try_wait_parity) ----

// An 8-byte shared-memory object that counts pending arrivals and pending transaction bytes; its phase
// completes when both reach zero, and it re-arms itself for the next phase.
__device__ __forceinline__ void mbarrier_init(uint64_t* bar, uint32_t arrival_count) {
  GEMM_EMU_HOOK(tc5emu::on_mbarrier_init(smem_addr(bar)));
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(arrival_count)
               : "memory");
}

// Makes the initialised barriers visible to the async proxy (TMA, tensor cores) and to the cluster.
__device__ __forceinline__ void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// Arrive once and announce `bytes` transaction bytes that the TMA copies of this phase will complete.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  GEMM_EMU_HOOK(tc5emu::on_mbarrier_arrive(smem_addr(bar), false));
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
               "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void mbarrier_arrive(uint64_t* bar) {
  GEMM_EMU_HOOK(tc5emu::on_mbarrier_arrive(smem_addr(bar), false));
  asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}

// One probe: true once the phase with parity `parity` has completed. Acquire: what the completing
// operations wrote is visible to this thread afterwards. CLUSTER_SCOPE: the acquire is at cluster scope, for a
// barrier that threads of another CTA of the cluster release with their arrivals (.release.cluster): only
// then are their earlier accesses ordered before this thread's later ones (a .cta acquire synchronises with
// this CTA's threads alone).
template <bool CLUSTER_SCOPE = false>
__device__ __forceinline__ bool mbarrier_try_wait_parity(uint64_t* bar, uint32_t parity) {
  uint32_t done;
  if constexpr (CLUSTER_SCOPE)
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(smem_addr(bar)), "r"(parity)
        : "memory");
  else
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(smem_addr(bar)), "r"(parity)
        : "memory");
  GEMM_EMU_HOOK(if (done != 0) tc5emu::on_mbarrier_waited(smem_addr(bar)));
  return done != 0;
}

// The global nanosecond timer (PTX ISA "Special Registers: %globaltimer"), common to all SMs. The "memory"
// clobber keeps the read where it is written relative to loads and stores (the profiler brackets code with
// it).
__device__ __forceinline__ uint64_t globaltimer_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}

// The SM this thread runs on (PTX ISA "Special Registers: %smid"); constant for the life of a CTA.
__device__ __forceinline__ uint32_t smid() {
  uint32_t s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

// Spin until the phase of parity `parity` completes. With -DGEMM_DEBUG_HANG=ON the wait is bounded in time
// (GEMM_DEBUG_HANG_TIMEOUT_MS, 2 s by default: no wait in these kernels legitimately comes close), and a
// stuck barrier traps with its name and parity instead of hanging the GPU. tests/test_debug_hang.cu shows it.
#if defined(GEMM_DEBUG_HANG) && !defined(GEMM_DEBUG_HANG_TIMEOUT_MS)
#define GEMM_DEBUG_HANG_TIMEOUT_MS 2000
#endif
template <bool CLUSTER_SCOPE = false>
__device__ __forceinline__ void mbarrier_wait(uint64_t* bar, uint32_t parity, const char* name = "mbarrier") {
  GEMM_EMU_HOOK(tc5emu::before_block(smem_addr(bar) | 1u));  // | 1: the barrier the strict schedule runs for
#if defined(GEMM_DEBUG_HANG)
  const uint64_t start = globaltimer_ns();
  while (!mbarrier_try_wait_parity<CLUSTER_SCOPE>(bar, parity)) {
    if (globaltimer_ns() - start > uint64_t(GEMM_DEBUG_HANG_TIMEOUT_MS) * 1000000ull) {
      printf("GEMM_DEBUG_HANG: block (%d,%d,%d) thread %d stuck on %s waiting for parity %u for %d ms\n",
             blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, name, parity, GEMM_DEBUG_HANG_TIMEOUT_MS);
      __trap();
    }
  }
#else
  (void)name;
  while (!mbarrier_try_wait_parity<CLUSTER_SCOPE>(bar, parity)) {
  }
#endif
}

// ---- TMA: cp.async.bulk.tensor (cuda::ptx::cp_async_bulk_tensor) ----
// One thread copies a box of the tensor map into shared memory; completion is signalled to `bar` as
// transaction bytes. Coordinates are in elements, innermost dimension first.
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, uint64_t* bar, int c0,
                                            int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, "
      "%3}], [%4];" ::"r"(smem_addr(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(smem_addr(bar))
      : "memory");
}

__device__ __forceinline__ void tma_load_3d(void* dst, const CUtensorMap* map, uint64_t* bar, int c0, int c1,
                                            int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, "
      "%4}], [%5];" ::"r"(smem_addr(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(smem_addr(bar))
      : "memory");
}

// ---- Clusters (v5): a CTA's rank, the shared memory of its peers, cluster-wide barriers ----
// PTX ISA "Special Registers: %cluster_ctarank", "Data Movement: mapa", "barrier.cluster", "mbarrier".

// This CTA's rank in its cluster, 0 .. cluster size - 1. (cuda::ptx::get_sreg_cluster_ctarank)
__device__ __forceinline__ uint32_t cluster_ctarank() {
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return rank;
}

// The shared::cluster address of the object that `p` points to in THIS CTA's shared memory, at the same
// offset in the shared memory of CTA `rank` of the cluster (this CTA's own rank gives its own object). Only
// the instructions that take a shared::cluster address (below) may use it. (cuda::ptx has no mapa wrapper;
// cooperative_groups' cluster.map_shared_rank does this for generic pointers.)
__device__ __forceinline__ uint32_t mapa_shared_cluster(const void* p, uint32_t rank) {
  uint32_t cluster_addr;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(cluster_addr) : "r"(smem_addr(p)), "r"(rank));
  return cluster_addr;
}

// __syncthreads() for the whole cluster, in two halves: every thread of every CTA arrives (release: its
// earlier writes, barrier initialisations included, become visible cluster-wide), then waits until all have
// (acquire). .aligned: all threads of a warp execute it together. (cuda::ptx::barrier_cluster_arrive/_wait)
__device__ __forceinline__ void barrier_cluster_arrive() {
  GEMM_EMU_HOOK(tc5emu::on_cluster_arrive());  // emulated Cluster Launch Control: a canceled cluster exits
  GEMM_EMU_HOOK(tc5emu::before_block());
  GEMM_EMU_HOOK(tc5emu::strict_before_cluster_arrive());
  GEMM_EMU_HOOK(tc5emu::on_barrier_arrive(tc5emu::SYNC_CLUSTER));
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}
__device__ __forceinline__ void barrier_cluster_wait() {
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
  GEMM_EMU_HOOK(tc5emu::on_barrier_waited(tc5emu::SYNC_CLUSTER));
}
// The arrival without release, for the barrier right after the mbarrier initialisation, whose
// fence.mbarrier_init.release.cluster already makes the initialisations visible cluster-wide (as CUTLASS's
// cluster_arrive_relaxed after fence_barrier_init): the release form costs MEMBAR.ALL.CTA, MEMBAR.ALL.GPU and
// ERRBAR at every kernel's start on sm_90a (read in v8's SASS). Only where nothing else written before the
// barrier must be seen by the other CTAs.
__device__ __forceinline__ void barrier_cluster_arrive_relaxed() {
  GEMM_EMU_HOOK(tc5emu::on_barrier_arrive(tc5emu::SYNC_CLUSTER));
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}

// The producer's tail (CUTLASS's load_tail): after its last load the producer waits on the ring's next
// NUM_STAGES "empty" phases, that is until every consumer that releases stages on this CTA's barriers (the
// peer CTA's by remote arrivals) has released each stage's last use. Those arrivals are the only operations
// of the peer that can still land in this CTA's shared memory once its own consumers are done (the peer's
// multicasts into the ring are each waited for here), so after the tail the exit barrier needs no release:
// a release arrival costs every thread MEMBAR.ALL.GPU and ERRBAR, about 0.5 us per launch on an H200
// (docs/performance/small-shapes.md). `stage`, `phase`: the producer's next position in the ring.
template <int NUM_STAGES>
__device__ __forceinline__ void producer_tail(uint64_t* empty_bar, int stage, uint32_t phase) {
  for (int i = 0; i < NUM_STAGES; ++i) {
    mbarrier_wait(&empty_bar[stage], phase, "empty barrier (producer tail)");
    if (++stage == NUM_STAGES) {
      stage = 0;
      phase ^= 1;
    }
  }
}

// Arrive once on an mbarrier in the shared memory of any CTA of the cluster (`cluster_addr` from
// mapa_shared_cluster). Relaxed: the arrival orders none of this thread's earlier memory accesses. The stages
// use it to release a ring stage that they read only through asynchronous MMAs already waited for
// (wgmma.wait_group), so there is nothing to order; .release.cluster would cost a MEMBAR.ALL.GPU per arrival
// (read in the sm_90a SASS), in the main loop. (cuda::ptx::mbarrier_arrive with space_cluster)
__device__ __forceinline__ void mbarrier_arrive_cluster(uint32_t cluster_addr) {
  GEMM_EMU_HOOK(tc5emu::on_mbarrier_arrive(cluster_addr, true));
  asm volatile("mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [%0];" ::"r"(cluster_addr) : "memory");
}

// mbarrier_arrive_cluster from one lane of the warp, elected without a branch, where `arrive` holds:
// elect.sync's predicate and `arrive` guard the arrival (PTX ISA "elect.sync"). The branch of
// `if (arrive && elect_one_sync()) ...` opens a divergent region in the main loop, and ptxas then keeps the
// loop's stage, and the wgmma descriptors made from it, in per-thread registers, moving them into uniform
// registers before every wgmma (R2UR): read in the SASS of mxfp8/matmul_bw_sm90.cu and
// v7_streamk/matmul_v7_sm90.cu. All 32 lanes of the warp must execute it.
__device__ __forceinline__ void mbarrier_arrive_cluster_elected(uint32_t cluster_addr, bool arrive = true) {
  GEMM_EMU_HOOK(if (arrive) tc5emu::on_mbarrier_arrive(cluster_addr, true));
  asm volatile(
      "{\n\t.reg .pred p, e;\n\t"
      "setp.ne.b32 p, %1, 0;\n\t"
      "elect.sync _|e, 0xffffffff;\n\t"
      "and.pred p, p, e;\n\t"
      "@p mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [%0];\n\t}" ::"r"(cluster_addr),
      "r"(uint32_t(arrive))
      : "memory");
}

// The same arrival with release semantics at cluster scope: this thread's earlier memory accesses happen before
// whatever the waiter does after its (acquire) wait. v7 releases a Cluster Launch Control response with it:
// the reader's generic load of the response must be ordered before the next response's write into the same
// slot. Once per unit of work, so the MEMBAR it costs is not in the main loop.
__device__ __forceinline__ void mbarrier_arrive_release_cluster(uint32_t cluster_addr) {
  GEMM_EMU_HOOK(tc5emu::on_mbarrier_arrive(cluster_addr, true));
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(cluster_addr) : "memory");
}

// Arrive once on an mbarrier of any CTA of the cluster and announce `bytes` transaction bytes on it; relaxed
// like mbarrier_arrive_cluster (the bytes are the TMA copies that follow, which complete on it themselves).
__device__ __forceinline__ void mbarrier_arrive_expect_tx_cluster(uint32_t cluster_addr, uint32_t bytes) {
  GEMM_EMU_HOOK(tc5emu::before_block());
  GEMM_EMU_HOOK(tc5emu::on_mbarrier_arrive(cluster_addr, true));
  asm volatile("mbarrier.arrive.expect_tx.relaxed.cluster.shared::cluster.b64 _, [%0], %1;" ::"r"(
                   cluster_addr),
               "r"(bytes)
               : "memory");
  GEMM_EMU_HOOK(tc5emu::on_expect_tx_cluster(cluster_addr, bytes));
}

// TMA multicast (sm_90a and later): one read of the box from global memory (L2), written to the same
// CTA-relative offset `dst` in the shared memory of every CTA whose bit is set in `cta_mask` (bit i =
// rank i), and its bytes completed on the mbarrier at `bar`'s offset in each of those CTAs.
// (cuda::ptx::cp_async_bulk_tensor with ctaMask)
__device__ __forceinline__ void tma_load_3d_multicast(void* dst, const CUtensorMap* map, uint64_t* bar,
                                                      uint16_t cta_mask, int c0, int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster "
      "[%0], [%1, {%2, %3, %4}], [%5], %6;" ::"r"(smem_addr(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(smem_addr(bar)), "h"(cta_mask)
      : "memory");
}

// mbarrier_arrive from one lane of the warp, elected without a branch, where `arrive` holds (as
// mbarrier_arrive_cluster_elected, for a barrier of this CTA): the release of a ring stage inside a K
// loop that ptxas is to keep on the uniform datapath (v8's decode kernel). All 32 lanes of the warp must
// execute it.
__device__ __forceinline__ void mbarrier_arrive_elected(uint64_t* bar, bool arrive) {
  GEMM_EMU_HOOK(if (arrive) tc5emu::on_mbarrier_arrive(smem_addr(bar), false));
  asm volatile(
      "{\n\t.reg .pred p, e;\n\t"
      "setp.ne.b32 p, %1, 0;\n\t"
      "elect.sync _|e, 0xffffffff;\n\t"
      "and.pred p, p, e;\n\t"
      "@p mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];\n\t}" ::"r"(smem_addr(bar)),
      "r"(uint32_t(arrive))
      : "memory");
}

// ---- elect.sync (cuda::ptx::elect_sync) ----
// One lane of the converged warp is elected; the others skip the single-thread work (TMA, MMA issue).
__device__ __forceinline__ bool elect_one_sync() {
  uint32_t elected;
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "elect.sync _|p, 0xffffffff;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(elected)
      :
      : "memory");
  return elected != 0;
}

// ---- fences ----
// Orders this thread's generic-proxy shared-memory writes before later async-proxy reads (TMA store, MMA).
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}


// ---- v6 (Hopper): the 2D multicast load, the TMA store of C and its bulk async-groups, stmatrix, named
//      barriers. PTX ISA "cp.async.bulk.tensor", "cp.async.bulk.commit_group", "cp.async.bulk.wait_group",
//      "stmatrix", "bar.sync". ----

// As tma_load_3d_multicast, from a 2D tensor map: its K extent is K itself, so the box of a short last K tile
// is zero-filled past K (a 3D map cuts K into whole slices: edge.h).
__device__ __forceinline__ void tma_load_2d_multicast(void* dst, const CUtensorMap* map, uint64_t* bar,
                                                      uint16_t cta_mask, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster "
      "[%0], [%1, {%2, %3}], [%4], %5;" ::"r"(smem_addr(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(smem_addr(bar)), "h"(cta_mask)
      : "memory");
}

// ---- L2 cache policies (PTX ISA "createpolicy", ".L2::cache_hint", "discard") ----
// evict_first: an L2 line fetched under this policy is among the first to go when the L2 needs room; for
// data read once (v8's L2 policy: B where one unit row covers M), so that it does not push out what is read again.
__device__ __forceinline__ uint64_t createpolicy_evict_first() {
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

// tma_load_2d / tma_load_2d_multicast with an L2 cache policy (from createpolicy) for the lines they fetch.
__device__ __forceinline__ void tma_load_2d_hint(void* dst, const CUtensorMap* map, uint64_t* bar, int c0, int c1,
                                                 uint64_t policy) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint [%0], "
      "[%1, {%2, %3}], [%4], %5;" ::"r"(smem_addr(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(smem_addr(bar)), "l"(policy)
      : "memory");
}

__device__ __forceinline__ void tma_load_2d_multicast_hint(void* dst, const CUtensorMap* map, uint64_t* bar,
                                                           uint16_t cta_mask, int c0, int c1, uint64_t policy) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      ".L2::cache_hint [%0], [%1, {%2, %3}], [%4], %5, %6;" ::"r"(smem_addr(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(smem_addr(bar)), "h"(cta_mask), "l"(policy)
      : "memory");
}

// One box of a 2D load, in whichever of the four forms above it takes: multicast to the CTAs of cta_mask (0:
// into this CTA only), under the evict-first L2 policy where `evict_first` (v8's L2 policy), else without a
// hint. For a copy loop whose boxes differ in form (shared or own, hinted or not) at run time or by template.
__device__ __forceinline__ void tma_load_2d_box(void* dst, const CUtensorMap* map, uint64_t* bar, int c0,
                                                int c1, uint16_t cta_mask, bool evict_first) {
  if (evict_first) {
    const uint64_t policy = createpolicy_evict_first();
    if (cta_mask != 0)
      tma_load_2d_multicast_hint(dst, map, bar, cta_mask, c0, c1, policy);
    else
      tma_load_2d_hint(dst, map, bar, c0, c1, policy);
  } else if (cta_mask != 0) {
    tma_load_2d_multicast(dst, map, bar, cta_mask, c0, c1);
  } else {
    tma_load_2d(dst, map, bar, c0, c1);
  }
}

// discard.global.L2: the 128-byte L2 line at `p` (128-byte aligned) is dropped without being written back to
// DRAM; its contents become undefined (to the memory model, a weak write). For scratch data that has been
// read for the last time (v8's fixup partials, under its L2 policy), so that the L2 never writes it back.
__device__ __forceinline__ void discard_global_l2(const void* p) {
  asm volatile("discard.global.L2 [%0], 128;" ::"l"(p) : "memory");
}

// TMA store: one thread copies a box from shared memory to the tensor at element coordinates {c0, c1}. The
// part of the box outside the tensor is not written (the store clips). Asynchronous: it joins this thread's
// current bulk async-group; commit_group closes the group, wait_group_read<N> waits until at most N of this
// thread's groups still READ shared memory (the buffer may then be rewritten), wait_group<N> until at most N
// are still incomplete (their writes done). The writer threads' st.shared / stmatrix must be ordered before
// the store by fence.proxy.async.shared::cta (fence_proxy_async_shared) and a barrier. (cuda::ptx::
// cp_async_bulk_tensor, cp_async_bulk_commit_group, cp_async_bulk_wait_group_read)
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, const void* src, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(map),
               "r"(c0), "r"(c1), "r"(smem_addr(src))
               : "memory");
}
__device__ __forceinline__ void bulk_commit_group() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
template <int N>
__device__ __forceinline__ void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
template <int N>
__device__ __forceinline__ void bulk_wait_group() {
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
}

// stmatrix .x4: the warp stores four 8x8 matrices of 16-bit elements. Lanes 8q .. 8q+7 give the shared
// addresses of the 8 rows (16 bytes each) of matrix q; register q of lane t holds row t/4, elements 2(t%4)
// and 2(t%4)+1 of matrix q (low half first): the layout of a wgmma accumulator's 8x8 blocks after conversion.
// (cuda::ptx has no stmatrix wrapper in CUDA 13.0's libcu++.)
__device__ __forceinline__ void stmatrix_x4(uint32_t row_addr, uint32_t r0, uint32_t r1, uint32_t r2,
                                            uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(row_addr), "r"(r0),
               "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

// 32 bytes (8 fp32) to global memory, not kept in L1: an output that is never read back (the MXFP8
// epilogue; seed 001, Optimizations 2 and 7). One st.global.v8 on sm_100+ (PTX ISA 8.8); two v4 stores on
// sm_90 (the emulated Blackwell build, common/tcgen05_emu.h). `p` must be 32-byte aligned.
__device__ __forceinline__ void st_global_v8_f32_no_allocate(float* p, const float* v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
  asm volatile("st.global.L1::no_allocate.v8.f32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};" ::"l"(p), "f"(v[0]),
               "f"(v[1]), "f"(v[2]), "f"(v[3]), "f"(v[4]), "f"(v[5]), "f"(v[6]), "f"(v[7])
               : "memory");
#else
  asm volatile("st.global.L1::no_allocate.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(v[0]), "f"(v[1]),
               "f"(v[2]), "f"(v[3])
               : "memory");
  asm volatile("st.global.L1::no_allocate.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p + 4), "f"(v[4]), "f"(v[5]),
               "f"(v[6]), "f"(v[7])
               : "memory");
#endif
}

// bar.sync on named barrier `id` (1..15; 0 is __syncthreads) for `threads` threads (a multiple of 32): a
// barrier of one warpgroup that the other warpgroups do not take part in.
__device__ __forceinline__ void named_barrier_sync(uint32_t id, uint32_t threads) {
  GEMM_EMU_HOOK(tc5emu::before_block());
  GEMM_EMU_HOOK(tc5emu::on_barrier_arrive(tc5emu::SYNC_BARRIER));
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
  GEMM_EMU_HOOK(tc5emu::on_barrier_waited(tc5emu::SYNC_BARRIER));
}

// ---- v7: the stream-K fixup's flag, between CTAs on different SMs. PTX ISA "Memory Consistency Model"
//      (release and acquire patterns, scope .gpu), "st", "ld". ----

// Store `value` to a global flag with release semantics at GPU scope: every memory operation that happens
// before it (this thread's, and through a barrier the other threads' of the CTA) is visible to a thread of
// any CTA that reads the value with an acquire. (cuda::ptx::st with sem_release, scope_gpu;
// cuda::atomic_ref<uint32_t, thread_scope_device>::store(v, memory_order_release))
__device__ __forceinline__ void st_release_gpu(uint32_t* flag, uint32_t value) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(flag), "r"(value) : "memory");
}
// Load a global flag with acquire semantics at GPU scope: once it reads a value stored by a release, what
// preceded that release is visible to this thread (and, after a barrier, to the threads of its CTA).
__device__ __forceinline__ uint32_t ld_acquire_gpu(const uint32_t* flag) {
  uint32_t value;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(value) : "l"(flag) : "memory");
  return value;
}

// ---- v7 (Hopper, v7e): the global work counter. PTX ISA "atom", "st" (.shared::cluster), "Memory Consistency
//      Model". ----

// atom.add at GPU scope, relaxed: every caller gets a distinct old value; the draw itself orders nothing.
// (atomicAdd on a uint32_t is this, relaxed, at device scope.)
__device__ __forceinline__ uint32_t atom_add_relaxed_gpu(uint32_t* p, uint32_t v) {
  uint32_t old;
  asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
// atom.add at GPU scope with acquire and release: a count whose last increment may act on what every earlier
// incrementer did before its increment (cuda::atomic_ref<uint32_t, thread_scope_device>::fetch_add(v,
// memory_order_acq_rel)).
__device__ __forceinline__ uint32_t atom_add_acq_rel_gpu(uint32_t* p, uint32_t v) {
  uint32_t old;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
// A 16-byte store into the shared memory of any CTA of the cluster (`cluster_addr` from mapa_shared_cluster).
__device__ __forceinline__ void st_shared_cluster_v4(uint32_t cluster_addr, int a, int b, int c, int d) {
  asm volatile("st.shared::cluster.v4.s32 [%0], {%1, %2, %3, %4};" ::"r"(cluster_addr), "r"(a), "r"(b), "r"(c),
               "r"(d)
               : "memory");
}

}  // namespace gemm::ptx

namespace gemm {
// The first 1024-B aligned address at or after p (see SMEM_ALIGN in harness.h).
__device__ __forceinline__ uint8_t* align_smem_1024(uint8_t* p) {
  const uint32_t a = ptx::smem_addr(p);
  return p + ((1024u - (a & 1023u)) & 1023u);
}
}  // namespace gemm
