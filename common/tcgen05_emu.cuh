// tcgen05_emu.cuh: the device side of the tcgen05 emulator (host side and the rules: tcgen05_emu.h).
// Included by common/ptx.cuh when GEMM_TCGEN05_EMULATE is defined; common/tcgen05.cuh then routes every
// tc5:: wrapper here. The kernels' source is unchanged. Each function names the PTX ISA section it follows.
//
// State:
//  - TMEM: global memory, Config::tmem[smid][lane][column], read and written through L2 (ld.global.cg /
//    st.global.cg) so that the epilogue warps of both CTAs of a pair see what the MMA thread wrote once they
//    have waited on the commit's barrier and fenced (tcgen05.fence::after_thread_sync -> fence.acq_rel.gpu).
//  - Allocation: per SM a bitmask of 32-column granules and, per granule, its owner (global memory).
//  - Per CTA, in under 384 bytes of static shared memory: the late and strict schedules' queue state and the
//    cta_group::2 TMA forwarding state. Initialised by the first ptx::mbarrier_init of the CTA (every kernel
//    initialises its barriers before any TMA or MMA, and publishes them with a barrier).
#pragma once

#include <cstdint>
#include <cstdio>

#include <cuda.h>  // CUtensorMap
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include "common/tcgen05_emu.h"
#include "common/tcgen05_queue.h"
#include "common/tmem_war.h"

#if defined(GEMM_TCGEN05_EMULATE)

// The device passes that emulate: those without tcgen05 of their own (sm_90a). A file built for both sm_90a
// and sm_100a with GEMM_TCGEN05_EMULATE (tests/test_tcgen05_emu_gpu.cu) keeps the real instructions in its
// sm_100a pass.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 1000
#define GEMM_TC5_EMULATED 1
#endif

namespace gemm::tc5emu {
namespace {  // one copy per translation unit: no relocatable device code needed

__device__ Config g_config;

#if !defined(__CUDA_ARCH__)
int set_config(const Config& c) { return int(cudaMemcpyToSymbol(g_config, &c, sizeof c)); }
[[maybe_unused]] const bool g_registered = register_unit(&set_config);
#endif

constexpr uint32_t ENABLED_MAGIC = 0x7C5E0001u;
constexpr uint32_t STATE_MAGIC   = 0x7C5E57A7u;
constexpr uint32_t TMEM_LANES = 128, TMEM_COLS = 512, GRANULE = 32, GRANULES = TMEM_COLS / GRANULE;
constexpr uint64_t TIMEOUT_NS  = 2000000000ull;
constexpr uint32_t MIRRORS     = 16;  // pending multicast copies per CTA (a ring stage each, at most)

// Per CTA (static shared memory, under 256 bytes; the stages leave 1 KB for their barriers).
struct CtaState {
  uint32_t magic;        // STATE_MAGIC once the first mbarrier_init of the CTA ran
  uint32_t queue_len;    // Late: entries queued (Config::queue, slot queue_slot); Strict: entries issued
  uint32_t queue_owner;  // Late, Strict: linear thread index + 1 of the thread that queued them
  uint32_t queue_slot;
  // Strict (strict_* below): entries run (head; [queue_done, queue_len) are pending), the lock every thread
  // that reads or runs the queue holds (this CTA's, or the pair's odd CTA through distributed shared memory),
  // and pair_mark() once this CTA has allocated TMEM with cta_group::2 (its odd CTA then looks for the pair's
  // work in the even CTA's queue).
  uint32_t queue_done, queue_lock, pair;
  // Strict: bit r set once CTA r of the cluster queued a cta_group::1 multicast commit that arrives in this
  // CTA (v8's token pair): this CTA's waits look at CTA r's queue too (strict_begin_wait).
  uint32_t mc_from;
  // Strict: the threads of this CTA inside a ptx::mbarrier_wait, per tc5queue::barrier_index of the barrier
  // (two 16-bit counts per word): a commit queued for a barrier someone waits on runs at once.
  uint32_t waiting[16];
  uint64_t fwd_bar;      // cta_group::2 TMA into a peer's barrier: the local barrier the copies complete on
  uint32_t fwd_phase;
  uint32_t fwd_target;   // shared::cluster address of the peer barrier the bytes are owed to
  uint32_t fwd_bytes;    // announced by this CTA's expect_tx on fwd_target, not yet forwarded
  uint32_t fwd_owner;    // linear thread index + 1 of the producer
  // A multicast cta_group::2 TMA's copies into the other CTAs, pending: made by the MMA thread from this CTA's
  // copy when an emulated tcgen05 instruction first reads them (tma_4d_multicast, apply_mirrors).
  uint32_t mirror_dst[MIRRORS], mirror_bytes[MIRRORS], mirror_mask[MIRRORS];
  uint32_t clc_failed_seen;  // a thread of this CTA decoded a failed Cluster Launch Control response
  // TMEM write-after-read (war_* below): who this CTA is, for the peers that arrive on its barriers, set by its
  // first mbarrier_init; war_off: the tracking lost an arrival or a wait of this CTA, so its checks are off.
  uint32_t war_smid, war_block, war_launch, war_off;
};
static_assert(sizeof(CtaState) <= 384, "the emulator's per-CTA state must leave the stages' barriers room");
__shared__ CtaState g_cta;
// The words of g_cta that threads other than their owner read (magic, the queue's length and owner, the
// forwarding's bytes and owner: before_block() runs in every thread that waits or fences, also while the
// first mbarrier_init of the CTA writes them) are accessed with atomics: their reads race with their writes by
// design (a non-owner only learns that it owns nothing), and atomics make that no data race, for the memory
// model and for compute-sanitizer's racecheck.
__device__ __forceinline__ uint32_t ld_state(uint32_t& w) { return atomicOr(&w, 0u); }
__device__ __forceinline__ void st_state(uint32_t& w, uint32_t v) { atomicExch(&w, v); }

// One queued asynchronous operation (late and strict schedules; eager runs the same record at issue).
using tc5queue::QueueEntry;
using tc5queue::OP_COMMIT, tc5queue::OP_COMMIT_MULTICAST;
using tc5queue::OP_CP, tc5queue::OP_MMA_F16, tc5queue::OP_MMA_MX;
static_assert(sizeof(QueueEntry) <= QUEUE_ENTRY_BYTES, "the host allocates QUEUE_ENTRY_BYTES per entry");

// ---- small helpers ----
__device__ __forceinline__ uint32_t tid_linear() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ __forceinline__ uint32_t block_linear() {
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}
__device__ __forceinline__ uint32_t sreg_smid() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}
__device__ __forceinline__ uint32_t sreg_ctarank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ uint32_t sreg_nctarank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ uint32_t cluster_linear() {
  uint32_t x, y, z, nx, ny;
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(x));
  asm volatile("mov.u32 %0, %%clusterid.y;" : "=r"(y));
  asm volatile("mov.u32 %0, %%clusterid.z;" : "=r"(z));
  asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(nx));
  asm volatile("mov.u32 %0, %%nclusterid.y;" : "=r"(ny));
  return x + nx * (y + ny * z);
}
__device__ __forceinline__ uint64_t now_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ uint32_t smem_u32(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

// Traps with the rule's text; the first trap of a launch is also written to host-mapped memory, which the
// host reads after the failed launch (trap_report()).
__device__ __noinline__ void fail(uint32_t rule, uint32_t v0 = 0, uint32_t v1 = 0) {
  volatile uint32_t* r = g_config.report;
  if (r != nullptr && r[0] == 0) {
    r[1] = sreg_smid();
    r[2] = blockIdx.x, r[3] = blockIdx.y, r[4] = blockIdx.z;
    r[5] = tid_linear();
    r[6] = v0, r[7] = v1;
    __threadfence_system();
    r[0] = rule;
    __threadfence_system();
  }
  printf("tcgen05 emulator: block (%d,%d,%d) thread %d: %s [0x%x 0x%x]\n", blockIdx.x, blockIdx.y, blockIdx.z,
         int(tid_linear()), rule_text(rule), v0, v1);
  __trap();
}

__device__ __forceinline__ void require_enabled() {
  if (g_config.enabled != ENABLED_MAGIC) fail(RULE_NOT_ENABLED);
}

// .sync.aligned: every thread of the warp executes the same instruction together (PTX ISA "tcgen05 ...
// .sync.aligned"). The warp is first brought together (__syncwarp: lanes that are merely not reconverged yet
// are not a breach); then every lane must be at the same instruction, `site`. A warp split between two
// tcgen05 instructions traps; one whose other lanes never reach any is a hang, as on the hardware.
__device__ __forceinline__ void require_converged(uint32_t site) {
  __syncwarp();
  const uint32_t same = __match_any_sync(0xffffffffu, site);
  if (same != 0xffffffffu) fail(RULE_NOT_CONVERGED, same, site);
}

__device__ __forceinline__ float* tmem_cell(uint32_t smid, uint32_t lane, uint32_t col) {
  return g_config.tmem + (size_t(smid) * TMEM_LANES + lane) * TMEM_COLS + col;
}
__device__ __forceinline__ uint32_t* owner_of(uint32_t smid, uint32_t granule) {
  return g_config.owner + (size_t(smid) * GRANULES + granule) * 2;
}

// ---- per warp: its tcgen05.ld waiting for their tcgen05.wait::ld, each lane's tcgen05 fence state ----
// Kept in global memory per warp slot of the SM (%smid, %warpid: a warp keeps its slot while it runs, as it
// keeps its SM, which TMEM already relies on), tagged with the launch and block that own it: a warp that
// starts in a slot never sees what its predecessor left there.
struct LdRecord {
  unsigned long long dst;  // the destination registers' generic address (local memory here; the same in every lane)
  uint32_t taddr, n;       // the load's TMEM address (lane field: the warp's quarter) and its 32-bit registers
};
struct LaneState {
  unsigned long long tag;  // owner_tag() of the thread the flags are of
  uint32_t flags;
  uint32_t waiting;        // strict schedule: the barrier of its ptx::mbarrier_wait under way + 1 (0: none)
};
struct WarpState {
  unsigned long long tag;  // owner_tag() of the warp whose loads are pending
  uint32_t ld_count;       // loads in ld[], oldest first
  uint32_t ld_dropped;     // loads beyond LD_PENDING_CAP, dropped (their registers stay poison)
  LdRecord ld[LD_PENDING_CAP];
  LaneState lane[32];
  // TMEM write-after-read (common/tmem_war.h): the warp's clock, owned by clock_tag (owner_tag(); | CLOCK_BUSY
  // while a lane resets it for a new owner): its releases, and what it learnt of every warp's releases.
  unsigned long long clock_tag;
  uint32_t rel;
  uint32_t cluster_seen;  // the warp has passed a cluster barrier: every CTA of its cluster has started

  uint32_t joined[tmem_war::WARPS];
};
static_assert(sizeof(WarpState) <= WARP_STATE_BYTES, "the host allocates WARP_STATE_BYTES per warp slot");

__device__ __forceinline__ uint32_t sreg_warpid() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(r));
  return r;
}
__device__ __forceinline__ uint32_t sreg_laneid() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}
// This launch (%gridid, folded) and block: who owns a warp slot's state.
__device__ __forceinline__ unsigned long long owner_tag() {
  uint64_t g;
  asm volatile("mov.u64 %0, %%gridid;" : "=l"(g));
  return (uint64_t(uint32_t(g) ^ uint32_t(g >> 32)) << 32) | (block_linear() + 1u);
}
__device__ WarpState* warp_state() {
  const uint32_t smid = sreg_smid(), slot = sreg_warpid();
  if (smid >= g_config.num_sms || slot >= WARP_SLOTS) fail(RULE_EMULATOR_LIMIT, 2, (smid << 16) | slot);
  return reinterpret_cast<WarpState*>(g_config.warp_state + (size_t(smid) * WARP_SLOTS + slot) * WARP_STATE_BYTES);
}
// The loads of this warp that no tcgen05.wait::ld has completed yet (dropped ones included).
__device__ uint32_t lds_pending(WarpState* w) {
  if (__ldcg(&w->tag) != owner_tag()) return 0;
  return __ldcg(&w->ld_count) + __ldcg(&w->ld_dropped);
}
// Before this thread publishes its tcgen05 operations to other threads, or frees TMEM: the warp's loads must
// have completed (PTX ISA "Non-pipelined instructions, different thread": tcgen05.ld, tcgen05.wait::ld,
// tcgen05.fence::before_thread_sync, then the arrive).
__device__ __forceinline__ bool tracking() {
  return g_config.enabled == ENABLED_MAGIC && g_config.warp_state != nullptr;
}
__device__ __forceinline__ void require_lds_waited() {
  if (!tracking()) return;
  const uint32_t pending = lds_pending(warp_state());
  if (pending != 0) fail(RULE_LD_NOT_WAITED, pending);
}

// ---- the tcgen05 fences (PTX ISA "Specialized Inter-thread Synchronization for tcgen05 instructions") ----
// "An asynchronous tcgen05 operation prior to a tcgen05.fence::before_thread_sync is ordered before all
// subsequent tcgen05 and the execution ordering operations"; one "subsequent to a
// tcgen05.fence::after_thread_sync is ordered after all the prior tcgen05 and the execution ordering
// operations". Each lane keeps two facts:
//  - SYNCED: it has synchronised with other threads (an mbarrier wait that succeeded, a barrier, a cluster
//    barrier's wait) since its last fence::after_thread_sync. Its next asynchronous tcgen05 instruction (mma,
//    cp, ld) would not be ordered after what it synchronised with: a trap.
//  - UNPUB_MMA / UNPUB_LD: it issued an mma or cp (not yet covered by a tcgen05.commit, which performs the fence
//    implicitly: PTX ISA "Non-pipelined instructions, same thread") or an ld since its last
//    fence::before_thread_sync. Its next arrive or barrier would publish them unordered: a trap.
// The execution-ordering operations the emulator sees are the ptx:: wrappers' mbarrier, barrier and cluster
// barrier instructions and __syncthreads (common/ptx.cuh hooks them). Not seen: __syncwarp (a warp's TMEM
// accesses are collective), morally strong ld/st/atom (v7's stream-K flags order global memory, not TMEM).
enum : uint32_t { SYNC_MBARRIER = 1, SYNC_BARRIER = 2, SYNC_CLUSTER = 3 };  // what synchronised or published
enum : uint32_t { ASYNC_MMA = 1, ASYNC_CP = 2, ASYNC_LD = 3 };             // which asynchronous instruction
constexpr uint32_t F_SYNCED = 1u, F_UNPUB_MMA = 2u, F_UNPUB_LD = 4u;         // bits 8-15: the last SYNC_*

