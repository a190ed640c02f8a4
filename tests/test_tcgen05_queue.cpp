// The tcgen05 emulator's queue (common/tcgen05_queue.h), as the strict schedule reads it: which commit a
// waiter waits for, which queued MMA or cp a tcgen05.ld would read before it has run, and which commit would
// have made that read safe. Queues are written as the kernels issue (v4: one CTA; v5-v8: the pair's even CTA
// with multicast commits; MXFP8: tcgen05.cp before the block-scaled MMAs), in a ring that wraps.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "common/tcgen05_queue.h"

using namespace gemm::tc5queue;

namespace {

constexpr uint32_t CAP = 8;  // a small ring, so that the tests wrap it

// kind::f16 instruction descriptor bits for N (17-22: N >> 3); the rest does not matter here.
constexpr uint32_t idesc_n(uint32_t n) {
  return (n >> 3) << 17;
}

QueueEntry mma(uint32_t col, uint32_t n, int cta_group = 1) {
  return QueueEntry{OP_MMA_F16 + uint32_t(cta_group - 1), col, 0, 0, idesc_n(n), 1, 0, 0, 0, 0};
}
QueueEntry mma_mx(uint32_t col, uint32_t n) {
  return QueueEntry{OP_MMA_MX + 1, col, 0, 0, idesc_n(n), 1, 0, 0, 0, 0};
}
QueueEntry cp(uint32_t col) {
  return QueueEntry{OP_CP + 1, col, 0, 0, 0, 0, 0, 0, 0, 0};
}
QueueEntry commit(uint32_t bar) {
  return QueueEntry{OP_COMMIT, bar, 0, 0, 0, 0, 0, 0, 0, 0};
}
QueueEntry commit_multicast(uint32_t bar, uint32_t mask) {
  return QueueEntry{OP_COMMIT_MULTICAST, bar, 0, 0, 0, mask, 0, 0, 0, 0};
}

// A ring of CAP entries holding `entries` as [head, head + size).
struct Ring {
  std::vector<QueueEntry> slots = std::vector<QueueEntry>(CAP);
  uint32_t head = 0, tail = 0;
  Ring(uint32_t start, const std::vector<QueueEntry>& entries) : head(start), tail(start) {
    for (const QueueEntry& e : entries) slots[tail++ % CAP] = e;
  }
  uint32_t first_commit_on(uint32_t issuer, uint32_t bar, uint32_t waiter) const {
    return find_first(slots.data(), CAP, head, tail,
                      [&](const QueueEntry& e) { return commit_arrives_on(e, issuer, bar, waiter); });
  }
  uint32_t first_write(uint32_t issuer, uint32_t reader, uint32_t col, uint32_t n) const {
    return find_first(slots.data(), CAP, head, tail,
                      [&](const QueueEntry& e) { return writes_columns(e, issuer, reader, col, n); });
  }
};

}  // namespace

TEST_CASE("the operations: which write TMEM and their cta_group and the columns they write") {
  CHECK(writes_tmem(mma(0, 128).op));
  CHECK(writes_tmem(mma(0, 256, 2).op));
  CHECK(writes_tmem(mma_mx(0, 256).op));
  CHECK(writes_tmem(cp(384).op));
  CHECK_FALSE(writes_tmem(commit(0x40).op));
  CHECK_FALSE(writes_tmem(commit_multicast(0x40, 3).op));
  CHECK(cta_group_of(mma(0, 128).op) == 1);
  CHECK(cta_group_of(mma(0, 256, 2).op) == 2);
  CHECK(cta_group_of(mma_mx(0, 256).op) == 2);
  CHECK(cta_group_of(cp(384).op) == 2);
  CHECK(cta_group_of(commit(0).op) == 0);
  CHECK(columns_written(OP_MMA_F16, idesc_n(120)) == 120);  // v2a's N = 120 case: steps of 8
  CHECK(columns_written(OP_MMA_MX + 1, idesc_n(256)) == 256);
  CHECK(columns_written(OP_CP + 1, 0xFFFFFFFFu) == 4);  // a cp's descriptor says nothing of its columns
  CHECK(columns_written(OP_COMMIT, idesc_n(256)) == 0);
}

