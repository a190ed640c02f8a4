// tcgen05_emu.h: the host side of the tcgen05 emulator (common/tcgen05_emu.cuh), which runs the unchanged
// sm_100a kernel source on a Hopper GPU (sm_90a): TMEM lives in global memory, one 128 x 512 x 32-bit array
// per SM; the MMA is done by the thread that issues it; everything else the kernels use (TMA, mbarriers,
// clusters, distributed shared memory, elect.sync) is Hopper's own.
//
// A reader never needs this file to understand a stage. It exists so that the stages' Blackwell kernels,
// which no GPU here can run, execute under real concurrency and are checked against cuBLAS: their indices,
// loops, predicates, barriers, phases, schedule, TMA coordinates and epilogue. It proves nothing about
// timing, nor about a reading of the PTX ISA that the emulator shares with the kernels.
//
// Build: each stage's sm_100a file is compiled a second time for sm_90a with GEMM_TCGEN05_EMULATE=1
// (CMakeLists.txt, add_stage). Use: `matmul_vN --emulate` (common/harness.cu), tests/test_tcgen05_emu_gpu.cu.
#pragma once

#include <cstdint>
#include <string>

namespace gemm::tc5emu {

// When an asynchronous tcgen05.mma reads its shared-memory operands and writes TMEM. PTX ISA "tcgen05
// Memory Consistency Model": anywhere between its issue and the arrival of the tcgen05.commit that tracks
// it. The emulator offers both ends of that window, and the last point a thread can tell:
//  - Eager:  at issue. A kernel that reads TMEM too early, or reuses a stage too early, may still pass.
//  - Late:   as late as the issuing thread allows: MMAs, copies and commits are queued and done just before
//            that thread next waits on an mbarrier, arrives at a cluster or named barrier, announces bytes on a
//            peer's barrier or executes tcgen05.fence::before_thread_sync, or when 64 are queued (not at
//            __syncthreads or a plain mbarrier arrive). A dealloc while any are queued traps. A kernel that
//            lets TMA overwrite a stage before the commit that frees it arrives now reads the new bytes.
//  - Strict: as late as the memory model allows: queued as under Late, and run only when a thread (any thread
//            of the CTA, or of the pair's other CTA for a multicast commit) waits on the barrier a queued
//            commit arrives on: a thread that begins such a wait runs everything up to and including the
//            commits queued for it, with their arrivals; a commit queued while a thread already waits on its
//            barrier runs at once. Also, where the CTA must move on without a wait: its cluster barrier runs queued
//            commits that track nothing pending (arrivals no one waited for), and a dealloc with MMAs or copies
//            still queued traps. Not at the issuing thread's own waits, barriers or fences. A tcgen05.ld of
//            columns a queued MMA or cp will write traps (RULE_LD_PENDING_WRITE): a read ordered after the
//            MMAs' issue (a CTA barrier) but not after their commit's arrival.
enum class Schedule : uint32_t { Eager = 0, Late = 1, Strict = 2 };
inline const char* schedule_name(Schedule s) {
  return s == Schedule::Eager ? "eager" : s == Schedule::Late ? "late" : "strict";
}

// The ISA rules the emulator enforces: a kernel that breaks one traps, and trap_report() names it.
enum Rule : uint32_t {
  RULE_NONE = 0,
  RULE_NOT_CONVERGED,       // a .sync.aligned tcgen05 instruction from a warp that is not converged
  RULE_ALLOC_SIZE,          // tcgen05.alloc columns not a power of two in 32..512
  RULE_ALLOC_TIMEOUT,       // the SM's TMEM stayed too full for 2 s (a CTA that exits holding TMEM?)
  RULE_PAIR_TIMEOUT,        // cta_group::2: the peer CTA's warp did not allocate with this one within 2 s
  RULE_DEALLOC_WARP,        // dealloc by a warp other than the allocating one
  RULE_DEALLOC_RANGE,       // dealloc of columns other than the allocation
  RULE_EXIT_HOLDING,        // (host) a kernel returned with TMEM still allocated
  RULE_LANE_QUARTER,        // tcgen05.ld outside the warp's lane quarter 32 * (warp % 4) .. + 31
  RULE_OUTSIDE_ALLOCATION,  // a TMEM address outside this CTA's allocation (MMA, ld)
  RULE_IDESC_RESERVED,      // reserved instruction-descriptor bits set, or a field value not emulated
  RULE_IDESC_SHAPE,         // an M / N the kind and cta_group do not allow (PTX ISA "Matrix Shape" table)
  RULE_SMEM_DESC,           // shared-memory descriptor: version bits, reserved bits, base offset, swizzle code
  RULE_SMEM_ALIGN,          // a swizzled operand not aligned to its swizzle pattern
  RULE_CTA_GROUP_RANK,      // a cta_group::2 MMA or commit issued from the odd CTA of the pair (not emulated)
  RULE_NO_CLUSTER_PAIR,     // cta_group::2 in a launch whose clusters are not pairs
  RULE_QUEUE,               // (Late) MMAs queued by one thread, then issued by another of the same CTA
  RULE_TMA_FORWARD,         // a cta_group::2 TMA into a peer's barrier whose bytes this thread did not announce
  RULE_NOT_ENABLED,         // an emulated kernel launched before tc5emu::enable()
  RULE_CP_ADDRESS,          // tcgen05.cp .warpx4 to an address whose lane field is not 0
  RULE_TMA_UNKNOWN_MAP,     // a multicast cta_group::2 TMA through a tensor map the host never noted
  RULE_SMEM_RANGE,          // an MMA or tcgen05.cp operand read outside the CTA's dynamic shared memory
  RULE_CLC_AFTER_FAIL,      // clusterlaunchcontrol.try_cancel from a CTA that has observed a failed one
  RULE_CLC_CTAID_OF_FAILED, // query_cancel.get_first_ctaid of a response that canceled nothing
  RULE_CLC_RESPONSE,        // query_cancel of 16 bytes that no emulated try_cancel wrote
  RULE_CLC_GRID,            // a grid of more clusters than the emulator's CLC table holds (CLC_SLOTS)
  RULE_LD_NOT_WAITED,       // tcgen05.ld not completed by tcgen05.wait::ld before the thread publishes or frees
  RULE_EMULATOR_LIMIT,      // not an ISA rule: a use beyond the emulator's tables (values: which, see fail sites)
  RULE_FENCE_AFTER,         // an async tcgen05 op after a thread synchronisation, no fence::after_thread_sync
                            // between (values: the synchronisation 1 mbarrier wait, 2 barrier, 3 cluster barrier;
                            // the op 1 mma, 2 cp, 3 ld)
  RULE_FENCE_BEFORE,        // an arrive or barrier after the thread's uncommitted mma/cp or its ld, without
                            // fence::before_thread_sync between (values: the arrive as above; 2 mma/cp, 4 ld)
  RULE_SHAPE_NOT_EMULATED,  // not an ISA violation: a legal M the emulator does not emulate (values: M, N)
  RULE_DEALLOC_PENDING,     // (Late, Strict) tcgen05.dealloc while MMAs or copies of this CTA are still queued
  RULE_TMEM_WAR,            // an MMA or tcgen05.cp writes TMEM cells another warp read, not ordered after that
                            // warp's release (values: column | quarter << 12 | CTA rank << 16; the reading warp,
                            // CTA rank * 16 + warp id)
  RULE_LD_PENDING_WRITE,    // (Strict) tcgen05.ld of TMEM columns a queued MMA or cp of the CTA (or the pair's)
                            // will write: no wait on the commit that tracks it (values: column | quarter << 12
                            // | issuing CTA rank << 16; the commit's barrier address, or 0xFFFFFFFF: none yet)
  RULE_COUNT
};
#if defined(__CUDACC__)
__host__ __device__
#endif
inline const char* rule_text(uint32_t rule) {
  switch (rule) {
    case RULE_NOT_CONVERGED: return "a .sync.aligned tcgen05 instruction from a warp that is not converged";
    case RULE_ALLOC_SIZE: return "tcgen05.alloc: columns must be a power of two in 32..512";
    case RULE_ALLOC_TIMEOUT: return "tcgen05.alloc: not enough free TMEM on this SM for 2 s (a CTA exited holding TMEM?)";
    case RULE_PAIR_TIMEOUT: return "tcgen05.alloc.cta_group::2: the peer CTA's warp did not allocate within 2 s";
    case RULE_DEALLOC_WARP: return "tcgen05.dealloc: only the warp that allocated may free";
    case RULE_DEALLOC_RANGE: return "tcgen05.dealloc: address and columns must be the allocation's";
    case RULE_EXIT_HOLDING: return "a kernel exited holding TMEM (no tcgen05.dealloc)";
    case RULE_LANE_QUARTER: return "tcgen05.ld: a warp may access only TMEM lanes 32*(warp%4) .. +31";
    case RULE_OUTSIDE_ALLOCATION: return "a TMEM address outside this CTA's allocation";
    case RULE_IDESC_RESERVED: return "instruction descriptor: reserved bit set or field value not emulated";
    case RULE_IDESC_SHAPE: return "instruction descriptor: M/N not allowed for this kind and cta_group (PTX ISA "
                                  "\"Matrix Shape\" table)";
    case RULE_SHAPE_NOT_EMULATED: return "instruction descriptor: a legal shape the emulator does not emulate "
                                         "(cta_group::1 M = 64, cta_group::2 M = 128: 64 rows of D per CTA; "
                                         "block-scaled cta_group::1): not an ISA violation";
    case RULE_DEALLOC_PENDING: return "tcgen05.dealloc while MMAs or copies this CTA issued are still queued "
                                      "(late or strict schedule): TMEM freed before any thread waited for "
                                      "their commit";
    case RULE_LD_PENDING_WRITE: return "tcgen05.ld of TMEM columns that an MMA or tcgen05.cp still in flight will "
                                       "write (strict schedule): the reader did not wait on the mbarrier of the "
                                       "tcgen05.commit that tracks it (PTX ISA \"mbarrier based completion "
                                       "mechanism\", \"Non-pipelined instructions, different thread\"; a "
                                       "CTA barrier after the MMAs' issue is not enough)";
    case RULE_SMEM_DESC: return "shared-memory descriptor: version bits 46-48 must be 0b001, reserved bits 0, "
                                "base offset 0, swizzle code 0/2/4/6";
    case RULE_SMEM_ALIGN: return "shared-memory descriptor: swizzled operand not aligned to its swizzle pattern";
    case RULE_CTA_GROUP_RANK: return "cta_group::2 MMA/commit issued from the odd CTA of the pair (legal: not "
                                     "emulated, the emulator's pair starts at the even CTA)";
    case RULE_NO_CLUSTER_PAIR: return "cta_group::2 needs clusters of an even number of CTAs";
    case RULE_QUEUE: return "(late schedule) MMAs queued by one thread and issued by another of the CTA";
    case RULE_TMA_FORWARD: return "cta_group::2 TMA to a peer barrier without this thread's expect_tx on it";
    case RULE_NOT_ENABLED: return "emulated kernel launched before tc5emu::enable()";
    case RULE_CP_ADDRESS: return "tcgen05.cp .warpx4 writes all 128 lanes: the address's lane field must be 0";
    case RULE_SMEM_RANGE: return "shared-memory descriptor: the operand runs outside the CTA's dynamic shared memory";
    case RULE_CLC_AFTER_FAIL: return "clusterlaunchcontrol.try_cancel after this CTA observed a failed one "
                                     "(undefined)";
    case RULE_CLC_CTAID_OF_FAILED: return "clusterlaunchcontrol.query_cancel.get_first_ctaid of a response that "
                                          "canceled nothing (undefined)";
    case RULE_CLC_RESPONSE: return "clusterlaunchcontrol.query_cancel of 16 bytes no try_cancel wrote "
                                   "(read before its barrier completed?)";
    case RULE_CLC_GRID: return "Cluster Launch Control: more clusters in the grid than the emulator's table holds";
    case RULE_LD_NOT_WAITED: return "tcgen05.ld: loads not completed by tcgen05.wait::ld before this warp's "
                                    "tcgen05.fence::before_thread_sync, arrive, barrier or dealloc (PTX ISA "
                                    "\"Non-pipelined instructions, different thread\")";
    case RULE_EMULATOR_LIMIT: return "not emulated (an emulator limit, not an ISA violation): more than 16 "
                                     "tcgen05.ld of a warp pending before one wait::ld (value 1), a %warpid or "
                                     "%smid past the emulator's table (2), lanes loading into different local "
                                     "addresses (3)";
    case RULE_FENCE_AFTER: return "an asynchronous tcgen05 instruction (mma, cp, ld) after the thread's mbarrier "
                                  "wait, barrier or cluster barrier without tcgen05.fence::after_thread_sync in "
                                  "between (PTX ISA \"Specialized Inter-thread Synchronization for tcgen05\")";
    case RULE_FENCE_BEFORE: return "an mbarrier arrive, barrier or cluster barrier after the thread's tcgen05.ld, or "
                                   "its tcgen05.mma/cp not followed by tcgen05.commit, without "
                                   "tcgen05.fence::before_thread_sync in between (PTX ISA \"Specialized "
                                   "Inter-thread Synchronization for tcgen05\"; an arrive where a commit belongs?)";
    case RULE_TMEM_WAR: return "TMEM write-after-read: an MMA or tcgen05.cp writes TMEM cells another warp read "
                               "with tcgen05.ld, and that warp's release (tcgen05.wait::ld, "
                               "fence::before_thread_sync, arrive) does not happen before the issue (the issuer's "
                               "wait on that barrier, fence::after_thread_sync) (PTX ISA \"Non-pipelined "
                               "instructions, different thread\")";
    case RULE_TMA_UNKNOWN_MAP: return "multicast cta_group::2 TMA through a tensor map not built by "
                                      "make_tensor_map after tc5emu::enable()";
    default: return "unknown rule";
  }
}

// The late and strict schedules' queue (common/tcgen05_queue.h): QUEUE_CAP entries of QUEUE_ENTRY_BYTES per
// (SM, allocation granule). Late runs its queue when LATE_QUEUE_FLUSH are queued; strict runs the oldest entry
// early only when all QUEUE_CAP hold pending work (an emulator limit: every kernel of the series stays below).
constexpr uint32_t QUEUE_CAP = 128, QUEUE_ENTRY_BYTES = 48, LATE_QUEUE_FLUSH = 64;
// Tensor maps the host built (common/tma.cpp make_tensor_map) since enable(), with their box's bytes: the
// emulated multicast TMA needs the bytes of one copy, which a CUtensorMap does not say in a documented way.
constexpr uint32_t MAP_CAP = 1024, MAP_WORDS = 36;  // the map's 128 bytes, its box bytes, 16-byte aligned
// Cluster Launch Control: one record per cluster of the grid (which launch last touched it, and whether it
// runs or was canceled), and one cursor (the next cluster a try_cancel asks for).
constexpr uint32_t CLC_SLOTS = 1u << 20, CLC_STAGE_SLOTS = 1u << 18;
// Per warp slot of an SM (%smid, %warpid): the tcgen05.ld of the warp still waiting for their tcgen05.wait::ld
// (at most LD_PENDING_CAP), and each lane's tcgen05 fence state (tcgen05_emu.cuh, WarpState).
constexpr uint32_t WARP_SLOTS = 64, LD_PENDING_CAP = 16, WARP_STATE_BYTES = 1024;
// TMEM write-after-read (common/tmem_war.h): per SM, each TMEM cell's last reader (4 lane quarters x 512
// columns, 32 bits each); per SM, WAR_BAR_SLOTS barriers' vectors of warp epochs (an mbarrier, keyed by its
// CTA and shared address, or a CTA's barriers and cluster barrier), WAR_BAR_WORDS 32-bit words each: the
// owner (launch << 32 | block + 1, 0 = free), the address, a pad, and the vector of tmem_war::WARPS epochs.
constexpr uint32_t WAR_BAR_SLOTS = 128, WAR_BAR_WORDS = 36;
// What a tcgen05.ld's destination registers hold until its tcgen05.wait::ld: a quiet NaN whose bits differ
// from TMEM's poison (0xFFFFFFFF), so that a test can tell the two apart.
constexpr uint32_t LD_POISON_BITS = 0x7FFFFFFFu;

// What every emulated translation unit's device code reads (its own copy of a __device__ variable, set by
// enable() through the registry below).
struct Config {
  float* tmem           = nullptr;  // [num_sms][128 lanes][512 columns], poisoned (NaN) at enable()
  uint32_t* sm_alloc    = nullptr;  // [num_sms]: the allocated 32-column granules of each SM, a bitmask
  uint32_t* owner       = nullptr;  // [num_sms][16][2] per granule: owning block + 1; warp | columns << 8 |
                                    // (peer SM + 1) << 16 (cta_group::2) at the allocation's first granule
  uint32_t* pair_mail   = nullptr;  // [2 * pair_slots]: the cta_group::2 allocation exchange, per cluster
  uint32_t pair_slots   = 0;
  uint8_t* queue        = nullptr;  // Late, Strict: [num_sms * 16] per-CTA queues (slot: SM, allocation granule)
  uint32_t* maps        = nullptr;  // [MAP_CAP][MAP_WORDS]: tensor maps noted since enable(), see MAP_CAP
  uint32_t* map_count   = nullptr;  // [1]
  unsigned long long* clc_cluster = nullptr;  // [CLC_SLOTS]: launch tag << 32 | CLC_RUNNING or CLC_CANCELED
  unsigned long long* clc_cursor  = nullptr;  // [1]: launch tag << 32 | the next cluster index to ask for
  uint32_t* clc_stage             = nullptr;  // [CLC_STAGE_SLOTS][4]: responses on their way to shared memory
  uint8_t* warp_state             = nullptr;  // [num_sms][WARP_SLOTS][WARP_STATE_BYTES], zeroed at enable()
  uint32_t* tmem_readers          = nullptr;  // [num_sms][4][512]: each cell's last tcgen05.ld (tmem_war.h)
  uint32_t* war_bars              = nullptr;  // [num_sms][WAR_BAR_SLOTS][WAR_BAR_WORDS], zeroed at enable()
  uint32_t num_sms      = 0;
  Schedule schedule     = Schedule::Eager;
  uint32_t enabled      = 0;        // 0x7C5E0001 once enable() ran
  volatile uint32_t* report = nullptr;  // host-mapped: [0] rule, [1] smid, [2..4] block, [5] thread, [6..7] values
};

// Each emulated translation unit registers a function that copies a Config into its own __device__ copy
// (tcgen05_emu.cuh does this with a static object: no change in the kernel file).
using Setter = int (*)(const Config&);  // returns a cudaError_t
bool register_unit(Setter set);
// Number of registered units (0: the binary holds no emulated kernel).
int registered_units();

// Allocates the emulator's memory on first use, poisons TMEM, clears the allocation state and hands the
// configuration with `schedule` to every emulated unit. Returns "" or what went wrong. Call before launching.
std::string enable(Schedule schedule);
// Called by make_tensor_map (common/tma.cpp) for every map it builds: once enable() has run, the map and the
// bytes of its box are noted for the emulated multicast TMA. A no-op before.
void note_tensor_map(const void* map_128_bytes, uint32_t box_bytes);
// After a launch that failed: the rule an emulated kernel trapped on, with where; "" when none did.
std::string trap_report();
// After a launch that succeeded: "" if every SM's TMEM is free again, else the rule it breaks.
std::string check_all_freed();

}  // namespace gemm::tc5emu