__device__ __forceinline__ LaneState* lane_state() { return &warp_state()->lane[sreg_laneid()]; }
__device__ __forceinline__ uint32_t lane_flags(LaneState* l) {
  return __ldcg(&l->tag) == owner_tag() ? __ldcg(&l->flags) : 0u;
}
__device__ __forceinline__ void set_lane_flags(LaneState* l, uint32_t flags) {
  if (__ldcg(&l->tag) != owner_tag()) __stcg(&l->waiting, 0u);  // a new thread in the slot waits on nothing
  __stcg(&l->tag, owner_tag());
  __stcg(&l->flags, flags);
}
// After a ptx:: wait: an mbarrier try_wait that succeeded, bar.sync / __syncthreads, barrier.cluster.wait.
__device__ __noinline__ void on_thread_sync(uint32_t kind) {
  if (!tracking()) return;
  LaneState* l = lane_state();
  set_lane_flags(l, (lane_flags(l) & ~0xFF00u) | F_SYNCED | (kind << 8));
}
// Before a ptx:: arrive: an mbarrier arrive (any form), bar.sync / __syncthreads, barrier.cluster.arrive.
__device__ __noinline__ void on_publish(uint32_t kind) {
  if (!tracking()) return;
  require_lds_waited();
  const uint32_t f = lane_flags(lane_state());
  if ((f & (F_UNPUB_MMA | F_UNPUB_LD)) != 0) fail(RULE_FENCE_BEFORE, kind, f & (F_UNPUB_MMA | F_UNPUB_LD));
}
// An asynchronous tcgen05 instruction of this lane (the emulated mma, cp, ld).
__device__ __noinline__ void on_async_op(uint32_t op) {
  LaneState* l     = lane_state();
  const uint32_t f = lane_flags(l);
  if ((f & F_SYNCED) != 0) fail(RULE_FENCE_AFTER, (f >> 8) & 0xFFu, op);
  set_lane_flags(l, f | (op == ASYNC_LD ? F_UNPUB_LD : F_UNPUB_MMA));
}
// tcgen05.commit (implicitly before_thread_sync for this thread's mma/cp), the two fences.
__device__ __noinline__ void clear_lane_flags(uint32_t bits) {
  if (!tracking()) return;
  LaneState* l     = lane_state();
  const uint32_t f = lane_flags(l);
  if ((f & bits) != 0) set_lane_flags(l, f & ~bits);
}

// ---- TMEM write-after-read (PTX ISA "Non-pipelined instructions, different thread"; common/tmem_war.h) ----
// An MMA or tcgen05.cp that writes cells another warp read with tcgen05.ld must be ordered after that warp's
// release, through a barrier the issuer waited on. Epochs as a race detector keeps them (tmem_war.h), in
// global memory:
//  - each warp's clock (WarpState: rel, joined), reset for a new owner by the first lane that touches it;
//  - each TMEM cell's last reader (Config::tmem_readers, per SM), reset by tcgen05.alloc for its columns: a new
//    allocation carries no reads;
//  - each barrier's vector (Config::war_bars, per SM of the barrier's CTA): claimed (zero) by the barrier's
//    ptx::mbarrier_init, freed by the CTA's dealloc. A CTA's __syncthreads, named barriers and its part of
//    the cluster barrier share one vector (key WAR_CTA_BARRIERS), claimed by the CTA's first mbarrier_init;
//    a cluster barrier's arrival publishes into every CTA's of the cluster, its wait joins its own CTA's.
// Every lane that arrives publishes its warp's clock first (then a GPU-scope fence: the kernels' arrivals are
// relaxed, and the waiter that sees the arrival must see the clock); every lane whose wait succeeds joins the
// barrier's vector into its warp's clock. An arrival or a wait whose barrier is not in the table (full, or not
// initialised by ptx::mbarrier_init) turns the checks of its cluster off (CtaState::war_off), never into a trap.
constexpr uint32_t WAR_CTA_BARRIERS = 0xFFFFFFFFu;
constexpr unsigned long long CLOCK_BUSY = 1ull << 31;  // in owner_tag()'s block + 1, never set by a real block

__device__ __forceinline__ bool war_tracking() {
  return tracking() && g_config.tmem_readers != nullptr && g_config.war_bars != nullptr;
}
__device__ __forceinline__ uint32_t war_launch() { return uint32_t(owner_tag() >> 32); }
__device__ __forceinline__ uint32_t war_self() {
  return tmem_war::warp_index(sreg_ctarank(), tid_linear() / 32);
}

// This warp's clock, reset first where the slot's last owner was another warp (by the first lane to get here;
// the others wait for it).
__device__ WarpState* war_clock() {
  WarpState* w                  = warp_state();
  const unsigned long long mine = owner_tag();
  unsigned long long seen       = atomicAdd(&w->clock_tag, 0ull);
  while (seen != mine) {
    if (seen != (mine | CLOCK_BUSY) && atomicCAS(&w->clock_tag, seen, mine | CLOCK_BUSY) == seen) {
      atomicExch(&w->rel, 0u);
      atomicExch(&w->cluster_seen, 0u);
      for (uint32_t i = 0; i < tmem_war::WARPS; ++i) atomicExch(&w->joined[i], 0u);
      __threadfence();
      atomicExch(&w->clock_tag, mine);
      return w;
    }
    seen = atomicAdd(&w->clock_tag, 0ull);
  }
  return w;
}

// ---- the barriers' vectors ----
__device__ __forceinline__ unsigned long long* war_key_at(uint32_t smid, uint32_t slot) {
  return reinterpret_cast<unsigned long long*>(g_config.war_bars +
                                               (size_t(smid) * WAR_BAR_SLOTS + slot) * WAR_BAR_WORDS);
}
__device__ __forceinline__ uint32_t war_hash(uint32_t addr, uint32_t block) {
  return ((addr >> 3) + block * 37u) % WAR_BAR_SLOTS;
}
__device__ __forceinline__ unsigned long long war_key(uint32_t launch, uint32_t block) {
  return ((unsigned long long)launch << 32) | block;
}
// The vector of barrier `addr` (shared::cta address, or WAR_CTA_BARRIERS) of block `block` + 1 of this launch,
// on SM `smid`; nullptr when it is not in the table.
__device__ uint32_t* war_find(uint32_t smid, uint32_t block, uint32_t addr) {
  if (smid >= g_config.num_sms) return nullptr;
  const unsigned long long key = war_key(war_launch(), block);
  for (uint32_t i = 0, s = war_hash(addr, block); i < WAR_BAR_SLOTS; ++i, s = (s + 1) % WAR_BAR_SLOTS) {
    unsigned long long* k = war_key_at(smid, s);
    if (__ldcg(k) == key && __ldcg(reinterpret_cast<uint32_t*>(k) + 2) == addr)
      return reinterpret_cast<uint32_t*>(k) + 4;
  }
  return nullptr;
}
// A zero vector for barrier `addr` of this CTA, on its SM: a free slot (or one of an earlier launch) is
// claimed under a key no lookup matches, filled, then keyed. nullptr when the SM's table is full.
__device__ uint32_t* war_claim(uint32_t addr) {
  const uint32_t smid = sreg_smid(), block = block_linear() + 1, launch = war_launch();
  if (smid >= g_config.num_sms) return nullptr;
  uint32_t* v = war_find(smid, block, addr);  // initialised again: a new barrier at the same address
  for (uint32_t i = 0, s = war_hash(addr, block); v == nullptr && i < WAR_BAR_SLOTS;
       ++i, s = (s + 1) % WAR_BAR_SLOTS) {
    unsigned long long* k         = war_key_at(smid, s);
    const unsigned long long seen = atomicAdd(k, 0ull);
    const bool free               = uint32_t(seen) == 0 || uint32_t(seen >> 32) != launch;
    if (!free || atomicCAS(k, seen, war_key(launch, block | 0x80000000u)) != seen) continue;
    atomicExch(reinterpret_cast<uint32_t*>(k) + 2, addr);
    v = reinterpret_cast<uint32_t*>(k) + 4;
    for (uint32_t j = 0; j < tmem_war::WARPS; ++j) atomicExch(v + j, 0u);
    __threadfence();
    atomicExch(k, war_key(launch, block));
    return v;
  }
  if (v != nullptr)
    for (uint32_t j = 0; j < tmem_war::WARPS; ++j) atomicExch(v + j, 0u);
  return v;
}
// The CTA's dealloc (or its exit when Cluster Launch Control canceled it): its vectors are free again.
__device__ __noinline__ void war_free_cta() {
  const uint32_t smid = sreg_smid();
  if (!war_tracking() || smid >= g_config.num_sms) return;
  const unsigned long long key = war_key(war_launch(), block_linear() + 1);
  for (uint32_t s = 0; s < WAR_BAR_SLOTS; ++s)
    if (__ldcg(war_key_at(smid, s)) == key) atomicCAS(war_key_at(smid, s), key, 0ull);
}

__device__ __forceinline__ uint32_t ld_cluster_u32(uint32_t caddr) {
  uint32_t v;
  asm volatile("ld.relaxed.cluster.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(caddr) : "memory");
  return v;
}
__device__ __forceinline__ uint32_t war_mapa(const void* p, uint32_t rank) {
  uint32_t caddr;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(caddr) : "r"(smem_u32(p)), "r"(rank));
  return caddr;
}
// The vector of the barrier at shared::cluster address `caddr`, in whichever CTA of the cluster owns it
// (that CTA's SM and block from its CtaState, which its first mbarrier_init wrote).
__device__ uint32_t* war_find_cluster(uint32_t caddr) {
  uint32_t rank;
  asm volatile("getctarank.shared::cluster.u32 %0, %1;" : "=r"(rank) : "r"(caddr));
  // The same offset in the owner's window: a CTA's shared::cluster window maps its shared::cta one linearly.
  const uint32_t addr = caddr - war_mapa(&g_cta, rank) + smem_u32(&g_cta);
  if (rank == sreg_ctarank()) return war_find(sreg_smid(), block_linear() + 1, addr);
  if (ld_cluster_u32(war_mapa(&g_cta.war_launch, rank)) != war_launch()) return nullptr;
  return war_find(ld_cluster_u32(war_mapa(&g_cta.war_smid, rank)), ld_cluster_u32(war_mapa(&g_cta.war_block, rank)),
                  addr);
}
// The CTA-barrier vector of CTA `rank` of the cluster.
__device__ uint32_t* war_find_cta_barriers(uint32_t rank) {
  if (rank == sreg_ctarank()) return war_find(sreg_smid(), block_linear() + 1, WAR_CTA_BARRIERS);
  if (ld_cluster_u32(war_mapa(&g_cta.war_launch, rank)) != war_launch()) return nullptr;
  return war_find(ld_cluster_u32(war_mapa(&g_cta.war_smid, rank)), ld_cluster_u32(war_mapa(&g_cta.war_block, rank)),
                  WAR_CTA_BARRIERS);
}

// The checks of this cluster are off: a CTA's tracking lost an arrival or a wait, or never started. The mark
// names the CTA (launch and block), so that it outlives the CTA's own set-up and a later CTA in the same
// shared memory never inherits it.
__device__ __forceinline__ uint32_t war_off_mark(uint32_t block) { return (war_launch() * 0x9E3779B1u) ^ block; }
__device__ __forceinline__ void war_lost() { st_state(g_cta.war_off, war_off_mark(block_linear() + 1)); }
__device__ bool war_off_in_cluster() {
  const uint32_t block = block_linear() + 1;
  if (ld_state(g_cta.war_launch) != war_launch() || ld_state(g_cta.war_block) != block ||
      ld_state(g_cta.war_off) == war_off_mark(block))
    return true;
  const uint32_t me = sreg_ctarank(), n = sreg_nctarank();
  for (uint32_t r = 0; r < n; ++r) {
    if (r == me) continue;
    if (ld_cluster_u32(war_mapa(&g_cta.war_launch, r)) != war_launch()) return true;
    const uint32_t peer = ld_cluster_u32(war_mapa(&g_cta.war_block, r));
    if (ld_cluster_u32(war_mapa(&g_cta.war_off, r)) == war_off_mark(peer)) return true;
  }
  return false;
}

// Before this lane arrives on the barrier whose vector is `v` (nullptr: not found): its warp's clock.
__device__ void war_publish(uint32_t* v) {
  WarpState* w        = war_clock();
  const uint32_t self = war_self(), rel = atomicAdd(&w->rel, 0u);
  bool lost           = false;
  for (uint32_t i = 0; i < tmem_war::WARPS; ++i) {
    const uint32_t x = tmem_war::published(__ldcg(&w->joined[i]), i, self, rel);
    if (x == 0) continue;
    if (v == nullptr) lost = true;
    else atomicMax(v + i, x);
  }
  if (lost) war_lost();
  __threadfence();
}
// After this lane's wait on the barrier whose vector is `v` succeeded: what it published, into the clock.
__device__ void war_join(const uint32_t* v) {
  if (v == nullptr) {
    war_lost();
    return;
  }
  WarpState* w = war_clock();
  for (uint32_t i = 0; i < tmem_war::WARPS; ++i) {
    const uint32_t x = __ldcg(v + i);
    if (x > __ldcg(&w->joined[i])) atomicMax(&w->joined[i], x);
  }
}

// ptx::mbarrier_init (before the barrier is initialised): the CTA's identity and its CTA-barrier vector at the
// first one, then the barrier's own vector.
__device__ __noinline__ void war_on_mbarrier_init(uint32_t bar) {
  if (!war_tracking()) return;
  if (ld_state(g_cta.war_launch) != war_launch() || ld_state(g_cta.war_block) != block_linear() + 1) {
    st_state(g_cta.war_smid, sreg_smid());
    st_state(g_cta.war_block, block_linear() + 1);
    st_state(g_cta.war_launch, war_launch());
    if (war_claim(WAR_CTA_BARRIERS) == nullptr) war_lost();
  }
  if (war_claim(bar) == nullptr) war_lost();
  __threadfence();
}

// tcgen05.fence::before_thread_sync: one more release of this warp (each lane counts its own).
__device__ __forceinline__ void war_on_fence_before() {
  if (war_tracking()) atomicAdd(&war_clock()->rel, 1u);
}

// tcgen05.ld of the warp (converged): its cells note the reader and the epoch its next release will carry,
// read once by lane 0 for the whole warp before any lane can move on to that release.
__device__ __noinline__ void war_on_ld(uint32_t taddr, uint32_t n) {
  if (!war_tracking()) return;
  WarpState* w   = war_clock();
  uint32_t rel   = sreg_laneid() == 0 ? atomicAdd(&w->rel, 0u) : 0u;
  rel            = __shfl_sync(0xffffffffu, rel, 0);
  __syncwarp();
  const uint32_t rec = tmem_war::read_record(war_self(), rel), quarter = (taddr >> 16) / 32;
  uint32_t* cells    = g_config.tmem_readers + (size_t(sreg_smid()) * 4 + quarter) * TMEM_COLS + (taddr & 0xFFFFu);
  for (uint32_t i = sreg_laneid(); i < n; i += 32) __stcg(cells + i, rec);
}