TEST_CASE("a tcgen05.ld overlaps a queued MMA or cp exactly where their columns meet") {
  const QueueEntry acc1 = mma(128, 128);            // v6's second accumulator: columns [128, 256)
  CHECK_FALSE(writes_columns(acc1, 0, 0, 0, 128));  // the first accumulator: no overlap
  CHECK_FALSE(writes_columns(acc1, 0, 0, 120, 8));  // [120, 128): touches, does not overlap
  CHECK(writes_columns(acc1, 0, 0, 120, 9));        // [120, 129)
  CHECK(writes_columns(acc1, 0, 0, 255, 1));
  CHECK_FALSE(writes_columns(acc1, 0, 0, 256, 32));
  // The lane field of the MMA's address is not a column (the emulated MMAs write all 128 lanes).
  CHECK(writes_columns(mma((0u << 16) | 64, 64), 0, 0, 100, 8));
  // MXFP8: scale copies at 384 + 12 s never meet the accumulators' [0, 384).
  CHECK_FALSE(writes_columns(cp(384), 0, 0, 352, 32));
  CHECK(writes_columns(cp(384 + 12), 0, 0, 396, 1));
  CHECK_FALSE(writes_columns(cp(384 + 12), 0, 0, 400, 8));
}

TEST_CASE("cta_group::2 work of the even CTA writes the odd CTA's TMEM but cta_group::1 only its own") {
  const QueueEntry pair = mma(0, 256, 2), alone = mma(0, 128, 1);
  CHECK(writes_columns(pair, 0, 0, 0, 8));
  CHECK(writes_columns(pair, 0, 1, 0, 8));        // the odd CTA reads what the even CTA's pair MMA writes
  CHECK_FALSE(writes_columns(pair, 0, 2, 0, 8));  // another pair of a larger cluster: not this one
  CHECK(writes_columns(pair, 2, 3, 0, 8));
  CHECK_FALSE(writes_columns(alone, 0, 1, 0, 8));  // v8's CTA alone in a cluster of two
  CHECK(writes_columns(cp(384), 0, 1, 384, 4));
}

TEST_CASE("a wait is for the first queued commit that arrives on its barrier in the waiter's CTA") {
  const uint32_t full0 = 0x400, done0 = 0x438, done1 = 0x440, mainloop = 0x470;
  // v4: the MMA thread queued two K tiles and the mainloop commit; the producer waits on stage 0's done.
  const Ring q(0, {mma(0, 128), mma(0, 128), commit(done0), mma(0, 128), commit(done1), commit(mainloop)});
  CHECK(q.first_commit_on(0, done0, 0) == 2);
  CHECK(q.first_commit_on(0, done1, 0) == 4);
  CHECK(q.first_commit_on(0, mainloop, 0) == 5);
  CHECK(q.first_commit_on(0, full0, 0) == q.tail);  // the TMA's barrier: no commit arrives on it
  // A plain commit arrives only in the issuing CTA.
  CHECK(q.first_commit_on(0, done0, 1) == q.tail);
  // The same barrier twice (a ring of one stage, v1): the first in issue order.
  const Ring laps(0, {mma(0, 128), commit(done0), mma(0, 128), commit(done0)});
  CHECK(laps.first_commit_on(0, done0, 0) == 1);
}

TEST_CASE("a multicast commit arrives in every CTA of its mask at the barrier's offset in each") {
  const uint32_t done = 0x438, tmem_full = 0x480;
  const Ring q(
      0, {mma(0, 256, 2), commit_multicast(done, 0b11), mma(0, 256, 2), commit_multicast(tmem_full, 0b11)});
  CHECK(q.first_commit_on(0, done, 0) == 1);
  CHECK(q.first_commit_on(0, done, 1) == 1);  // the odd CTA's producer finds it in the even CTA's queue
  CHECK(q.first_commit_on(0, tmem_full, 1) == 3);
  const Ring only_peer(0, {mma(0, 256, 2), commit_multicast(done, 0b10)});
  CHECK(only_peer.first_commit_on(0, done, 0) == only_peer.tail);
  CHECK(only_peer.first_commit_on(0, done, 1) == 1);
}

