// test_tmem_war.cpp: the emulator's rule "TMEM write-after-read" (common/tmem_war.h), driven on the CPU with
// the kernels' own protocols, event by event: the bookkeeping the emulator keeps in global memory
// (common/tcgen05_emu.cuh) on plain arrays, through the same functions.
//  - v6 / v7 / v8's double-buffered accumulator of a CTA pair (4 epilogue warps per CTA: ld, wait::ld,
//    fence::before_thread_sync, an arrive on CTA 0's tmem_empty_bar, CTA 1's through mapa; the MMA thread
//    waits on it, fence::after_thread_sync, then the MMAs that write both CTAs' TMEM), in every order the
//    barriers allow: never traps; without the MMA thread's wait, or with a reader that skips its
//    fence::before_thread_sync, it must;
//  - the MXFP8 kernel's three regions (Y released before X / Z are read);
//  - a release that reaches the MMA thread through another warp (a chain of two barriers);
//  - the single-tile stages (v1-v5: one MMA, one read, teardown), CTA after CTA on the same SM: the next CTA's
//    allocation starts with no reads, so its MMAs never trap on its predecessor's.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "common/tmem_war.h"

namespace {

using gemm::tmem_war::warp_index;

constexpr uint32_t CTAS = 2, NUM_ACC = 2, EPI_WARP0 = 2, EPI_WARPS = 4, MMA_WARP = 1, WARPS_PER_CTA = 6;
// Barrier indices in the model: tmem_empty_bar[a] of CTA 0, the cluster barrier, a named barrier.
constexpr uint32_t EMPTY0 = 0, CLUSTER = 2, NAMED = 3, CHAIN = 4, BARRIERS = 8;
using Tracker = gemm::tmem_war::Tracker<CTAS, BARRIERS>;

// The setup both CTAs run: the allocation (no reads), fence::before_thread_sync, the cluster barrier,
// fence::after_thread_sync.
void setup(Tracker& t, uint32_t columns) {
  for (uint32_t c = 0; c < CTAS; ++c) t.alloc(c, 0, columns);
  for (uint32_t r = 0; r < CTAS; ++r)
    for (uint32_t w = 0; w < WARPS_PER_CTA; ++w) {
      t.fence_before_thread_sync(warp_index(r, w));
      t.arrive(warp_index(r, w), CLUSTER);
    }
  for (uint32_t r = 0; r < CTAS; ++r)
    for (uint32_t w = 0; w < WARPS_PER_CTA; ++w) t.wait(warp_index(r, w), CLUSTER);
}

enum class Breach { None, NoEmptyWait, NoFenceBefore };

// The pair's accumulator ring over `tiles` tiles of `n` columns, roles stepped in a random order that the
// barriers allow (seed), or (seed 0) each epilogue right after its tile's MMAs and before the next MMAs.
// Returns the number of MMAs that were not ordered after the reads of their columns.
int accumulator_ring(int tiles, uint32_t n, uint64_t seed, Breach breach) {
  auto t = std::make_unique<Tracker>();
  setup(*t, NUM_ACC * n);
  const uint32_t mma = warp_index(0, MMA_WARP);
  int mma_tile = 0;                                     // the next tile the MMA thread issues
  std::vector<int> epi_tile(CTAS * EPI_WARPS, 0);      // the next tile each epilogue warp reads
  std::vector<int> released(tiles + 2, 0);              // per tile: epilogue warps that released it
  int breaches = 0;
  std::mt19937_64 rng(seed);
  auto mma_step = [&] {  // one tile: wait for the accumulator, then its MMAs into both CTAs
    const int tile = mma_tile++;
    const uint32_t acc = uint32_t(tile) % NUM_ACC;
    if (breach != Breach::NoEmptyWait) t->wait(mma, EMPTY0 + acc);  // the first lap's wait passes at once
    for (uint32_t c = 0; c < CTAS; ++c)
      if (!t->write(mma, c, acc * n, n)) ++breaches;
  };
  auto epi_step = [&](uint32_t e) {  // one warp, one tile: read all columns, release
    const uint32_t rank = e / EPI_WARPS, warp = EPI_WARP0 + e % EPI_WARPS, w = warp_index(rank, warp);
    const int tile = epi_tile[e]++;
    const uint32_t acc = uint32_t(tile) % NUM_ACC;
    for (uint32_t col = 0; col < n; col += 8) t->ld(w, rank, warp % 4, acc * n + col, 8);  // ld, wait::ld
    if (!(breach == Breach::NoFenceBefore && e == 5)) t->fence_before_thread_sync(w);
    t->arrive(w, EMPTY0 + acc);  // CTA 1's warps through mapa: the same barrier
    ++released[size_t(tile)];
  };
  for (;;) {
    // what may run now: the MMA thread once its accumulator's previous tile was released by all 8 warps
    // (the breach ignores that), an epilogue warp once the MMAs of its tile were issued and committed
    std::vector<int> ready;
    if (mma_tile < tiles &&
        (mma_tile < int(NUM_ACC) || breach == Breach::NoEmptyWait ||
         released[size_t(mma_tile - int(NUM_ACC))] == int(CTAS * EPI_WARPS)))
      ready.push_back(-1);
    for (uint32_t e = 0; e < CTAS * EPI_WARPS; ++e)
      if (epi_tile[e] < tiles && epi_tile[e] < mma_tile) ready.push_back(int(e));
    if (ready.empty()) break;
    int pick = ready.back();  // in order: every epilogue warp of the issued tiles first, then the next MMAs
    if (seed != 0) pick = ready[size_t(rng() % ready.size())];
    if (pick < 0) mma_step();
    else epi_step(uint32_t(pick));
  }
  return breaches;
}

}  // namespace