// tcgen05.alloc of columns [col, col + n) on this SM (every lane of the allocating warp): no reads yet.
__device__ void war_on_alloc(uint32_t col, uint32_t n) {
  if (!war_tracking()) return;
  uint32_t* cells = g_config.tmem_readers + size_t(sreg_smid()) * 4 * TMEM_COLS;
  for (uint32_t i = sreg_laneid(); i < 4 * n; i += 32) __stcg(cells + (i / n) * TMEM_COLS + col + i % n, 0u);
  __threadfence();
}

// The peer's SM of this CTA's allocation that holds columns [col, col + n) on SM `smid`; false where none does
// (the instruction's own checks trap on it: this one never does).
__device__ bool war_allocation(uint32_t smid, uint32_t col, uint32_t n, uint32_t& peer_smid) {
  const uint32_t me = block_linear() + 1;
  uint32_t g        = col / GRANULE;
  if (col + n > TMEM_COLS || __ldcg(owner_of(smid, g)) != me) return false;
  while (__ldcg(owner_of(smid, g) + 1) == 0) {
    if (g == 0 || __ldcg(owner_of(smid, g - 1)) != me) return false;
    --g;
  }
  const uint32_t info = __ldcg(owner_of(smid, g) + 1);
  if (col + n > (g + ((info >> 8) & 0xFFu)) * GRANULE) return false;
  peer_smid = (info >> 16) - 1;
  return true;
}
// An MMA or tcgen05.cp issued by this thread writes all four lane quarters of columns [col, col + n) of this
// CTA's TMEM and, cta_group::2, of the peer's: every cell another warp read must have been released to it.
__device__ __noinline__ void war_check_write(int cta_group, uint32_t col, uint32_t n) {
  if (!war_tracking() || war_off_in_cluster()) return;
  const uint32_t smid = sreg_smid(), rank = sreg_ctarank();
  uint32_t peer_smid = 0xFFFFu;
  if (n == 0 || !war_allocation(smid, col, n, peer_smid)) return;
  WarpState* w             = war_clock();
  const uint32_t self      = war_self();
  uint32_t cached = 0xFFFFFFFFu, known = 0;
  for (int c = 0; c < cta_group; ++c) {
    const uint32_t c_smid = c == 0 ? smid : peer_smid;
    if (c_smid >= g_config.num_sms) continue;
    const uint32_t* cells = g_config.tmem_readers + size_t(c_smid) * 4 * TMEM_COLS;
    for (uint32_t q = 0; q < 4; ++q)
#pragma unroll 4
      for (uint32_t i = 0; i < n; ++i) {
        const uint32_t rec = __ldcg(cells + q * TMEM_COLS + col + i);
        if (!tmem_war::record_read(rec) || tmem_war::record_reader(rec) == self) continue;
        const uint32_t reader = tmem_war::record_reader(rec) % tmem_war::WARPS;
        if (reader != cached) cached = reader, known = __ldcg(&w->joined[reader]);
        if (tmem_war::write_ordered(rec, self, known)) continue;
        printf("tcgen05 emulator: TMEM write-after-read: column %u of lane quarter %u in CTA rank %u was read by "
               "warp %u of CTA rank %u, whose release %u this thread never acquired (it knows %u): no wait on "
               "the barrier that warp arrived on, after its tcgen05.fence::before_thread_sync?\n",
               col + i, q, rank + uint32_t(c), reader % tmem_war::WARPS_PER_CTA,
               reader / tmem_war::WARPS_PER_CTA, tmem_war::record_epoch(rec), known);
        fail(RULE_TMEM_WAR, (col + i) | (q << 12) | ((rank + uint32_t(c)) << 16), reader);
      }
  }
}

// The hooks of common/ptx.cuh's arrivals and waits: the fence rules, then the epochs.
// An mbarrier arrive of any form: `bar` is a shared::cta address, or (cluster_address) a shared::cluster one.
__device__ __noinline__ void on_mbarrier_arrive(uint32_t bar, bool cluster_address) {
  on_publish(SYNC_MBARRIER);
  if (war_tracking()) war_publish(cluster_address ? war_find_cluster(bar) : war_find(sreg_smid(), block_linear() + 1, bar));
}
__device__ void strict_end_wait(uint32_t bar);  // the strict schedule, below
// An mbarrier try_wait that succeeded.
__device__ __noinline__ void on_mbarrier_waited(uint32_t bar) {
  on_thread_sync(SYNC_MBARRIER);
  if (war_tracking()) war_join(war_find(sreg_smid(), block_linear() + 1, bar));
  if (g_config.schedule == Schedule::Strict) strict_end_wait(bar);
}
// Before bar.sync / __syncthreads (SYNC_BARRIER) or barrier.cluster.arrive (SYNC_CLUSTER): the CTA's vector,
// and for the cluster barrier every other CTA's of the cluster too. Those are reached through distributed
// shared memory (their identity), so only once the warp has passed a cluster barrier (every CTA has started;
// none can have exited, since each waits for this arrival): before, a warp has nothing to publish.
__device__ __noinline__ void on_barrier_arrive(uint32_t kind) {
  on_publish(kind);
  if (!war_tracking()) return;
  const uint32_t me = sreg_ctarank();
  war_publish(war_find_cta_barriers(me));
  if (kind != SYNC_CLUSTER) return;
  const bool started = atomicAdd(&war_clock()->cluster_seen, 0u) != 0;
  for (uint32_t r = 0, n = sreg_nctarank(); r < n; ++r)
    if (r != me) war_publish(started ? war_find_cta_barriers(r) : nullptr);
}
// After them: the CTA's vector (after the cluster barrier it holds every CTA's arrivals). Never a peer's: once
// the barrier has completed, the peer may have exited.
__device__ __noinline__ void on_barrier_waited(uint32_t kind) {
  on_thread_sync(kind);
  if (!war_tracking()) return;
  war_join(war_find_cta_barriers(sreg_ctarank()));
  if (kind == SYNC_CLUSTER) atomicExch(&war_clock()->cluster_seen, 1u);
}

// ---- per-CTA state ----
// Called by ptx::mbarrier_init: the first thing every kernel does, before the barrier that publishes it.
__device__ __forceinline__ void on_mbarrier_init(uint32_t bar) {
  war_on_mbarrier_init(bar);
  st_state(g_cta.queue_len, 0);
  st_state(g_cta.queue_owner, 0);
  st_state(g_cta.queue_done, 0);
  st_state(g_cta.queue_lock, 0);
  st_state(g_cta.mc_from, 0);
  for (uint32_t i = 0; i < 16; ++i) st_state(g_cta.waiting[i], 0);
  g_cta.fwd_phase  = 0;
  g_cta.fwd_target = 0;
  st_state(g_cta.fwd_bytes, 0);
  st_state(g_cta.fwd_owner, 0);
  for (uint32_t i = 0; i < MIRRORS; ++i) st_state(g_cta.mirror_bytes[i], 0);
  st_state(g_cta.clc_failed_seen, 0);
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_u32(&g_cta.fwd_bar)) : "memory");
  st_state(g_cta.magic, STATE_MAGIC);
}

// ---- TMEM allocation (PTX ISA "tcgen05.alloc / dealloc / relinquish_alloc_permit") ----
// Marks `granules` granules at `first` of SM `smid` if free; true on success.
__device__ bool try_mark(uint32_t smid, uint32_t first, uint32_t granules) {
  const uint32_t bits = ((granules == 32 ? 0u : (1u << granules)) - 1u) << first;
  uint32_t old = atomicAdd(&g_config.sm_alloc[smid], 0u);
  while ((old & bits) == 0) {
    const uint32_t seen = atomicCAS(&g_config.sm_alloc[smid], old, old | bits);
    if (seen == old) return true;
    old = seen;
  }
  return false;
}
// The lowest free, size-aligned range of `granules` granules on SM `smid`, marked; blocks while there is
// none, as tcgen05.alloc does, and traps after 2 s.
__device__ uint32_t alloc_on_sm(uint32_t smid, uint32_t granules) {
  const uint64_t start = now_ns();
  for (;;) {
    for (uint32_t g = 0; g + granules <= GRANULES; g += granules)
      if (try_mark(smid, g, granules)) return g;
    if (now_ns() - start > TIMEOUT_NS) fail(RULE_ALLOC_TIMEOUT, smid, atomicAdd(&g_config.sm_alloc[smid], 0u));
  }
}
__device__ void set_owner(uint32_t smid, uint32_t first, uint32_t granules, uint32_t info) {
  for (uint32_t g = first; g < first + granules; ++g) {
    owner_of(smid, g)[0] = block_linear() + 1;
    owner_of(smid, g)[1] = g == first ? info : 0u;
  }
  __threadfence();
}

// CtaState::pair of a CTA that allocated TMEM with cta_group::2: its launch and block, so that a later CTA in
// the same shared memory never inherits it.
__device__ __forceinline__ uint32_t pair_mark() {
  return (war_launch() * 0x9E3779B1u) ^ (block_linear() + 1u) ^ 0x2C7A0000u;
}
__device__ __noinline__ void mark_pair() { st_state(g_cta.pair, pair_mark()); }

template <int CTA_GROUP>
__device__ __noinline__ void alloc(uint32_t* slot, uint32_t columns) {
  require_enabled();
  require_converged(1);
  if (columns < 32 || columns > TMEM_COLS || (columns & (columns - 1)) != 0) fail(RULE_ALLOC_SIZE, columns);
  const uint32_t lane = threadIdx.x % 32, warp = tid_linear() / 32, smid = sreg_smid();
  const uint32_t granules = columns / GRANULE;
  uint32_t first = 0;
  if (lane == 0) {
    uint32_t peer_smid = 0xFFFFu;
    if (CTA_GROUP == 1) {
      first = alloc_on_sm(smid, granules);
    } else {
      // The pair allocates the same columns in both CTAs' TMEM (the MMA writes one address in both). The
      // emulator exchanges through global memory; real hardware exchanges through the odd CTA's shared
      // memory, which the emulator does not reproduce (the SASS order test guards the barrier before it).
      const uint32_t n = sreg_nctarank(), rank = sreg_ctarank();
      if (n % 2 != 0) fail(RULE_NO_CLUSTER_PAIR, n);
      const uint32_t pair = cluster_linear() * (n / 2) + rank / 2;
      if (pair >= g_config.pair_slots) fail(RULE_PAIR_TIMEOUT, pair, g_config.pair_slots);
      volatile uint32_t* mail = g_config.pair_mail + 2 * size_t(pair);
      const uint64_t start = now_ns();
      if (rank % 2 == 0) {
        first = alloc_on_sm(smid, granules);
        while (mail[1] == 0)
          if (now_ns() - start > TIMEOUT_NS) fail(RULE_PAIR_TIMEOUT, pair);
        peer_smid = mail[1] - 1;
        mail[1]   = 0;
        __threadfence();
        mail[0] = 0x80000000u | (smid << 16) | first;
      } else {
        mail[1] = smid + 1;
        __threadfence();
        uint32_t m;
        while ((m = mail[0]) == 0)
          if (now_ns() - start > TIMEOUT_NS) fail(RULE_PAIR_TIMEOUT, pair);
        mail[0]   = 0;
        first     = m & 0xFFFFu;
        peer_smid = (m >> 16) & 0x7FFFu;
        while (!try_mark(smid, first, granules))
          if (now_ns() - start > TIMEOUT_NS) fail(RULE_ALLOC_TIMEOUT, smid, first);
      }
    }
    set_owner(smid, first, granules, warp | (granules << 8) | ((peer_smid + 1) << 16));
    if (CTA_GROUP == 2) mark_pair();
    // The address goes back through shared memory, as tcgen05.alloc's does: lane 0, column first * 32.
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(smem_u32(slot)), "r"(first * GRANULE) : "memory");
  }
  war_on_alloc(__shfl_sync(0xffffffffu, first, 0) * GRANULE, columns);  // before the address is published
  __syncwarp();
}

template <int CTA_GROUP>
__device__ __forceinline__ void relinquish_alloc_permit() {
  require_converged(2);  // the emulator never blocks a co-resident CTA's allocation on a permit
}

// The allocation of block `me` (linear index + 1; this CTA's by default) on SM `smid` that holds column `col`:
// first granule, granules, info; traps when the column is not allocated to that block.
__device__ void lookup_allocation(uint32_t smid, uint32_t col, uint32_t& first, uint32_t& granules,
                                  uint32_t& info, uint32_t me = block_linear() + 1) {
  if (col >= TMEM_COLS) fail(RULE_OUTSIDE_ALLOCATION, col);
  uint32_t g = col / GRANULE;
  if (owner_of(smid, g)[0] != me) fail(RULE_OUTSIDE_ALLOCATION, col, owner_of(smid, g)[0]);
  while (owner_of(smid, g)[1] == 0) {  // walk back to the allocation's first granule
    if (g == 0 || owner_of(smid, g - 1)[0] != me) fail(RULE_OUTSIDE_ALLOCATION, col);
    --g;
  }
  first    = g;
  info     = owner_of(smid, g)[1];
  granules = (info >> 8) & 0xFFu;
}
// Columns [col, col + n) must lie in one allocation of block `me` (this CTA by default).
__device__ __forceinline__ uint32_t require_allocated(uint32_t smid, uint32_t col, uint32_t n,
                                                      uint32_t me = block_linear() + 1) {
  uint32_t first, granules, info;
  lookup_allocation(smid, col, first, granules, info, me);
  if (col + n > (first + granules) * GRANULE) fail(RULE_OUTSIDE_ALLOCATION, col, n);
  return info;
}

__device__ void strict_on_dealloc();  // with the strict schedule, below

template <int CTA_GROUP>
__device__ __noinline__ void dealloc(uint32_t taddr, uint32_t columns) {
  require_converged(3);
  const uint32_t smid = sreg_smid(), warp = tid_linear() / 32, col = taddr & 0xFFFFu;
  if ((taddr >> 16) != 0 || col % GRANULE != 0) fail(RULE_DEALLOC_RANGE, taddr, columns);
  uint32_t first, granules, info;
  lookup_allocation(smid, col, first, granules, info);
  if ((info & 0xFFu) != warp) fail(RULE_DEALLOC_WARP, warp, info & 0xFFu);
  if (first * GRANULE != col || granules * GRANULE != columns) fail(RULE_DEALLOC_RANGE, taddr, columns);
  require_lds_waited();
  // Late: MMAs or copies still queued would write TMEM after it is freed (on the hardware: still in flight,
  // since no thread can have waited for their commit, which is queued behind them). Strict: the same, from
  // the queue's head (strict_on_dealloc).
  if (ld_state(g_cta.magic) == STATE_MAGIC && g_config.schedule == Schedule::Late &&
      ld_state(g_cta.queue_len) != 0)
    fail(RULE_DEALLOC_PENDING, ld_state(g_cta.queue_len), ld_state(g_cta.queue_owner) - 1);
  if (ld_state(g_cta.magic) == STATE_MAGIC && g_config.schedule == Schedule::Strict && sreg_laneid() == 0)
    strict_on_dealloc();
  __syncwarp();
  if (threadIdx.x % 32 == 0) {
    for (uint32_t g = first; g < first + granules; ++g) owner_of(smid, g)[0] = 0, owner_of(smid, g)[1] = 0;
    __threadfence();
    const uint32_t bits = ((granules == 32 ? 0u : (1u << granules)) - 1u) << first;
    atomicAnd(&g_config.sm_alloc[smid], ~bits);
    st_state(g_cta.magic, 0);  // the next CTA on this SM starts from its own mbarrier_init
    war_free_cta();
  }
  __syncwarp();
}