TEST_CASE("the commit that would have made a read safe is the first one queued after the write") {
  const uint32_t done0 = 0x438, tmem_full = 0x480;
  // MXFP8's K tile: three copies, the MMAs, the stage's commit; then the tile's commit.
  const Ring q(3, {cp(384), cp(388), cp(392), mma_mx(0, 256), mma_mx(0, 256), commit_multicast(done0, 3),
                   commit_multicast(tmem_full, 3)});
  const uint32_t w = q.first_write(0, 1, 64, 32);
  REQUIRE(w == q.head + 3);
  CHECK(q.slots[covering_commit(q.slots.data(), CAP, w, q.tail) % CAP].d == done0);
  // A write with no commit after it yet.
  const Ring open(6, {mma(0, 128), commit(done0), mma(0, 128)});
  const uint32_t last = open.first_write(0, 0, 0, 8);
  CHECK(last == open.head);
  CHECK(covering_commit(open.slots.data(), CAP, last, open.tail) == open.head + 1);
  CHECK(covering_commit(open.slots.data(), CAP, open.head + 2, open.tail) == open.tail);
}

TEST_CASE("the ring wraps: entries are found by their count whatever the slot") {
  const uint32_t done = 0x438;
  for (uint32_t start : {0u, 5u, 7u, CAP * 3 + 6, 0xFFFFFFFEu}) {
    INFO("head " << start);
    const Ring q(start, {mma(0, 128), commit(done), mma(0, 128), commit(done), mma(128, 128)});
    CHECK(q.first_commit_on(0, done, 0) == start + 1);
    CHECK(last_commit_on(q.slots.data(), CAP, q.head, q.tail, 0, done, 0) == start + 3);
    CHECK(last_commit_on(q.slots.data(), CAP, start + 4, q.tail, 0, done, 0) == q.tail);
    CHECK(q.first_write(0, 0, 200, 8) == start + 4);
    CHECK(q.first_write(0, 0, 300, 8) == q.tail);
  }
}

TEST_CASE("a wait begun runs every commit queued for its barrier by then and only those") {
  const uint32_t done0 = 0x438, done1 = 0x440, tmem_full = 0x480;
  // v1's one stage: the MMA thread's own wait on mma_done_bar finds this K tile's commit.
  const Ring v1(0, {mma(0, 128), mma(0, 128), commit(done0)});
  CHECK(last_commit_on(v1.slots.data(), CAP, v1.head, v1.tail, 0, done0, 0) == 2);
  // A pair's epilogue in the odd CTA waits on tmem_full_bar: the even CTA's queue holds the tile's commits.
  const Ring pair(0, {mma(0, 256, 2), commit_multicast(done0, 3), mma(0, 256, 2), commit_multicast(done1, 3),
                      commit_multicast(tmem_full, 3), mma(256, 256, 2)});
  CHECK(last_commit_on(pair.slots.data(), CAP, pair.head, pair.tail, 0, tmem_full, 1) == 4);
  CHECK(last_commit_on(pair.slots.data(), CAP, pair.head, pair.tail, 0, done1, 0) == 3);
  // The next tile's MMA after it stays queued.
  CHECK(pair.first_write(0, 1, 256, 8) == 5);
}

TEST_CASE(
    "waiters are counted per barrier index: a kernel's neighbouring barriers get indices of their own") {
  // v4's fifteen barriers, 8 bytes apart: fifteen indices.
  uint32_t seen = 0;
  for (uint32_t i = 0; i < 15; ++i) {
    CHECK((seen & (1u << barrier_index(0x400 + 8 * i))) == 0);
    seen |= 1u << barrier_index(0x400 + 8 * i);
  }
  CHECK(barrier_index(0x400) ==
        barrier_index(0x400 + 256));  // 256 bytes apart: shared (earlier, never wrong)
  CHECK(barrier_index(0xFFF8) < 32);
}