TEST_CASE("TMEM write-after-read: the pair's accumulator ring never traps, in any order", "[tmem_war]") {
  for (const uint32_t n : {256u, 64u})  // v6 / v7 / v8's pair, v8n's narrow pair
    for (uint64_t seed = 0; seed < 200; ++seed) {
      INFO("N " << n << ", seed " << seed);
      CHECK(accumulator_ring(7, n, seed, Breach::None) == 0);
    }
}

TEST_CASE("TMEM write-after-read: an MMA thread that does not wait on tmem_empty_bar traps", "[tmem_war]") {
  // Each epilogue right after its tile: every MMA from the third tile on overwrites cells read and released
  // to a barrier the MMA thread never waited on.
  CHECK(accumulator_ring(6, 256, 0, Breach::NoEmptyWait) == 8);  // tiles 2-5, both CTAs
  // In random orders too. (An MMA that ran before every read it races with would not trap: the reads would
  // see its values, a wrong result. Over 6 tiles some read always comes first.)
  for (uint64_t seed = 1; seed <= 50; ++seed) CHECK(accumulator_ring(6, 256, seed, Breach::NoEmptyWait) > 0);
}

TEST_CASE("TMEM write-after-read: a reader without fence::before_thread_sync traps", "[tmem_war]") {
  // CTA 1's first epilogue warp (index 5 of the 8) releases without the fence: its arrive carries an epoch
  // that does not cover its reads.
  CHECK(accumulator_ring(6, 256, 0, Breach::NoFenceBefore) > 0);
  for (uint64_t seed = 1; seed <= 20; ++seed) CHECK(accumulator_ring(6, 256, seed, Breach::NoFenceBefore) > 0);
}

TEST_CASE("TMEM write-after-read: the MXFP8 kernel's regions (Y released first, then X or Z)", "[tmem_war]") {
  // Accumulator a spans columns [128 a, 128 a + 256): X = [0, 128), Y = [128, 256), Z = [256, 384). The MMA
  // thread waits on Y's barrier and on its accumulator's own region's (X or Z), then writes the accumulator.
  constexpr uint32_t Y = 1, REGION = 128;
  auto t = std::make_unique<Tracker>();
  setup(*t, 512);
  const uint32_t mma = warp_index(0, MMA_WARP);
  for (int tile = 0; tile < 6; ++tile) {
    const uint32_t acc = uint32_t(tile) % 2, own = 2 * acc;  // own region: X (barrier 0) or Z (barrier 2)
    t->wait(mma, EMPTY0 + Y);
    t->wait(mma, EMPTY0 + own);
    for (uint32_t c = 0; c < CTAS; ++c) CHECK(t->write(mma, c, acc * REGION, 2 * REGION));
    for (uint32_t r = 0; r < CTAS; ++r)
      for (uint32_t warp = EPI_WARP0; warp < EPI_WARP0 + EPI_WARPS; ++warp) {
        const uint32_t w = warp_index(r, warp), y_first = acc == 0 ? REGION : 0;
        t->ld(w, r, warp % 4, acc * REGION + y_first, REGION);
        t->fence_before_thread_sync(w);
        t->arrive(w, EMPTY0 + Y);
        t->ld(w, r, warp % 4, acc * REGION + (REGION - y_first), REGION);
        t->fence_before_thread_sync(w);
        t->arrive(w, EMPTY0 + own);
      }
  }
  // Writing Y after only the X / Z barrier of a tile whose Y was read later traps: the waits are each needed.
  auto u = std::make_unique<Tracker>();
  setup(*u, 512);
  for (uint32_t r = 0; r < CTAS; ++r)
    for (uint32_t warp = EPI_WARP0; warp < EPI_WARP0 + EPI_WARPS; ++warp) {
      const uint32_t w = warp_index(r, warp);
      u->ld(w, r, warp % 4, 0, REGION);  // X
      u->fence_before_thread_sync(w);
      u->arrive(w, EMPTY0 + 0);
      u->ld(w, r, warp % 4, REGION, REGION);  // Y, released to Y's barrier only
      u->fence_before_thread_sync(w);
      u->arrive(w, EMPTY0 + Y);
    }
  u->wait(mma, EMPTY0 + 0);
  CHECK(u->write(mma, 0, 0, REGION));
  CHECK_FALSE(u->write(mma, 0, REGION, REGION));
}