// ---- descriptors (PTX ISA "tcgen05 Shared Memory Descriptor", "Instruction descriptor") ----
struct SmemOperand {
  uint32_t start, lbo, sbo;
  uint32_t span;  // bytes of one swizzled row: 128 / 64 / 32; 0 = no swizzle (core matrices of 16 B)
};
__device__ SmemOperand decode_smem_desc(uint64_t d) {
  const uint64_t reserved = (3ull << 14) | (3ull << 30) | (0xFFull << 53);
  const uint32_t version = uint32_t(d >> 46) & 7u, base_offset = uint32_t(d >> 49) & 7u;
  const uint32_t lbo_mode = uint32_t(d >> 52) & 1u, swz = uint32_t(d >> 61) & 7u;
  // Not emulated (and unused by the kernels): a base offset, the absolute LBO mode, 128B with 32B atoms.
  if ((d & reserved) != 0 || version != 1u || base_offset != 0 || lbo_mode != 0 ||
      !(swz == 0 || swz == 2 || swz == 4 || swz == 6))
    fail(RULE_SMEM_DESC, uint32_t(d >> 32), uint32_t(d));
  SmemOperand op;
  op.start = uint32_t(d & 0x3FFFu) << 4;
  op.lbo   = uint32_t((d >> 16) & 0x3FFFu) << 4;
  op.sbo   = uint32_t((d >> 32) & 0x3FFFu) << 4;
  op.span  = swz == 2 ? 128u : swz == 4 ? 64u : swz == 6 ? 32u : 0u;
  // Swizzling is a function of the address: the 8-row pattern must start where the pattern repeats (span * 8
  // bytes), and one K step (32 bytes) must stay inside its row.
  if (op.span != 0 && (op.start % (8 * op.span)) + 32 > op.span) fail(RULE_SMEM_ALIGN, op.start, op.span);
  return op;
}
// Byte address of the 16-byte chunk `chunk` (0, 1: the 32 bytes of one K step) of row `row`.
__device__ __forceinline__ uint32_t operand_chunk(const SmemOperand& op, uint32_t row, uint32_t chunk) {
  if (op.span == 0) return op.start + (row / 8) * op.sbo + (row % 8) * 16 + chunk * op.lbo;
  const uint32_t lin = op.start + (row / 8) * op.sbo + (row % 8) * op.span + chunk * 16;
  return lin ^ (((lin >> 7) & (op.span / 16 - 1)) << 4);
}

struct F16Idesc {
  uint32_t m, n;
  bool a_bf16, b_bf16, neg_a, neg_b;
};
__device__ F16Idesc decode_idesc_f16(uint32_t idesc, int cta_group) {
  // bits 0-3 sparsity/saturate, 6, 23, 29-31 reserved or unused by dense kind::f16; D F32 (bits 4-5 = 1);
  // A/B formats 0 (F16) or 1 (BF16); K-major A and B (bits 15/16 = 0: MN-major is not emulated).
  const uint32_t must_be_zero = 0xFu | (1u << 6) | (1u << 15) | (1u << 16) | (1u << 23) | (7u << 29);
  const uint32_t dfmt = (idesc >> 4) & 3u, afmt = (idesc >> 7) & 7u, bfmt = (idesc >> 10) & 7u;
  if ((idesc & must_be_zero) != 0 || dfmt != 1u || afmt > 1u || bfmt > 1u) fail(RULE_IDESC_RESERVED, idesc);
  F16Idesc r;
  r.n      = ((idesc >> 17) & 0x3Fu) << 3;
  r.m      = ((idesc >> 24) & 0x1Fu) << 4;
  r.a_bf16 = afmt == 1, r.b_bf16 = bfmt == 1;
  r.neg_a = (idesc >> 13) & 1u, r.neg_b = (idesc >> 14) & 1u;
  // PTX ISA "Matrix Shape" (the table of .kind and shapes), kind::f16 dense: cta_group::1 M = 64 or 128 with
  // N = 8..256 in steps of 8; cta_group::2 M = 128 or 256 with N = 16..256 in steps of 16. CUTLASS 4.2's
  // static_asserts say the same (cute/arch/mma_sm100_umma.hpp, SM100_MMA_F16BF16_SS and _2x1SM_SS; only its
  // TS forms, A from TMEM, ask for N in steps of 16 at M = 128). Outside the table: an ISA violation. Emulated:
  // 128 rows of D per CTA (cta_group::1 M = 128, cta_group::2 M = 256) with any N of the table; the other two
  // M lay D out in TMEM differently (64 rows per CTA): legal, not emulated, a trap of their own.
  const bool legal = cta_group == 1 ? (r.m == 64 || r.m == 128) && r.n >= 8 && r.n <= 256 && r.n % 8 == 0
                                    : (r.m == 128 || r.m == 256) && r.n >= 16 && r.n <= 256 && r.n % 16 == 0;
  if (!legal) fail(RULE_IDESC_SHAPE, r.m, r.n);
  if (r.m != 128u * uint32_t(cta_group)) fail(RULE_SHAPE_NOT_EMULATED, r.m, r.n);
  return r;
}

// ---- shared memory of this CTA or of the pair's peer ----
// Every extern __shared__ array starts at the dynamic shared memory, where the kernels keep their operands.
extern __shared__ __align__(16) uint8_t g_dynamic_smem[];
// An operand read (16 bytes at `addr`) must lie in the dynamic shared memory (the same window in both CTAs of
// a pair: one kernel, one layout); a descriptor that points past it traps instead of reading another CTA's
// state or faulting.
__device__ __forceinline__ void require_in_dynamic_smem(uint32_t addr) {
  uint32_t size;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(size));
  const uint32_t base = smem_u32(g_dynamic_smem);
  if (addr < base || addr + 16 > base + size) fail(RULE_SMEM_RANGE, addr, base + size);
}
// A descriptor's start address holds bits 4-17 of the operand's shared::cta address. In a cluster, a CTA's
// own shared::cta addresses carry its window's position above bit 17 (rank 1's start at 16 MB on an
// H200, read from __cvta_generic_to_shared), which the descriptor drops: the operand is in the CTA's own
// window, and the address this thread reads it at (or maps to a peer's) takes the window's bits from this
// CTA.
__device__ __forceinline__ uint32_t in_own_window(uint32_t addr) {
  return (addr & 0x3FFFFu) | (smem_u32(g_dynamic_smem) & ~0x3FFFFu);
}
__device__ __forceinline__ uint4 lds128(uint32_t addr, uint32_t rank, bool remote) {
  addr = in_own_window(addr);
  require_in_dynamic_smem(addr);
  uint4 v;
  if (!remote) {
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(addr)
                 : "memory");
  } else {
    uint32_t caddr;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(caddr) : "r"(addr), "r"(rank));
    asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(caddr)
                 : "memory");
  }
  return v;
}
__device__ __forceinline__ void unpack16(uint32_t w, bool bf16, bool neg, float& lo, float& hi) {
  if (bf16) {
    lo = __uint_as_float(w << 16), hi = __uint_as_float(w & 0xFFFF0000u);
  } else {
    lo = __half2float(__ushort_as_half(uint16_t(w & 0xFFFFu)));
    hi = __half2float(__ushort_as_half(uint16_t(w >> 16)));
  }
  if (neg) lo = -lo, hi = -hi;
}
// One K step (16 elements, 32 bytes) of row `row` of an operand, as floats.
__device__ __forceinline__ void load_row(const SmemOperand& op, uint32_t row, uint32_t rank, bool remote,
                                         bool bf16, bool neg, float (&x)[16]) {
  const uint4 c0 = lds128(operand_chunk(op, row, 0), rank, remote);
  const uint4 c1 = lds128(operand_chunk(op, row, 1), rank, remote);
  const uint32_t w[8] = {c0.x, c0.y, c0.z, c0.w, c1.x, c1.y, c1.z, c1.w};
#pragma unroll
  for (int i = 0; i < 8; ++i) unpack16(w[i], bf16, neg, x[2 * i], x[2 * i + 1]);
}

// ---- the MMA (PTX ISA "tcgen05.mma", kind::f16) ----
// D[128 x N] (+)= A[128 x 16] * B[N x 16]^T per CTA. cta_group::2 (M = 256): rows 0-127 of A and D are CTA 0's
// (its shared memory, its TMEM), rows 128-255 CTA 1's, at the same addresses; B's rows 0..N/2-1 are in CTA 0's
// shared memory, N/2..N-1 in CTA 1's. K is summed in order, in fp32, then added to D unless !accumulate.
__device__ void apply_mirrors(uint32_t addr, uint32_t rank);  // below, with the multicast TMA

// Who issued an operation that runs now (QueueEntry::issuer, ::block): its SM, cluster rank and block, and
// whether this thread makes the multicast copies it reads (apply_mirrors): under the strict schedule the
// issuing thread made them at issue, and the thread that runs it may be the pair's other CTA's.
struct Issuer {
  uint32_t smid, rank, block;
  bool mirrors;
};

// What both kinds of MMA start from: the operands' descriptors, D's columns (allocated to the issuing CTA
// for N columns) and, for cta_group::2, the peer's SM and the multicast copies into the peer that the MMA reads.
struct MmaTarget {
  SmemOperand a, b;
  uint32_t smid, rank, exec, d_col, peer_smid, b_rows;  // exec: this thread's rank; b_rows: rows of B per CTA
};
__device__ MmaTarget mma_target(Issuer is, int cta_group, uint32_t d, uint64_t adesc, uint64_t bdesc,
                                uint32_t n) {
  MmaTarget t;
  t.a = decode_smem_desc(adesc);
  t.b = decode_smem_desc(bdesc);
  t.smid = is.smid, t.rank = is.rank, t.exec = sreg_ctarank();
  t.d_col = d & 0xFFFFu;
  if ((d >> 16) != 0) fail(RULE_OUTSIDE_ALLOCATION, d);
  t.peer_smid = (require_allocated(t.smid, t.d_col, n, is.block) >> 16) - 1;
  t.b_rows    = n / uint32_t(cta_group);
  for (int c = 1; c < cta_group && is.mirrors; ++c) {  // multicast copies into the peer (tma_4d_multicast)
    apply_mirrors(t.a.start, t.rank + uint32_t(c));
    apply_mirrors(t.b.start, t.rank + uint32_t(c));
  }
  return t;
}

__device__ __noinline__ void execute_mma_f16(Issuer is, int cta_group, uint32_t d, uint64_t adesc,
                                             uint64_t bdesc, uint32_t idesc, uint32_t accumulate) {
  const F16Idesc id = decode_idesc_f16(idesc, cta_group);
  const MmaTarget t = mma_target(is, cta_group, d, adesc, bdesc, id.n);
  const SmemOperand &a = t.a, &b = t.b;
  const uint32_t smid = t.smid, rank = t.rank, d_col = t.d_col, peer_smid = t.peer_smid, b_rows = t.b_rows;
  for (int c = 0; c < cta_group; ++c) {
    const uint32_t c_smid = c != 0 ? peer_smid : smid;
    for (uint32_t r = 0; r < 128; ++r) {
      float x[16];
      load_row(a, r, rank + uint32_t(c), rank + uint32_t(c) != t.exec, id.a_bf16, id.neg_a, x);
      float* drow = tmem_cell(c_smid, r, d_col);
      for (uint32_t n = 0; n < id.n; n += 4) {
        float acc[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const uint32_t col = n + uint32_t(j), b_cta = col / b_rows;
          float y[16];
          load_row(b, col % b_rows, rank + b_cta, rank + b_cta != t.exec, id.b_bf16, id.neg_b, y);
          float s = 0.0f;
#pragma unroll
          for (int k = 0; k < 16; ++k) s = fmaf(x[k], y[k], s);
          acc[j] = s;
        }
        float4 old = make_float4(0.f, 0.f, 0.f, 0.f);
        if (accumulate) old = __ldcg(reinterpret_cast<const float4*>(drow + n));
        __stcg(reinterpret_cast<float4*>(drow + n),
               make_float4(old.x + acc[0], old.y + acc[1], old.z + acc[2], old.w + acc[3]));
      }
    }
  }
}

