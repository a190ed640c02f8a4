// tcgen05_queue.h: the tcgen05 emulator's queue of asynchronous operations (the late and strict schedules of
// common/tcgen05_emu.h), as small functions the emulator's device code (common/tcgen05_emu.cuh) and a CPU
// test (tests/test_tcgen05_queue.cpp) share.
//
// A thread's tcgen05.mma (both kinds), tcgen05.cp and tcgen05.commit are queued in issue order, per CTA, in a
// ring of QUEUE_CAP entries: entry i (a count that only grows while the queue holds anything) at slot
// i % QUEUE_CAP; [head, tail) are issued and not yet executed. What the strict schedule asks of the queue:
//  - which queued commits a thread's wait on an mbarrier is waiting for (commit_arrives_on, last_commit_on):
//    those that arrive on that barrier of the waiter's CTA. Everything up to and including the last of them
//    runs when the wait begins, and a commit queued for it later runs when it is queued (PTX ISA
//    "tcgen05.commit": the arrival tracks every earlier asynchronous tcgen05 operation of the issuing
//    thread);
//  - which queued MMA or cp writes TMEM columns a tcgen05.ld reads (writes_columns), and which commit issued
//    after it would have made the read safe (covering_commit).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define TC5_QUEUE_HD __host__ __device__
#else
#define TC5_QUEUE_HD
#endif

namespace gemm::tc5queue {

// One queued asynchronous operation.
struct QueueEntry {
  uint32_t op;  // OP_* below
  uint32_t d;   // MMA, cp: TMEM address; commit: barrier's shared::cta address (the same offset in every CTA)
  uint64_t a, b;        // MMA: shared-memory descriptors of A and B; cp: of the source (a)
  uint32_t idesc, arg;  // MMA: accumulate; multicast commit: CTA mask
  uint32_t sfa, sfb;    // block-scaled MMA: the scales' TMEM addresses
  uint32_t issuer;  // the issuing CTA: %smid | %cluster_ctarank << 16 (who runs it may be the pair's peer)
  uint32_t block;   // the issuing CTA's linear block index + 1 (the owner of its TMEM allocation)
};
// The operations; the MMA and cp codes + cta_group - 1.
enum : uint32_t { OP_MMA_F16 = 1, OP_COMMIT = 3, OP_COMMIT_MULTICAST = 4, OP_MMA_MX = 5, OP_CP = 7 };

TC5_QUEUE_HD constexpr bool is_commit(uint32_t op) {
  return op == OP_COMMIT || op == OP_COMMIT_MULTICAST;
}
TC5_QUEUE_HD constexpr bool is_cp(uint32_t op) {
  return op == OP_CP || op == OP_CP + 1;
}
TC5_QUEUE_HD constexpr bool is_mma(uint32_t op) {
  return op == OP_MMA_F16 || op == OP_MMA_F16 + 1 || op == OP_MMA_MX || op == OP_MMA_MX + 1;
}
// An MMA or cp: it writes TMEM.
TC5_QUEUE_HD constexpr bool writes_tmem(uint32_t op) {
  return is_mma(op) || is_cp(op);
}
// cta_group of an MMA or cp (1 or 2); 0 for a commit.
TC5_QUEUE_HD constexpr int cta_group_of(uint32_t op) {
  return is_cp(op)    ? int(op - OP_CP) + 1
         : is_mma(op) ? int(op - (op >= OP_MMA_MX ? OP_MMA_MX : OP_MMA_F16)) + 1
                      : 0;
}

// The TMEM columns an MMA or cp writes, from its address's column: an MMA its N (instruction descriptor bits
// 17-22, N >> 3, in both kinds), in every lane of the CTA (and of the peer's, cta_group::2: the emulated
// shapes put 128 rows of D in each CTA); a cp .32x128b.warpx4 4 columns of all 128 lanes.
TC5_QUEUE_HD constexpr uint32_t columns_written(uint32_t op, uint32_t idesc) {
  return is_cp(op) ? 4u : is_mma(op) ? ((idesc >> 17) & 0x3Fu) << 3 : 0u;
}
// Does entry `e` write any of columns [col, col + n) of the TMEM of CTA `reader_rank`? `issuer_rank` is the
// CTA whose queue holds it: cta_group::1 writes only that CTA's TMEM, cta_group::2 also the pair's other
// CTA's.
TC5_QUEUE_HD constexpr bool writes_columns(const QueueEntry& e, uint32_t issuer_rank, uint32_t reader_rank,
                                           uint32_t col, uint32_t n) {
  if (!writes_tmem(e.op)) return false;
  if (reader_rank != issuer_rank && !(cta_group_of(e.op) == 2 && (reader_rank ^ 1u) == issuer_rank))
    return false;
  const uint32_t first = e.d & 0xFFFFu, count = columns_written(e.op, e.idesc);
  return first < col + n && col < first + count;
}
// Does commit `e`, queued by CTA `issuer_rank`, arrive on the barrier at shared::cta address `bar` of CTA
// `waiter_rank`? A plain commit arrives on its own CTA's barrier; a multicast one on the barrier at the same
// offset in every CTA of its mask.
TC5_QUEUE_HD constexpr bool commit_arrives_on(const QueueEntry& e, uint32_t issuer_rank, uint32_t bar,
                                              uint32_t waiter_rank) {
  return e.d == bar && ((e.op == OP_COMMIT && waiter_rank == issuer_rank) ||
                        (e.op == OP_COMMIT_MULTICAST && ((e.arg >> waiter_rank) & 1u) != 0));
}
// Threads waiting on a barrier are counted per barrier_index (tcgen05_emu.cuh, CtaState::waiting): 8-byte
// granules of its address modulo 32. A kernel's barriers are neighbours in shared memory, so they rarely
// share an index; two that do only make a commit for one run when a thread waits on the other (earlier than
// it must, never a false trap nor a wait that does not end).
TC5_QUEUE_HD constexpr uint32_t barrier_index(uint32_t bar) {
  return (bar >> 3) & 31u;
}

// The first entry in [head, tail) for which `pred` holds, or tail. `q` is the ring (QUEUE_CAP entries).
template <typename Entry, typename Pred>
TC5_QUEUE_HD uint32_t find_first(const Entry* q, uint32_t cap, uint32_t head, uint32_t tail, Pred pred) {
  for (uint32_t i = head; i != tail; ++i)
    if (pred(q[i % cap])) return i;
  return tail;
}
// The first commit queued after entry `i` (the one that tracks it, PTX ISA "tcgen05.commit"), or tail if the
// issuing thread has not committed since.
template <typename Entry>
TC5_QUEUE_HD uint32_t covering_commit(const Entry* q, uint32_t cap, uint32_t i, uint32_t tail) {
  return find_first(q, cap, i + 1, tail, [](const Entry& e) { return is_commit(e.op); });
}
// The last commit in [head, tail) that arrives on barrier `bar` of CTA `waiter_rank`, or tail: what a thread
// that starts to wait on it runs up to (every commit queued for the barrier by then).
template <typename Entry>
TC5_QUEUE_HD uint32_t last_commit_on(const Entry* q, uint32_t cap, uint32_t head, uint32_t tail,
                                     uint32_t issuer_rank, uint32_t bar, uint32_t waiter_rank) {
  uint32_t last = tail;
  for (uint32_t i = head; i != tail; ++i)
    if (commit_arrives_on(q[i % cap], issuer_rank, bar, waiter_rank)) last = i;
  return last;
}

}  // namespace gemm::tc5queue