TEST_CASE("TMEM write-after-read: a release that reaches the MMA thread through another warp", "[tmem_war]") {
  // The 4 epilogue warps release to a named barrier; one warp then arrives for all of them on the barrier the
  // MMA thread waits on. What it learnt travels with its arrival (the whole clock is published).
  auto t = std::make_unique<Tracker>();
  setup(*t, 256);
  const uint32_t mma = warp_index(0, MMA_WARP), last = warp_index(0, EPI_WARP0 + EPI_WARPS - 1);
  for (uint32_t warp = EPI_WARP0; warp < EPI_WARP0 + EPI_WARPS; ++warp) {
    const uint32_t w = warp_index(0, warp);
    t->ld(w, 0, warp % 4, 0, 256);
    t->fence_before_thread_sync(w);
    t->arrive(w, NAMED);
  }
  for (uint32_t warp = EPI_WARP0; warp < EPI_WARP0 + EPI_WARPS; ++warp) t->wait(warp_index(0, warp), NAMED);
  t->arrive(last, CHAIN);
  CHECK_FALSE(t->write(mma, 0, 0, 256));  // not yet: the MMA thread has not waited
  t->wait(mma, CHAIN);
  CHECK(t->write(mma, 0, 0, 256));
}

TEST_CASE("TMEM write-after-read: single-tile stages, CTA after CTA on one SM", "[tmem_war]") {
  // v1-v5: the MMA writes the accumulator once, the epilogue reads it, the teardown's fence and barrier, the
  // dealloc. The next CTA on the same SM gets the same columns: its allocation carries no reads, and its
  // warps' clocks start at zero (a new owner of the warp slots).
  auto t = std::make_unique<Tracker>();  // the SM's TMEM records outlive each CTA
  for (int cta = 0; cta < 4; ++cta) {
    // a new CTA: new owners of the warp slots (clocks at zero), its own barriers
    std::fill(&t->rel[0], &t->rel[0] + gemm::tmem_war::WARPS, 0u);
    std::fill(&t->joined[0][0], &t->joined[0][0] + gemm::tmem_war::WARPS * gemm::tmem_war::WARPS, 0u);
    std::fill(&t->bar[0][0], &t->bar[0][0] + BARRIERS * gemm::tmem_war::WARPS, 0u);
    t->alloc(0, 0, 256);
    for (uint32_t w = 0; w < 4; ++w) {
      t->fence_before_thread_sync(w);
      t->arrive(w, CLUSTER);
    }
    for (uint32_t w = 0; w < 4; ++w) t->wait(w, CLUSTER);
    CHECK(t->write(0, 0, 0, 256));  // warp 0 issues
    for (uint32_t w = 0; w < 4; ++w) {
      t->ld(w, 0, w, 0, 256);
      t->fence_before_thread_sync(w);
      t->arrive(w, CLUSTER);
    }
  }
  // Without the reset at the allocation, the next CTA's first MMA would be checked against the last one's
  // reads (a false trap): the reset is what keeps it quiet.
  auto u = std::make_unique<Tracker>();
  u->ld(1, 0, 1, 0, 8);
  CHECK_FALSE(u->write(0, 0, 0, 8));
  u->alloc(0, 0, 32);
  CHECK(u->write(0, 0, 0, 8));
}

TEST_CASE("TMEM write-after-read: the record and the check", "[tmem_war]") {
  using namespace gemm::tmem_war;
  const uint32_t rec = read_record(7, 4);
  CHECK(record_read(rec));
  CHECK(record_reader(rec) == 7);
  CHECK(record_epoch(rec) == 5);
  CHECK_FALSE(record_read(0));
  CHECK(write_ordered(0, 3, 0));          // never read
  CHECK(write_ordered(rec, 7, 0));        // the reader itself
  CHECK_FALSE(write_ordered(rec, 3, 4));  // the release before the read
  CHECK(write_ordered(rec, 3, 5));        // the release that covers it
  CHECK(record_epoch(read_record(0, EPOCH_MAX + 10)) == EPOCH_MAX);
  CHECK(warp_index(1, 5) == 21);
  CHECK(warp_index(2, 5) == 5);  // a third CTA shares the first's indices (coarser, never a false trap)
  CHECK(published(3, 4, 4, 9) == 9);
  CHECK(published(3, 4, 5, 9) == 3);
}