// ---- the block-scaled MMA (PTX ISA "tcgen05.mma", .kind::mxf8f6f4 .block_scale .block32) ----
struct MxIdesc {
  uint32_t m, n, sfa_id, sfb_id;
  bool neg_a, neg_b;
};
__device__ MxIdesc decode_idesc_mxf8f6f4(uint32_t idesc, int cta_group) {
  // Instruction descriptor, block-scaled table: bits 0-3 sparsity/saturate (dense: 0), 6 and 31 reserved;
  // A / B formats (bits 7-9 / 10-12): only E4M3 (0) is emulated; K-major A and B (bits 15/16 = 0); scale type
  // (bit 23) UE8M0 = 1; SF ids in bits 4-5 (B) and 29-30 (A).
  const uint32_t must_be_zero = 0xFu | (1u << 6) | (7u << 7) | (7u << 10) | (1u << 15) | (1u << 16) | (1u << 31);
  if ((idesc & must_be_zero) != 0 || ((idesc >> 23) & 1u) != 1u) fail(RULE_IDESC_RESERVED, idesc);
  MxIdesc r;
  r.sfb_id = (idesc >> 4) & 3u, r.sfa_id = (idesc >> 29) & 3u;
  r.n      = ((idesc >> 17) & 0x3Fu) << 3;
  r.m      = ((idesc >> 24) & 0x1Fu) << 4;
  r.neg_a = (idesc >> 13) & 1u, r.neg_b = (idesc >> 14) & 1u;
  // The same table, kind::mxf8f6f4 dense: cta_group::1 M = 128 with N = 8..256 in steps of 8; cta_group::2
  // M = 128 or 256 with N = 16..256 in steps of 16. Emulated: the MXFP8 kernel's cta_group::2 M = 256.
  const bool legal = cta_group == 1 ? r.m == 128 && r.n >= 8 && r.n <= 256 && r.n % 8 == 0
                                    : (r.m == 128 || r.m == 256) && r.n >= 16 && r.n <= 256 && r.n % 16 == 0;
  if (!legal) fail(RULE_IDESC_SHAPE, r.m, r.n);
  if (cta_group != 2 || r.m != 256) fail(RULE_SHAPE_NOT_EMULATED, r.m, r.n);
  return r;
}
// 32 e4m3 values (one MX block of K, 32 bytes) of row `row` of an operand, as floats (exact).
__device__ __forceinline__ void load_row_e4m3(const SmemOperand& op, uint32_t row, uint32_t rank, bool remote,
                                              bool neg, float (&x)[32]) {
  const uint4 c0 = lds128(operand_chunk(op, row, 0), rank, remote);
  const uint4 c1 = lds128(operand_chunk(op, row, 1), rank, remote);
  const uint32_t w[8] = {c0.x, c0.y, c0.z, c0.w, c1.x, c1.y, c1.z, c1.w};
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const __half2_raw pair =
          __nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t((w[i] >> (16 * h)) & 0xFFFFu), __NV_E4M3);
      const float2 f = __half22float2(__half2(pair));
      x[4 * i + 2 * h] = neg ? -f.x : f.x, x[4 * i + 2 * h + 1] = neg ? -f.y : f.y;
    }
}
// The UE8M0 scale in byte `byte` of TMEM cell (lane, col) of SM `smid`, as the exponent 0..254, or -1 (NaN).
__device__ __forceinline__ int scale_exponent(uint32_t smid, uint32_t lane, uint32_t col, uint32_t byte) {
  const uint32_t word = __ldcg(reinterpret_cast<const unsigned int*>(tmem_cell(smid, lane, col)));
  const int e         = int((word >> (8 * byte)) & 0xFFu);
  return e == 0xFF ? -1 : e;
}
// D[128 x N] (+)= sum over the block's 32 K of A[r][k] 2^(SFA[r] - 127) * B[n][k] 2^(SFB[n] - 127), per CTA,
// operands placed as kind::f16's (execute_mma_f16). The scales are read where [tc5-sf] of the layout model
// puts them: the scale of row i (A: 0..127 of this CTA; B: 0..N-1) at lane i % 32, column sf + i / 32, byte
// SF id; A's from the quarter of its own lane, B's from quarter (i / 32) % 4, so a scale tile not copied to
// every quarter reads poison somewhere. Each CTA applies the scales in its own TMEM: B's must be there whole.
// The block's 32 products are summed in fp32, in K order, scaled by 2^(ea + eb - 254), and added to D.
__device__ __noinline__ void execute_mma_mx(Issuer is, int cta_group, uint32_t d, uint64_t adesc,
                                            uint64_t bdesc, uint32_t idesc, uint32_t sfa, uint32_t sfb,
                                            uint32_t accumulate) {
  const MxIdesc id   = decode_idesc_mxf8f6f4(idesc, cta_group);
  const MmaTarget t  = mma_target(is, cta_group, d, adesc, bdesc, id.n);
  const SmemOperand &a = t.a, &b = t.b;
  const uint32_t smid = t.smid, rank = t.rank, d_col = t.d_col, peer_smid = t.peer_smid, b_rows = t.b_rows;
  const uint32_t sfa_col = sfa & 0xFFFFu, sfb_col = sfb & 0xFFFFu;
  if ((sfa >> 16) != 0 || (sfb >> 16) != 0) fail(RULE_OUTSIDE_ALLOCATION, sfa, sfb);
  require_allocated(smid, sfa_col, 128 / 32, is.block);
  require_allocated(smid, sfb_col, id.n / 32, is.block);
  for (int c = 0; c < cta_group; ++c) {
    const uint32_t c_smid = c != 0 ? peer_smid : smid;
    for (uint32_t r = 0; r < 128; ++r) {
      float x[32];
      load_row_e4m3(a, r, rank + uint32_t(c), rank + uint32_t(c) != t.exec, id.neg_a, x);
      const int ea = scale_exponent(c_smid, r, sfa_col + r / 32, id.sfa_id);
      float* drow  = tmem_cell(c_smid, r, d_col);
      for (uint32_t n = 0; n < id.n; n += 4) {
        float acc[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const uint32_t col = n + uint32_t(j), b_cta = col / b_rows;
          float y[32];
          load_row_e4m3(b, col % b_rows, rank + b_cta, rank + b_cta != t.exec, id.neg_b, y);
          float s = 0.0f;
#pragma unroll
          for (int k = 0; k < 32; ++k) s = fmaf(x[k], y[k], s);
          const int eb = scale_exponent(c_smid, col % 32 + 32 * ((col / 32) % 4), sfb_col + col / 32, id.sfb_id);
          acc[j]       = ea < 0 || eb < 0 ? __int_as_float(0x7FC00000) : scalbnf(s, ea + eb - 254);
        }
        float4 old = make_float4(0.f, 0.f, 0.f, 0.f);
        if (accumulate) old = __ldcg(reinterpret_cast<const float4*>(drow + n));
        __stcg(reinterpret_cast<float4*>(drow + n),
               make_float4(old.x + acc[0], old.y + acc[1], old.z + acc[2], old.w + acc[3]));
      }
    }
  }
}

// ---- tcgen05.cp .32x128b .warpx4 (PTX ISA "tcgen05.cp") ----
// 32 rows of 16 bytes from shared memory (the descriptor's canonical K-major layout: row r at start +
// (r / 8) * SBO + (r % 8) * 16) to TMEM: row r to lane 32 q + r of every quarter q, its 4 words to columns
// col .. col + 3. cta_group::2: each CTA of the pair copies from its own shared memory into its own TMEM.
__device__ __noinline__ void execute_cp_32x128b_warpx4(Issuer is, int cta_group, uint32_t taddr,
                                                       uint64_t sdesc) {
  const SmemOperand src = decode_smem_desc(sdesc);
  if (src.span != 0) fail(RULE_SMEM_DESC, uint32_t(sdesc >> 32), uint32_t(sdesc));  // swizzled: not emulated
  if ((taddr >> 16) != 0) fail(RULE_CP_ADDRESS, taddr);
  const uint32_t smid = is.smid, rank = is.rank, exec = sreg_ctarank(), col = taddr & 0xFFFFu;
  const uint32_t info = require_allocated(smid, col, 4, is.block);
  const uint32_t peer_smid = (info >> 16) - 1;
  for (int c = 0; c < cta_group; ++c) {
    const uint32_t c_smid = c == 0 ? smid : peer_smid;
    if (c != 0 && is.mirrors) apply_mirrors(src.start, rank + uint32_t(c));
    for (uint32_t r = 0; r < 32; ++r) {
      const uint4 v = lds128(operand_chunk(src, r, 0), rank + uint32_t(c), rank + uint32_t(c) != exec);
      for (uint32_t q = 0; q < 4; ++q) {
        unsigned int* cell = reinterpret_cast<unsigned int*>(tmem_cell(c_smid, 32 * q + r, col));
        __stcg(cell + 0, v.x), __stcg(cell + 1, v.y), __stcg(cell + 2, v.z), __stcg(cell + 3, v.w);
      }
    }
  }
}

// ---- the commit (PTX ISA "tcgen05.commit") ----
// Arrives once on the barrier (in each CTA of `mask`; mask 0: the issuing CTA's, rank `issuer_rank`) after
// every earlier MMA of the issuing thread has written TMEM: the writes are fenced at GPU scope, then each
// arrival is a release (.cta on this thread's CTA's barrier, .cluster on another's). Under the strict schedule
// the thread that runs it may be another of the CTA, or of the pair's other CTA, than the one that issued it.
__device__ __noinline__ void execute_commit(uint32_t bar, uint32_t mask, uint32_t issuer_rank = 0xFFFFFFFFu) {
  __threadfence();
  bar = in_own_window(bar);  // the barrier's offset, in the window of the CTA whose thread runs it
  // This CTA's barrier through its shared::cta address, the peers' through mapa: the forms the Hopper kernels
  // use, which compute-sanitizer's racecheck follows as synchronisation.
  const uint32_t me = sreg_ctarank();
  if (mask == 0) mask = 1u << (issuer_rank == 0xFFFFFFFFu ? me : issuer_rank);
  for (uint32_t r = 0; r < 16; ++r) {
    if (!((mask >> r) & 1u)) continue;
    if (r == me) {
      asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
      continue;
    }
    uint32_t caddr;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(caddr) : "r"(bar), "r"(r));
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(caddr) : "memory");
  }
}

// ---- the late schedule's queue ----
// One asynchronous operation, done now: at issue (eager) or when its queue is flushed (late, strict), by the
// issuing thread or (strict) by whichever thread waits for it.
__device__ __noinline__ void run(const QueueEntry& e) {
  // issuer 0: this thread's CTA (set only where another thread may run it: strict_enqueue)
  const Issuer is = e.block == 0 ? Issuer{sreg_smid(), sreg_ctarank(), block_linear() + 1, true}
                                 : Issuer{e.issuer & 0xFFFFu, e.issuer >> 16, e.block, false};
  if (e.op == OP_MMA_F16 || e.op == OP_MMA_F16 + 1)
    execute_mma_f16(is, int(e.op - OP_MMA_F16 + 1), e.d, e.a, e.b, e.idesc, e.arg);
  else if (e.op == OP_MMA_MX || e.op == OP_MMA_MX + 1)
    execute_mma_mx(is, int(e.op - OP_MMA_MX + 1), e.d, e.a, e.b, e.idesc, e.sfa, e.sfb, e.arg);
  else if (e.op == OP_CP || e.op == OP_CP + 1)
    execute_cp_32x128b_warpx4(is, int(e.op - OP_CP + 1), e.d, e.a);
  else
    execute_commit(e.d, e.op == OP_COMMIT_MULTICAST ? e.arg : 0u, is.rank);
}


__device__ __forceinline__ QueueEntry* queue_base() {
  return reinterpret_cast<QueueEntry*>(g_config.queue) + size_t(g_cta.queue_slot) * QUEUE_CAP;
}
__device__ __noinline__ void flush_queue() {
  QueueEntry* q = queue_base();
  const uint32_t n = ld_state(g_cta.queue_len);
  for (uint32_t i = 0; i < n; ++i) {
    run(q[i]);
  }
  st_state(g_cta.queue_len, 0);
  st_state(g_cta.queue_owner, 0);
}
__device__ void enqueue(const QueueEntry& e, uint32_t slot) {
  const uint32_t me = tid_linear() + 1;
  if (ld_state(g_cta.magic) != STATE_MAGIC) fail(RULE_QUEUE, 0, 0);
  const uint32_t owner = ld_state(g_cta.queue_owner);
  if (ld_state(g_cta.queue_len) != 0 && owner != me) fail(RULE_QUEUE, owner - 1, me - 1);
  if (ld_state(g_cta.queue_len) == LATE_QUEUE_FLUSH) flush_queue();
  if (ld_state(g_cta.queue_len) == 0) st_state(g_cta.queue_owner, me), g_cta.queue_slot = slot;
  const uint32_t at = ld_state(g_cta.queue_len);
  queue_base()[at] = e;
  st_state(g_cta.queue_len, at + 1);
}

// ---- the strict schedule (PTX ISA "tcgen05 Memory Consistency Model", "mbarrier based completion
//      mechanism") ----
// An MMA or cp runs no earlier than some thread can tell that it has: when a thread waits on the barrier a
// queued commit arrives on. A thread that begins a wait (ptx::mbarrier_wait, any thread of the issuing CTA,
// of the pair's odd CTA for a cta_group::2 multicast commit, or of any CTA that a cta_group::1 multicast
// commit arrives in) runs the queue up to and including the commits queued for that barrier, performing their
// arrivals, and is counted as waiting until its wait succeeds; a commit queued while a thread waits for its
// barrier runs at once (the wait's next probe would have run it: the waiting loop itself has no hook, whose
// call would cost the kernels registers). The queue is the issuing CTA's (CtaState, Config::queue), reached
// by the other CTAs of the cluster through distributed shared memory (the pair's odd CTA: the even CTA issues
// every cta_group::2 operation): a lock in the issuing CTA's shared memory (cluster-scope acquire and
// release) orders the issuing thread's enqueue, the runs and the reads of the queue, so that what one thread
// ran (TMEM written, the head advanced) is seen by the next that holds it. Entries run one at a time in issue
// order, and the head passes an entry only once it has completed: a reader that finds an MMA between head and
// tail has found one that no wait has run.
__device__ __forceinline__ bool strict_schedule() { return g_config.schedule == Schedule::Strict; }
// Word `w` of g_cta in CTA `rank` of the cluster, through its shared::cluster window (this CTA's own too).
__device__ __forceinline__ uint32_t cta_word(uint32_t& w, uint32_t rank) { return war_mapa(&w, rank); }
__device__ __forceinline__ void st_cluster_u32(uint32_t caddr, uint32_t v) {
  asm volatile("st.relaxed.cluster.shared::cluster.u32 [%0], %1;" ::"r"(caddr), "r"(v) : "memory");
}
__device__ __forceinline__ bool queue_try_lock(uint32_t rank) {
  uint32_t old;
  asm volatile("atom.acquire.cluster.shared::cluster.cas.b32 %0, [%1], 0, 1;"
               : "=r"(old)
               : "r"(cta_word(g_cta.queue_lock, rank))
               : "memory");
  return old == 0;
}
// Held only while a thread enqueues, runs or reads the queue, none of which waits for another thread. The
// entries and TMEM are global memory that threads of two SMs write and read under the lock: GPU-scope fences
// on both sides, so that no SM reads a stale line of its L1.
__device__ void queue_lock(uint32_t rank) {
  while (!queue_try_lock(rank)) __nanosleep(32);
  __threadfence();
}
__device__ __forceinline__ void queue_unlock(uint32_t rank) {
  __threadfence();
  asm volatile("st.release.cluster.shared::cluster.u32 [%0], 0;" ::"r"(cta_word(g_cta.queue_lock, rank))
               : "memory");
}
__device__ __forceinline__ QueueEntry* strict_queue(uint32_t rank) {
  return reinterpret_cast<QueueEntry*>(g_config.queue) +
         size_t(ld_cluster_u32(cta_word(g_cta.queue_slot, rank))) * QUEUE_CAP;
}
// Whether CTA `rank` (not this one) holds a queue this CTA's threads must look at: it is the even CTA of this
// CTA's cta_group::2 pair (its state is set: it initialised its barriers before the cluster barrier that every
// kernel passes before its first wait or tcgen05.ld).
__device__ __forceinline__ bool strict_pair_leader(uint32_t& rank) {
  const uint32_t me = sreg_ctarank();
  if ((me & 1u) == 0 || ld_state(g_cta.pair) != pair_mark()) return false;
  rank = me - 1;
  return ld_cluster_u32(cta_word(g_cta.magic, rank)) == STATE_MAGIC;
}
// With CTA `rank`'s lock held: runs its pending entries up to and including entry `last`, the head passing
// each once it has completed; then (strict_settle) an empty queue starts again at 0.
__device__ __noinline__ void strict_run_through(uint32_t rank, uint32_t last) {
  QueueEntry* q         = strict_queue(rank);
  const uint32_t head_w = cta_word(g_cta.queue_done, rank);
  const uint32_t tail   = ld_cluster_u32(cta_word(g_cta.queue_len, rank));
  for (uint32_t i = ld_cluster_u32(head_w); i != tail && i != last + 1; ++i) {
    run(q[i % QUEUE_CAP]);
    st_cluster_u32(head_w, i + 1);
  }
}
__device__ void strict_settle(uint32_t rank) {
  const uint32_t head = ld_cluster_u32(cta_word(g_cta.queue_done, rank));
  const uint32_t tail = ld_cluster_u32(cta_word(g_cta.queue_len, rank));
  if (head == tail) {
    st_cluster_u32(cta_word(g_cta.queue_done, rank), 0);
    st_cluster_u32(cta_word(g_cta.queue_len, rank), 0);
    st_cluster_u32(cta_word(g_cta.queue_owner, rank), 0);
  }
}

__device__ __noinline__ void strict_enqueue(const QueueEntry& e, uint32_t slot, bool commit_now);
__device__ __noinline__ bool strict_awaited(const QueueEntry& e, uint32_t rank);
// An MMA or cp under the strict schedule: the multicast copies into the peer that it reads are made now, by
// this thread, which has waited on the barrier they complete on (tma_4d_multicast); the thread that runs it
// may be the peer's. Then it is queued.
__device__ __noinline__ void strict_issue(const QueueEntry& e, uint32_t slot, int cta_group, bool cp) {
  if (cta_group == 2) {
    apply_mirrors(decode_smem_desc(e.a).start, sreg_ctarank() + 1);
    if (!cp) apply_mirrors(decode_smem_desc(e.b).start, sreg_ctarank() + 1);
  }
  strict_enqueue(e, slot, false);
}
// The issuing thread queues `e` (slot: its queue's, when the queue starts). A commit with nothing pending
// before it arrives at once (commit_now): what it tracks has completed. Past QUEUE_CAP pending entries the
// oldest runs early (an emulator limit; the kernels of the series stay far below). Unlike the late schedule's,
// the queue may take operations of several threads of the CTA: any thread runs it, in issue order (which
// orders more than the ISA does between threads, never less).
__device__ __noinline__ void strict_enqueue(const QueueEntry& e, uint32_t slot, bool commit_now) {
  const uint32_t me = tid_linear() + 1, rank = sreg_ctarank();
  if (ld_state(g_cta.magic) != STATE_MAGIC) fail(RULE_QUEUE, 0, 0);
  queue_lock(rank);
  uint32_t head = ld_state(g_cta.queue_done), tail = ld_state(g_cta.queue_len);
  if (head == tail && commit_now) {
    queue_unlock(rank);
    run(e);
    return;
  }
  if (tail - head == QUEUE_CAP) strict_run_through(rank, head++);
  if (head == tail) {
    head = tail = 0;
    st_state(g_cta.queue_done, 0);
    st_state(g_cta.queue_owner, me);
    st_state(g_cta.queue_slot, slot);
  }
  QueueEntry* at = reinterpret_cast<QueueEntry*>(g_config.queue) +
                   size_t(ld_state(g_cta.queue_slot)) * QUEUE_CAP + tail % QUEUE_CAP;
  *at        = e;
  at->issuer = sreg_smid() | (rank << 16);  // who issued it: the thread that runs it may be another CTA's
  at->block  = block_linear() + 1;
  st_state(g_cta.queue_len, tail + 1);
  if (tc5queue::is_commit(e.op)) {
    if (strict_awaited(e, rank)) {  // a thread already waits for it: it runs now, as that wait would run it
      strict_run_through(rank, tail);
      strict_settle(rank);
    }
  }
  queue_unlock(rank);
}

// tcgen05.commit under the strict schedule. A cta_group::1 multicast commit first marks itself in every other
// CTA it arrives in (CtaState::mc_from), whose waits then look at this CTA's queue: the mark, then a
// sequentially consistent fence (queue_lock's) before this thread reads who waits (strict_awaited); the
// waiter counts itself, fences, then reads the marks (strict_begin_wait). One of the two sees the other.
__device__ __noinline__ void strict_commit(uint32_t bar, uint32_t mask, bool multicast, int cta_group) {
  if (multicast && cta_group == 1) {
    const uint32_t me = sreg_ctarank();
    for (uint32_t r = 0; r < 16; ++r)
      if (r != me && ((mask >> r) & 1u) != 0)
        asm volatile("red.relaxed.cluster.shared::cluster.or.b32 [%0], %1;" ::"r"(cta_word(g_cta.mc_from, r)),
                     "r"(1u << me)
                     : "memory");
  }
  strict_enqueue(QueueEntry{multicast ? OP_COMMIT_MULTICAST : OP_COMMIT, bar, 0, 0, 0, mask, 0, 0}, 0, true);
}

// A thread waits on the barrier at shared::cta address `bar` (ptx::mbarrier_wait, before its first probe):
// the last commit of CTA `rank`'s queue that arrives on it in this CTA, and everything before it, run now, by
// this thread. Commits queued later for it run when they are queued (strict_enqueue): this thread is counted
// in CtaState::waiting until its wait succeeds. Registered first, then the queue looked at under its lock:
// the thread that queues a commit looks at the counts under the same lock, so one of the two finds the other.
// bar | 1: `rank` is the even CTA of this odd CTA's pair, looked at only if it is paired (cta_group::2); bar
// | 2: `rank` marked itself in this CTA's mc_from (a cta_group::1 multicast commit), looked at as it is.
__device__ __noinline__ void strict_run_pending(uint32_t rank, uint32_t bar) {
  uint32_t leader;
  if ((bar & 1u) != 0 && !strict_pair_leader(leader)) return;
  bar &= 0x3FFFFu & ~3u;  // its offset in the window: the form the queued commits hold (commit)
  const uint32_t me = sreg_ctarank();
  queue_lock(rank);
  const uint32_t head = ld_cluster_u32(cta_word(g_cta.queue_done, rank));
  const uint32_t tail = ld_cluster_u32(cta_word(g_cta.queue_len, rank));
  const uint32_t last = tc5queue::last_commit_on(strict_queue(rank), QUEUE_CAP, head, tail, rank, bar, me);
  if (last != tail) strict_run_through(rank, last);
  strict_settle(rank);
  queue_unlock(rank);
}
__device__ __forceinline__ uint32_t* waiting_word(uint32_t bar) {
  return &g_cta.waiting[tc5queue::barrier_index(bar) / 2];
}
__device__ __forceinline__ uint32_t waiting_one(uint32_t bar) {
  return 1u << (16 * (tc5queue::barrier_index(bar) % 2));
}
// The thread counts as waiting on `bar` until its wait succeeds (strict_end_wait).
__device__ __noinline__ void strict_count_wait(uint32_t bar) {
  LaneState* l = lane_state();
  if (__ldcg(&l->tag) != owner_tag()) set_lane_flags(l, 0);
  atomicAdd(waiting_word(bar), waiting_one(bar));
  __stcg(&l->waiting, bar + 1);
}
__device__ __noinline__ void strict_begin_wait(uint32_t bar) {
  if (!tracking()) return;
  strict_count_wait(bar);
  const uint32_t me = sreg_ctarank();
  strict_run_pending(me, bar);
  if ((me & 1u) != 0) strict_run_pending(me - 1, bar | 1u);  // | 1: only if paired
  asm volatile("fence.sc.cluster;" ::: "memory");            // counted, then the marks read (strict_commit)
  const uint32_t from = ld_state(g_cta.mc_from) & ~(1u << me);
  for (uint32_t r = 0; r < 16; ++r)
    if (((from >> r) & 1u) != 0) strict_run_pending(r, bar | 2u);
}
// The wait succeeded (on_mbarrier_waited): no longer counted.
__device__ void strict_end_wait(uint32_t bar) {
  if (!tracking()) return;
  LaneState* l = lane_state();
  if (__ldcg(&l->tag) != owner_tag() || __ldcg(&l->waiting) != bar + 1) return;
  __stcg(&l->waiting, 0u);
  atomicSub(waiting_word(bar), waiting_one(bar));
}
// With CTA `rank`'s lock held, after queuing commit `e`: a thread of a CTA it arrives in waits on its barrier.
__device__ __noinline__ bool strict_awaited(const QueueEntry& e, uint32_t rank) {
  const uint32_t mask = e.op == OP_COMMIT_MULTICAST ? e.arg : 1u << rank;
  for (uint32_t r = 0; r < 16; ++r)
    if (((mask >> r) & 1u) != 0 &&
        (ld_cluster_u32(cta_word(*waiting_word(e.d), r)) & (0xFFFFu * waiting_one(e.d))) != 0)
      return true;
  return false;
}

// tcgen05.ld of columns [col, col + n) of lane quarter `quarter` (lane 0 of the converged warp, for the
// warp): no pending MMA or cp of CTA `rank`'s queue may write them (PTX ISA "mbarrier based completion
// mechanism": their results are there only once the commit that tracks them has arrived, and a thread that
// waited for that arrival finds them run).
__device__ void strict_check_ld(uint32_t rank, uint32_t col, uint32_t n, uint32_t quarter) {
  const uint32_t me = sreg_ctarank();
  queue_lock(rank);
  const uint32_t head = ld_cluster_u32(cta_word(g_cta.queue_done, rank));
  const uint32_t tail = ld_cluster_u32(cta_word(g_cta.queue_len, rank));
  const QueueEntry* q = strict_queue(rank);
  const uint32_t at   = tc5queue::find_first(q, QUEUE_CAP, head, tail, [&](const QueueEntry& e) {
    return tc5queue::writes_columns(e, rank, me, col, n);
  });
  if (at == tail) {
    queue_unlock(rank);
    return;
  }
  const QueueEntry e    = q[at % QUEUE_CAP];
  const uint32_t commit = tc5queue::covering_commit(q, QUEUE_CAP, at, tail);
  const uint32_t bar    = commit != tail ? q[commit % QUEUE_CAP].d : 0xFFFFFFFFu;
  const bool multicast  = commit != tail && q[commit % QUEUE_CAP].op == OP_COMMIT_MULTICAST;
  const uint32_t mask   = multicast ? q[commit % QUEUE_CAP].arg : 1u << rank;
  queue_unlock(rank);
  const uint32_t first = (e.d & 0xFFFFu) > col ? (e.d & 0xFFFFu) : col;
  if (bar != 0xFFFFFFFFu)
    printf("tcgen05 emulator: tcgen05.ld of column %u (lane quarter %u) in CTA rank %u: a tcgen05.%s issued by CTA "
           "rank %u that writes it is still in flight; the tcgen05.commit that tracks it arrives on the mbarrier "
           "at shared::cta 0x%x (of CTAs 0x%x): wait on it (then tcgen05.fence::after_thread_sync) before the "
           "load\n",
           first, quarter, me, tc5queue::is_cp(e.op) ? "cp" : "mma", rank, bar, mask);
  else
    printf("tcgen05 emulator: tcgen05.ld of column %u (lane quarter %u) in CTA rank %u: a tcgen05.%s issued by CTA "
           "rank %u that writes it is still in flight, and no tcgen05.commit issued yet tracks it\n",
           first, quarter, me, tc5queue::is_cp(e.op) ? "cp" : "mma", rank);
  fail(RULE_LD_PENDING_WRITE, first | (quarter << 12) | (rank << 16), bar);
}
__device__ __noinline__ void strict_on_ld(uint32_t taddr, uint32_t n) {
  if (!strict_schedule() || sreg_laneid() != 0 || ld_state(g_cta.magic) != STATE_MAGIC) return;
  const uint32_t col = taddr & 0xFFFFu, quarter = (taddr >> 16) / 32;
  strict_check_ld(sreg_ctarank(), col, n, quarter);
  uint32_t leader;
  if (strict_pair_leader(leader)) strict_check_ld(leader, col, n, quarter);
}

// ptx::barrier_cluster_arrive: the CTA moves on to a point where its cluster's other CTAs may exit. Commits
// still queued that track nothing pending (arrivals no thread waited for) arrive now, while every CTA they
// arrive in still runs; queued MMAs or copies stay, and the dealloc after traps on them.
__device__ __noinline__ void strict_before_cluster_arrive() {
  if (!strict_schedule() || ld_state(g_cta.magic) != STATE_MAGIC ||
      ld_state(g_cta.queue_done) == ld_state(g_cta.queue_len))
    return;
  const uint32_t rank = sreg_ctarank();
  queue_lock(rank);
  const uint32_t head = ld_state(g_cta.queue_done), tail = ld_state(g_cta.queue_len);
  const uint32_t work = tc5queue::find_first(strict_queue(rank), QUEUE_CAP, head, tail,
                                             [](const QueueEntry& e) { return tc5queue::writes_tmem(e.op); });
  if (work == tail && head != tail) strict_run_through(rank, tail - 1);
  strict_settle(rank);
  queue_unlock(rank);
}
// tcgen05.dealloc: MMAs or copies still queued would write TMEM after it is freed (no thread has waited for
// their commit): a trap. Queued commits alone arrive now (a CTA of one; a pair's ran at its cluster barrier).
__device__ void strict_on_dealloc() {
  const uint32_t rank = sreg_ctarank();
  queue_lock(rank);
  const uint32_t head = ld_state(g_cta.queue_done), tail = ld_state(g_cta.queue_len);
  const uint32_t work = tc5queue::find_first(strict_queue(rank), QUEUE_CAP, head, tail,
                                             [](const QueueEntry& e) { return tc5queue::writes_tmem(e.op); });
  if (work != tail) {
    queue_unlock(rank);
    fail(RULE_DEALLOC_PENDING, tail - head, ld_state(g_cta.queue_owner) - 1);
  }
  if (head != tail) strict_run_through(rank, tail - 1);
  strict_settle(rank);
  queue_unlock(rank);
}

// ---- cta_group::2 TMA completing on a peer's barrier ----
// Hopper's TMA completes only on a barrier of the CTA it writes. A copy whose barrier is the peer's is issued
// on this CTA's g_cta.fwd_bar instead; the producer, before it next blocks, waits for those bytes and
// forwards them with mbarrier.complete_tx on the peer's barrier (PTX ISA "mbarrier.complete_tx", sm_90).
__device__ __noinline__ void forward_flush() {
  const uint64_t start = now_ns();
  uint32_t done        = 0;
  while (!done) {
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(smem_u32(&g_cta.fwd_bar)), "r"(g_cta.fwd_phase)
        : "memory");
    if (!done && now_ns() - start > TIMEOUT_NS)
      fail(RULE_TMA_FORWARD, g_cta.fwd_target, ld_state(g_cta.fwd_bytes));
  }
  g_cta.fwd_phase ^= 1u;
  asm volatile("fence.acq_rel.cluster;" ::: "memory");
  asm volatile("mbarrier.complete_tx.relaxed.cluster.shared::cluster.b64 [%0], %1;" ::"r"(g_cta.fwd_target),
               "r"(ld_state(g_cta.fwd_bytes))
               : "memory");
  st_state(g_cta.fwd_bytes, 0), st_state(g_cta.fwd_owner, 0), g_cta.fwd_target = 0;
}

// Before this thread blocks or synchronises: the late schedule's queued work, and bytes owed to a peer; before
// it waits on an mbarrier, the strict schedule's commits it waits for (strict_begin_wait). wait_bar:
// ptx::mbarrier_wait's barrier | 1 (barriers are 8-byte aligned; 0: no wait on a barrier follows). Each
// schedule's work is one call: what the calls here reach costs the emulated kernels registers.
__device__ __forceinline__ void before_block(uint32_t wait_bar = 0) {
  if (ld_state(g_cta.magic) != STATE_MAGIC) return;
  const uint32_t me = tid_linear() + 1;
  if (ld_state(g_cta.fwd_owner) == me && ld_state(g_cta.fwd_bytes) != 0) forward_flush();
  if (g_config.schedule == Schedule::Late && ld_state(g_cta.queue_owner) == me && ld_state(g_cta.queue_len) != 0)
    flush_queue();
  else if (g_config.schedule == Schedule::Strict && wait_bar != 0)
    strict_begin_wait(wait_bar & ~1u);
}


__device__ __forceinline__ uint32_t cta_rank_of(uint32_t cluster_addr) {
  uint32_t r;
  asm volatile("getctarank.shared::cluster.u32 %0, %1;" : "=r"(r) : "r"(cluster_addr));
  return r;
}

// ptx::mbarrier_arrive_expect_tx_cluster, after its own arrive: bytes announced on a peer's barrier will be
// forwarded by this thread.
__device__ __forceinline__ void on_expect_tx_cluster(uint32_t cluster_addr, uint32_t bytes) {
  if (cta_rank_of(cluster_addr) == sreg_ctarank() || ld_state(g_cta.magic) != STATE_MAGIC) return;
  asm volatile("mbarrier.arrive.expect_tx.relaxed.cta.shared::cta.b64 _, [%0], %1;" ::"r"(
                   smem_u32(&g_cta.fwd_bar)),
               "r"(bytes)
               : "memory");
  g_cta.fwd_target = cluster_addr;
  st_state(g_cta.fwd_bytes, bytes), st_state(g_cta.fwd_owner, tid_linear() + 1);
}

// The barrier operand of a cta_group::2 TMA: the peer's barrier is replaced by this CTA's forwarding one.
__device__ __forceinline__ uint32_t tma_barrier(uint32_t cluster_addr) {
  if (cta_rank_of(cluster_addr) == sreg_ctarank()) return cluster_addr;
  if (ld_state(g_cta.magic) != STATE_MAGIC || ld_state(g_cta.fwd_bytes) == 0 || g_cta.fwd_target != cluster_addr ||
      ld_state(g_cta.fwd_owner) != tid_linear() + 1)
    fail(RULE_TMA_FORWARD, cluster_addr, g_cta.fwd_target);
  return smem_u32(&g_cta.fwd_bar);
}

// The bytes of one box of `map`, noted by the host when it built the map (tcgen05_emu.h, MAP_CAP).
__device__ uint32_t box_bytes_of(const CUtensorMap* map) {
  const uint4* m    = reinterpret_cast<const uint4*>(map);
  const uint32_t n  = *g_config.map_count;
  for (uint32_t i = 0; i < n; ++i) {
    const uint4* e = reinterpret_cast<const uint4*>(g_config.maps + size_t(i) * MAP_WORDS);
    bool same      = true;
    for (int w = 0; w < 8 && same; ++w) {
      const uint4 x = m[w], y = e[w];
      same = x.x == y.x && x.y == y.y && x.z == y.z && x.w == y.w;
    }
    if (same) return g_config.maps[size_t(i) * MAP_WORDS + 32];
  }
  fail(RULE_TMA_UNKNOWN_MAP, n);
  return 0;
}

// cp.async.bulk.tensor .multicast::cluster .cta_group::2 (PTX ISA "cp.async.bulk.tensor"): the box lands at
// `dst`'s offset in every CTA of `mask`, and each copy's bytes complete on the barrier at `cluster_bar`'s
// offset in the CTA of the pair with that barrier's parity. Hopper's multicast completes each copy on the
// barrier of the CTA it writes, and nothing on Hopper completes a copy into one CTA on another's barrier. So:
// this CTA's copy is Hopper's TMA, completing on the target barrier (which must be this CTA's: the MXFP8
// kernel's CTA 0); the other copies' bytes are completed on it at once, and the copies themselves are made
// from this CTA's copy by the thread that first reads them with an emulated tcgen05 instruction, after it has
// waited on that barrier (apply_mirrors). Only that thread touches them: no other thread's access is ordered
// against them by the emulator's own stores.
__device__ __noinline__ void tma_4d_multicast(uint32_t dst, const CUtensorMap* map, uint32_t cluster_bar,
                                              uint16_t mask, int c0, int c1, int c2, int c3) {
  const uint32_t me = sreg_ctarank();
  if (ld_state(g_cta.magic) != STATE_MAGIC || cta_rank_of(cluster_bar) != me || !((mask >> me) & 1u))
    fail(RULE_TMA_FORWARD, cluster_bar, mask);
  const uint32_t bytes = box_bytes_of(map), others = mask & ~(1u << me);
  if (others != 0) {
    uint32_t slot = MIRRORS;
    for (uint32_t i = 0; i < MIRRORS && slot == MIRRORS; ++i)
      if (ld_state(g_cta.mirror_bytes[i]) == 0 || ld_state(g_cta.mirror_dst[i]) == dst) slot = i;
    if (slot == MIRRORS) fail(RULE_TMA_FORWARD, dst, MIRRORS);
    st_state(g_cta.mirror_dst[slot], dst);
    st_state(g_cta.mirror_mask[slot], others);
    st_state(g_cta.mirror_bytes[slot], bytes);
  }
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
      "[%0], [%1, {%2, %3, %4, %5}], [%6];" ::"r"(dst),
      "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(cluster_bar)
      : "memory");
  if (others != 0)
    asm volatile("mbarrier.complete_tx.relaxed.cluster.shared::cluster.b64 [%0], %1;" ::"r"(cluster_bar),
                 "r"(uint32_t(__popc(others)) * bytes)
                 : "memory");
}

// Before an emulated tcgen05 instruction reads [addr, addr + 16) of the shared memory of CTA `rank`: a
// multicast copy into that CTA pending over it is made now, from this CTA's copy (landed: the reading
// thread has waited on the barrier it completes on).
__device__ void apply_mirrors(uint32_t addr, uint32_t rank) {
  const uint32_t me = sreg_ctarank();
  if (rank == me) return;
  for (uint32_t i = 0; i < MIRRORS; ++i) {
    const uint32_t bytes = ld_state(g_cta.mirror_bytes[i]);
    if (bytes == 0) continue;
    const uint32_t dst = ld_state(g_cta.mirror_dst[i]), mask = ld_state(g_cta.mirror_mask[i]);
    if (addr < dst || addr >= dst + bytes || !((mask >> rank) & 1u)) continue;
    uint32_t peer;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(peer) : "r"(dst), "r"(rank));
    for (uint32_t j = 0; j < bytes; j += 16) {
      const uint4 v = lds128(dst + j, me, false);
      asm volatile("st.shared::cluster.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(peer + j), "r"(v.x), "r"(v.y),
                   "r"(v.z), "r"(v.w)
                   : "memory");
    }
    const uint32_t left = mask & ~(1u << rank);
    st_state(g_cta.mirror_mask[i], left);
    if (left == 0) st_state(g_cta.mirror_bytes[i], 0);
  }
}

// ---- tcgen05.ld's asynchrony ----
// A load of the warp (all 32 lanes, converged): noted for its wait::ld, oldest first. Past LD_PENDING_CAP the
// oldest is dropped (its registers stay poison) and the next wait::ld traps as not emulated.
__device__ __noinline__ void record_ld(uint32_t taddr, unsigned long long dst, uint32_t n) {
  strict_on_ld(taddr, n);
  int same = 0;
  __match_all_sync(0xffffffffu, dst, &same);
  if (!same) fail(RULE_EMULATOR_LIMIT, 3, uint32_t(dst));
  war_on_ld(taddr, n);
  WarpState* w = warp_state();
  if (sreg_laneid() == 0) {
    const unsigned long long tag = owner_tag();
    uint32_t count = 0, dropped = 0;
    if (__ldcg(&w->tag) == tag) {
      count = __ldcg(&w->ld_count), dropped = __ldcg(&w->ld_dropped);
    } else {
      __stcg(&w->tag, tag);
    }
    if (count == LD_PENDING_CAP) {
      for (uint32_t i = 1; i < count; ++i) {
        __stcg(&w->ld[i - 1].dst, __ldcg(&w->ld[i].dst));
        __stcg(&w->ld[i - 1].taddr, __ldcg(&w->ld[i].taddr));
        __stcg(&w->ld[i - 1].n, __ldcg(&w->ld[i].n));
      }
      --count, ++dropped;
    }
    __stcg(&w->ld[count].dst, dst);
    __stcg(&w->ld[count].taddr, taddr);
    __stcg(&w->ld[count].n, n);
    __stcg(&w->ld_count, count + 1);
    __stcg(&w->ld_dropped, dropped);
  }
  __syncwarp();
}
// tcgen05.wait::ld: each pending load of the warp reads its TMEM cells now and writes the registers (this
// lane's: lane quarter base + lane, the load's columns) through their address.
__device__ __noinline__ void complete_lds() {
  WarpState* w = warp_state();
  uint32_t count = 0;
  if (__ldcg(&w->tag) == owner_tag()) {
    count = __ldcg(&w->ld_count);
    const uint32_t dropped = __ldcg(&w->ld_dropped);
    if (dropped != 0) fail(RULE_EMULATOR_LIMIT, 1, count + dropped);
  }
  const uint32_t smid = sreg_smid(), lane = sreg_laneid();
  for (uint32_t r = 0; r < count; ++r) {
    float* dst          = reinterpret_cast<float*>(__ldcg(&w->ld[r].dst));
    const uint32_t addr = __ldcg(&w->ld[r].taddr), n = __ldcg(&w->ld[r].n);
    const float* src    = tmem_cell(smid, (addr >> 16) + lane, addr & 0xFFFFu);
    for (uint32_t i = 0; i < n; ++i) dst[i] = __ldcg(src + i);
  }
  __syncwarp();
  if (lane == 0 && count != 0) __stcg(&w->ld_count, 0u);
  __syncwarp();
}

// ---- the wrappers' emulated bodies ----
// An MMA or tcgen05.cp, issued: TMEM write-after-read is checked now, at the issue (the columns it writes:
// an MMA's N, idesc bits 17-22 in both kinds, a cp's 4, in all 128 lanes), then it runs now (eager) or is
// queued (late; the checks that need no shared memory now, the rest when it runs).
__device__ __noinline__ void issue(const QueueEntry& e) {
  const bool cp = e.op == OP_CP || e.op == OP_CP + 1;
  const int cta_group = int(e.op - (cp ? OP_CP : e.op >= OP_MMA_MX ? OP_MMA_MX : OP_MMA_F16)) + 1;
  const uint32_t col = e.d & 0xFFFFu;
  war_check_write(cta_group, col, cp ? 4u : ((e.idesc >> 17) & 0x3Fu) << 3);
  if (g_config.schedule == Schedule::Eager) {
    run(e);
    return;
  }
  if ((e.d >> 16) != 0) fail(cp ? RULE_CP_ADDRESS : RULE_OUTSIDE_ALLOCATION, e.d);
  require_allocated(sreg_smid(), col, cp ? 4u : 16u);
  const uint32_t slot = sreg_smid() * GRANULES + col / GRANULE;
  if (g_config.schedule == Schedule::Late) enqueue(e, slot);
  else strict_issue(e, slot, cta_group, cp);
}
// tcgen05.mma of either kind (the entry says which): the pair's rules, then the MMA now (eager) or queued
// (late; the checks that need no shared memory now, the rest when it runs).
template <int CTA_GROUP>
__device__ __forceinline__ void mma(const QueueEntry& e) {
  require_enabled();
  if (CTA_GROUP == 2) {
    if (sreg_nctarank() % 2 != 0) fail(RULE_NO_CLUSTER_PAIR, sreg_nctarank());
    if (sreg_ctarank() % 2 != 0) fail(RULE_CTA_GROUP_RANK, sreg_ctarank());
  }
  on_async_op(ASYNC_MMA);
  issue(e);
}
template <int CTA_GROUP>
__device__ __forceinline__ void mma_f16(uint32_t d, uint64_t adesc, uint64_t bdesc, uint32_t idesc,
                                        uint32_t accumulate) {
  mma<CTA_GROUP>(QueueEntry{OP_MMA_F16 + uint32_t(CTA_GROUP - 1), d, adesc, bdesc, idesc, accumulate ? 1u : 0u,
                            0, 0});
}
template <int CTA_GROUP>
__device__ __forceinline__ void mma_mx(uint32_t d, uint64_t adesc, uint64_t bdesc, uint32_t idesc, uint32_t sfa,
                                       uint32_t sfb, uint32_t accumulate) {
  mma<CTA_GROUP>(QueueEntry{OP_MMA_MX + uint32_t(CTA_GROUP - 1), d, adesc, bdesc, idesc, accumulate ? 1u : 0u,
                            sfa, sfb});
}

// tcgen05.cp, asynchronous like the MMA and ordered before the same thread's later MMAs (PTX ISA "tcgen05
// Memory Consistency Model", pipelined pairs): eager at issue, late queued with the MMAs, in issue order.
template <int CTA_GROUP>
__device__ __forceinline__ void cp_32x128b_warpx4(uint32_t taddr, uint64_t sdesc) {
  require_enabled();
  if (CTA_GROUP == 2 && sreg_ctarank() % 2 != 0) fail(RULE_CTA_GROUP_RANK, sreg_ctarank());
  on_async_op(ASYNC_CP);
  issue(QueueEntry{OP_CP + uint32_t(CTA_GROUP - 1), taddr, sdesc, 0, 0, 0, 0, 0});
}

// cta_group: of the multicast form; a cta_group::2 commit is the pair's even CTA's (the one that issues its
// MMAs), a cta_group::1 multicast commit any CTA's (v8's token pair: each CTA commits its own MMAs to both).
__device__ __forceinline__ void commit(uint32_t bar, uint32_t mask, bool multicast, int cta_group = 1) {
  require_enabled();
  // The barrier by its offset in the CTA's window (the bits a shared::cta address has below its window's
  // position; in_own_window): the same in every CTA it may arrive in, whichever CTA's thread runs or waits.
  bar &= 0x3FFFFu;
  if (multicast && cta_group == 2 && sreg_ctarank() % 2 != 0) fail(RULE_CTA_GROUP_RANK, sreg_ctarank());
  clear_lane_flags(F_UNPUB_MMA);  // the commit performs this thread's fence::before_thread_sync for them
  // Strict: queued behind this CTA's pending work, or arriving now where none is pending.
  if (g_config.schedule == Schedule::Strict && ld_state(g_cta.magic) == STATE_MAGIC) {
    strict_commit(bar, mask, multicast, cta_group);
    return;
  }
  // Eager, or nothing of this CTA queued: every earlier MMA of this thread has written TMEM already.
  if (g_config.schedule == Schedule::Eager || ld_state(g_cta.magic) != STATE_MAGIC ||
      ld_state(g_cta.queue_len) == 0) {
    execute_commit(bar, multicast ? mask : 0u);
    return;
  }
  enqueue(QueueEntry{multicast ? OP_COMMIT_MULTICAST : OP_COMMIT, bar, 0, 0, 0, mask, 0, 0}, g_cta.queue_slot);
}

// tcgen05.ld.sync.aligned.32x32b.x{N}.b32 (PTX ISA "tcgen05.ld", "Matrix fragments ... .32x32b"): thread t
// of the warp receives lane (taddr.lane + t), columns taddr.col .. + N - 1.
template <int N>
__device__ __forceinline__ void ld_32x32b(uint32_t taddr, float (&v)[N]) {
  require_converged(4);
  const uint32_t warp = tid_linear() / 32, lane_base = taddr >> 16, col = taddr & 0xFFFFu;
  if (lane_base != 32u * (warp % 4)) fail(RULE_LANE_QUARTER, taddr, warp);
  require_allocated(sreg_smid(), col, uint32_t(N));
  on_async_op(ASYNC_LD);
  // Asynchronous (PTX ISA "tcgen05 Memory Consistency Model"): the registers are poison until the warp's
  // tcgen05.wait::ld, which reads TMEM for them (the latest point the ISA allows) and writes them through
  // their address. A kernel that uses them before the wait reads NaN, every time.
#pragma unroll
  for (int i = 0; i < N; ++i) v[i] = __uint_as_float(LD_POISON_BITS);
  record_ld(taddr, reinterpret_cast<unsigned long long>(&v[0]), uint32_t(N));
}

// tcgen05.wait::ld (PTX ISA "tcgen05.wait"): completes every load of the warp since its last wait.
__device__ __forceinline__ void wait_ld() {
  require_enabled();
  require_converged(5);
  complete_lds();
  asm volatile("" ::: "memory");  // the registers were written through memory
}

// tcgen05.fence::before_thread_sync / after_thread_sync (PTX ISA "tcgen05 Memory Consistency Model"): the
// lane's fence state (on_async_op, on_publish); TMEM is global memory here, so both are also GPU-scope
// fences; before_thread_sync is also where the late schedule runs what this thread queued.
__device__ __noinline__ void fence_before_thread_sync() {
  require_lds_waited();
  war_on_fence_before();
  clear_lane_flags(F_UNPUB_MMA | F_UNPUB_LD);
  before_block();
  __threadfence();
}
__device__ __forceinline__ void fence_after_thread_sync() {
  clear_lane_flags(F_SYNCED);
  __threadfence();
}

// ---- Cluster Launch Control (PTX ISA "clusterlaunchcontrol"; common/clc.cuh) ----
// Hopper has no CLC, and nothing can stop a launched cluster from starting. The emulator keeps, per launch
// (tagged by %gridid, so no reset between launches is needed), one record per cluster: RUNNING once any thread
// of the cluster reaches a barrier.cluster.arrive, CANCELED once a try_cancel took it first. A canceled
// cluster's threads exit at their first barrier.cluster.arrive (ptx::barrier_cluster_arrive): it runs its
// setup (barrier init) and nothing after it, so a kernel must do nothing visible before its first cluster
// barrier, as every kernel of this series does. try_cancel walks a per-launch cursor over the clusters in
// launch order and claims the first one that is not RUNNING. The response (16 bytes: CLC_OK or CLC_FAILED,
// then the first CTA's x, y, z) is written by a bulk copy from global memory (PTX ISA "cp.async.bulk", its
// .multicast::cluster form for the multicast request), which completes its bytes on the barrier at the same
// offset in each CTA it writes: an asynchronous write with complete_tx, as the real response is. (st.async,
// tried first, is refused by compute-sanitizer in a 1-CTA cluster.)
constexpr uint32_t CLC_RUNNING = 1, CLC_CANCELED = 2;
constexpr uint32_t CLC_OK = 0xC1C0000Bu, CLC_FAILED = 0xC1C0FA11u;

__device__ __forceinline__ uint32_t launch_tag() {
  uint64_t g;
  asm volatile("mov.u64 %0, %%gridid;" : "=l"(g));
  const uint32_t t = uint32_t(g) ^ uint32_t(g >> 32);
  return t == 0 ? 1u : t;
}
__device__ __forceinline__ uint32_t sreg(int which) {
  uint32_t r = 0;
  switch (which) {
    case 0: asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(r)); break;
    case 1: asm volatile("mov.u32 %0, %%nclusterid.y;" : "=r"(r)); break;
    case 2: asm volatile("mov.u32 %0, %%nclusterid.z;" : "=r"(r)); break;
    case 3: asm volatile("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(r)); break;
    case 4: asm volatile("mov.u32 %0, %%cluster_nctaid.y;" : "=r"(r)); break;
    default: asm volatile("mov.u32 %0, %%cluster_nctaid.z;" : "=r"(r)); break;
  }
  return r;
}

// The state `cluster` has in this launch after asking for `want`: `want` if this call set it, else what an
// earlier call of the same launch set (a record of an earlier launch counts as untouched).
__device__ uint32_t clc_claim(uint32_t cluster, uint32_t want) {
  if (cluster >= CLC_SLOTS) fail(RULE_CLC_GRID, cluster, CLC_SLOTS);
  unsigned long long* rec        = g_config.clc_cluster + cluster;
  const unsigned long long mine  = (unsigned long long)launch_tag() << 32;
  unsigned long long old         = atomicAdd(rec, 0ull);
  for (;;) {
    if ((old >> 32) == (mine >> 32)) return uint32_t(old);
    const unsigned long long seen = atomicCAS(rec, old, mine | want);
    if (seen == old) return want;
    old = seen;
  }
}

// ptx::barrier_cluster_arrive: a cluster that a try_cancel canceled exits here, before its first arrival.
__device__ __forceinline__ void on_cluster_arrive() {
  if (g_config.enabled != ENABLED_MAGIC) return;
  if (clc_claim(cluster_linear(), CLC_RUNNING) == CLC_CANCELED) {
    __syncwarp();  // the warp's barrier initialisations before its lane 0 frees their vectors
    if (sreg_laneid() == 0) war_free_cta();
    asm volatile("exit;");
  }
}

// clusterlaunchcontrol.try_cancel[.multicast::cluster::all]: `response` and `bar` are shared::cta addresses.
__device__ __noinline__ void clc_try_cancel(uint32_t response, uint32_t bar, bool multicast) {
  require_enabled();
  if (ld_state(g_cta.magic) == STATE_MAGIC && ld_state(g_cta.clc_failed_seen) != 0) fail(RULE_CLC_AFTER_FAIL);
  const uint32_t tag = launch_tag(), clusters = sreg(0) * sreg(1) * sreg(2);
  uint32_t taken     = 0xFFFFFFFFu;
  for (;;) {
    unsigned long long old = atomicAdd(g_config.clc_cursor, 0ull);
    uint32_t next;
    for (;;) {  // take the cursor's next index of this launch
      next = uint32_t(old >> 32) == tag ? uint32_t(old) : 0u;
      if (next >= clusters) break;
      const unsigned long long seen =
          atomicCAS(g_config.clc_cursor, old, ((unsigned long long)tag << 32) | (next + 1));
      if (seen == old) break;
      old = seen;
    }
    if (next >= clusters) break;  // every cluster runs or was canceled: the request fails
    if (clc_claim(next, CLC_CANCELED) == CLC_CANCELED) {
      taken = next;
      break;
    }
  }
  uint32_t w[4] = {CLC_FAILED, 0, 0, 0};
  if (taken != 0xFFFFFFFFu) {
    const uint32_t nx = sreg(0), ny = sreg(1);
    w[0] = CLC_OK;
    w[1] = (taken % nx) * sreg(3);
    w[2] = (taken / nx % ny) * sreg(4);
    w[3] = (taken / (nx * ny)) * sreg(5);
  }
  // Staged in global memory, then copied by the bulk-copy engine (the async proxy, as the real response):
  // a 1-CTA cluster has no st.async. The slot is this block's and the response buffer's; it is not written
  // again before the kernel has waited for this response, which it must do to read it.
  uint32_t* slot = g_config.clc_stage + (block_linear() * 4u + ((response >> 4) & 3u)) % CLC_STAGE_SLOTS * 4u;
  asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(slot), "r"(w[0]), "r"(w[1]), "r"(w[2]),
               "r"(w[3])
               : "memory");
  asm volatile("fence.proxy.async.global;" ::: "memory");
  if (multicast)
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], 16, "
        "[%2], %3;" ::"r"(response),
        "l"(slot), "r"(bar), "h"(uint16_t((1u << sreg_nctarank()) - 1u))
        : "memory");
  else
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 16, [%2];" ::"r"(
                     response),
                 "l"(slot), "r"(bar)
                 : "memory");
}

__device__ __forceinline__ uint32_t clc_word0(uint64_t lo) {
  const uint32_t w0 = uint32_t(lo);
  if (w0 != CLC_OK && w0 != CLC_FAILED) fail(RULE_CLC_RESPONSE, w0);
  return w0;
}
// clusterlaunchcontrol.query_cancel.is_canceled; a failure is remembered for the CTA (RULE_CLC_AFTER_FAIL).
__device__ __forceinline__ bool clc_is_canceled(uint64_t lo, uint64_t) {
  if (clc_word0(lo) == CLC_OK) return true;
  if (ld_state(g_cta.magic) == STATE_MAGIC) st_state(g_cta.clc_failed_seen, 1);
  return false;
}
// clusterlaunchcontrol.query_cancel.get_first_ctaid::x
__device__ __forceinline__ uint32_t clc_first_ctaid_x(uint64_t lo, uint64_t) {
  if (clc_word0(lo) != CLC_OK) fail(RULE_CLC_CTAID_OF_FAILED);
  return uint32_t(lo >> 32);
}

// __syncthreads() in an emulated kernel (the macro below): a barrier is both a publication and a
// synchronisation for the tcgen05 fence rules.
__device__ __forceinline__ void syncthreads() {
  on_barrier_arrive(SYNC_BARRIER);
  __syncthreads();
  on_barrier_waited(SYNC_BARRIER);
}

}  // namespace
}  // namespace gemm::tc5emu

// The kernels call __syncthreads() (a built-in function, not a macro) directly; in the device passes that
// emulate, it is the emulator's hooked barrier above. Everything after this line in the translation unit sees it.
#if defined(GEMM_TC5_EMULATED)
#define __syncthreads() ::gemm::tc5emu::syncthreads()
#endif

// ---- the tc5:: wrappers of common/tcgen05.cuh, same names and signatures, routed to the emulator ----
#if defined(GEMM_TC5_EMULATED)
namespace gemm::tc5 {
template <int CTA_GROUP = 1>
__device__ __forceinline__ void tmem_alloc(uint32_t* slot, uint32_t columns) {
  tc5emu::alloc<CTA_GROUP>(slot, columns);
}
template <int CTA_GROUP = 1>
__device__ __forceinline__ void tmem_relinquish_alloc_permit() {
  tc5emu::relinquish_alloc_permit<CTA_GROUP>();
}
template <int CTA_GROUP = 1>
__device__ __forceinline__ void tmem_dealloc(uint32_t taddr, uint32_t columns) {
  tc5emu::dealloc<CTA_GROUP>(taddr, columns);
}
template <int CTA_GROUP = 1>
__device__ __forceinline__ void mma_f16_ss(uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc, uint32_t idesc,
                                           uint32_t accumulate) {
  tc5emu::mma_f16<CTA_GROUP>(d_tmem, a_desc, b_desc, idesc, accumulate);
}
__device__ __forceinline__ void commit(uint64_t* bar) { tc5emu::commit(tc5emu::smem_u32(bar), 0, false); }
template <int CTA_GROUP>
__device__ __forceinline__ void commit_multicast(uint64_t* bar, uint16_t cta_mask) {
  static_assert(CTA_GROUP == 1 || CTA_GROUP == 2, "cta_group::1 or ::2");
  tc5emu::commit(tc5emu::smem_u32(bar), cta_mask, true, CTA_GROUP);
}
__device__ __forceinline__ void tma_load_3d_cta_group2(void* dst, const CUtensorMap* map,
                                                       uint32_t bar_cluster_addr, int c0, int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
      "[%0], [%1, {%2, %3, %4}], [%5];" ::"r"(tc5emu::smem_u32(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(tc5emu::tma_barrier(bar_cluster_addr))
      : "memory");
}
__device__ __forceinline__ void tma_load_2d_cta_group2(void* dst, const CUtensorMap* map,
                                                       uint32_t bar_cluster_addr, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
      "[%0], [%1, {%2, %3}], [%4];" ::"r"(tc5emu::smem_u32(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(tc5emu::tma_barrier(bar_cluster_addr))
      : "memory");
}
__device__ __forceinline__ void ld_32x32b_x8(uint32_t taddr, float (&v)[8]) { tc5emu::ld_32x32b<8>(taddr, v); }
__device__ __forceinline__ void ld_32x32b_x32(uint32_t taddr, float (&v)[32]) {
  tc5emu::ld_32x32b<32>(taddr, v);
}
__device__ __forceinline__ void mma_mxf8f6f4_block32(uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc,
                                                     uint32_t idesc, uint32_t sfa_tmem, uint32_t sfb_tmem,
                                                     uint32_t accumulate) {
  tc5emu::mma_mx<2>(d_tmem, a_desc, b_desc, idesc, sfa_tmem, sfb_tmem, accumulate);
}
__device__ __forceinline__ void cp_32x128b_warpx4(uint32_t taddr, uint64_t src_desc) {
  tc5emu::cp_32x128b_warpx4<2>(taddr, src_desc);
}
__device__ __forceinline__ void tma_load_4d_cta_group2(void* dst, const CUtensorMap* map, uint32_t bar_cluster,
                                                       int c0, int c1, int c2, int c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
      "[%0], [%1, {%2, %3, %4, %5}], [%6];" ::"r"(tc5emu::smem_u32(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(tc5emu::tma_barrier(bar_cluster))
      : "memory");
}
__device__ __forceinline__ void tma_load_4d_multicast_cta_group2(void* dst, const CUtensorMap* map,
                                                                 uint32_t bar_cluster, uint16_t cta_mask, int c0,
                                                                 int c1, int c2, int c3) {
  tc5emu::tma_4d_multicast(tc5emu::smem_u32(dst), map, bar_cluster, cta_mask, c0, c1, c2, c3);
}
__device__ __forceinline__ void wait_ld() { tc5emu::wait_ld(); }
__device__ __forceinline__ void fence_before_thread_sync() { tc5emu::fence_before_thread_sync(); }
__device__ __forceinline__ void fence_after_thread_sync() { tc5emu::fence_after_thread_sync(); }
}  // namespace gemm::tc5
#endif  // GEMM_TC5_EMULATED

#endif  // GEMM_TCGEN05_EMULATE
