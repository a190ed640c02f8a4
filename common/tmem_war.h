// tmem_war.h: the tcgen05 emulator's rule "TMEM write-after-read" (PTX ISA "Non-pipelined instructions,
// different thread"), as small functions the emulator's device code (common/tcgen05_emu.cuh) and a CPU test
// (tests/test_tmem_war.cpp) share.
//
// The rule: an MMA (any kind) or tcgen05.cp that writes TMEM cells which another warp read with tcgen05.ld is
// ordered after that read only through the reader's release and the issuer's acquire:
//   reader: tcgen05.ld, tcgen05.wait::ld, tcgen05.fence::before_thread_sync, then an arrive (mbarrier, local or
//           through mapa; a barrier; a cluster barrier);
//   issuer: its wait on that same barrier succeeds, tcgen05.fence::after_thread_sync, then the MMA or cp.
// The fences themselves are checked by rules of their own (tcgen05_emu.cuh, on_publish and on_async_op); this
// one checks that the chain of synchronisation exists at all.
//
// How, with epochs as a race detector keeps them (a vector clock per warp):
//  - every warp w counts its releases: rel[w] grows at each tcgen05.fence::before_thread_sync (tcgen05.ld is
//    warp-collective, the warp is the unit; the emulator counts each lane's fence, which only makes a warp's
//    epochs coarser);
//  - a tcgen05.ld by warp w notes, in each TMEM cell (lane quarter, column) it read, the reader w and the
//    epoch its release will carry: rel[w] + 1 (the next fence::before_thread_sync covers this read);
//  - every warp keeps joined[w][*], what it has learnt of every warp's releases. An arrive publishes the
//    arriving warp's clock (joined, with its own entry rel) into the barrier's vector, max-joined; a successful
//    wait joins the barrier's vector into the waiting warp's clock. The clock is published whole, not only
//    the warp's own entry: a release may reach the MMA thread through a chain (reader -> barrier -> another
//    warp -> barrier -> MMA thread), and what the middle warp learnt travels with it;
//  - an MMA or cp issued by warp i that writes a cell read by warp r != i needs joined[i][r] >= the cell's
//    epoch. Otherwise the write is not ordered after the read: a trap.
// Everything is an over-approximation of happens-before, so that a correct kernel can never trap: a barrier's
// vector joins every arrival it ever had, whatever its phase; a warp's clock joins what any of its lanes
// learnt; two warps that share an index (WARPS below) share their entries, as if each had released what the
// other did. Each of these can only hide a breach, never invent one. What it misses: a read whose record a
// later read of the same cell by another warp replaced, and a write issued before the read it races with
// (then the reader reads the new value: a wrong result, not this trap).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define TMEM_WAR_HD __host__ __device__
#else
#define TMEM_WAR_HD
#endif

namespace gemm::tmem_war {

// Warps are named cluster-wide: CTA rank r's warp w is warp_index(r, w). 16 warps per CTA and 2 CTAs per
// cluster have indices of their own (every kernel of the series: 2-CTA clusters of 6 warps or fewer); past
// that, indices are shared (see above: safe, coarser).
constexpr uint32_t WARPS = 32, WARPS_PER_CTA = 16;
TMEM_WAR_HD constexpr uint32_t warp_index(uint32_t cta_rank, uint32_t warp) {
  return (cta_rank * WARPS_PER_CTA + warp) % WARPS;
}

// A TMEM cell's record, 32 bits: 0, never read; else the reader's index + 1 (bits 0-5) and the epoch of the
// release that covers the read (bits 6-31).
constexpr uint32_t EPOCH_MAX = (1u << 26) - 1;
TMEM_WAR_HD constexpr uint32_t record(uint32_t reader, uint32_t epoch) {
  return ((epoch > EPOCH_MAX ? EPOCH_MAX : epoch) << 6) | (reader + 1);
}
TMEM_WAR_HD constexpr bool record_read(uint32_t rec) { return (rec & 63u) != 0; }
TMEM_WAR_HD constexpr uint32_t record_reader(uint32_t rec) { return (rec & 63u) - 1; }
TMEM_WAR_HD constexpr uint32_t record_epoch(uint32_t rec) { return rec >> 6; }

// The record a tcgen05.ld by warp `reader` leaves in each cell it reads, its release count being `rel`.
TMEM_WAR_HD constexpr uint32_t read_record(uint32_t reader, uint32_t rel) { return record(reader, rel + 1); }

// Entry i of the clock warp `self` publishes at an arrive, `joined_i` being what it learnt of warp i: its own
// releases in its own entry.
TMEM_WAR_HD constexpr uint32_t published(uint32_t joined_i, uint32_t i, uint32_t self, uint32_t rel) {
  return i == self && rel > joined_i ? rel : joined_i;
}

// May warp `issuer` write a cell with record `rec`, `known` being what it learnt of the reader's releases
// (joined[issuer][record_reader(rec)])? A cell read by the issuer's own warp is ordered by program order (and
// the fence rules).
TMEM_WAR_HD constexpr bool write_ordered(uint32_t rec, uint32_t issuer, uint32_t known) {
  return !record_read(rec) || record_reader(rec) == issuer || known >= record_epoch(rec);
}

// The same rule on plain memory, one event at a time: what the emulator does with global memory and atomics,
// for a CPU test to drive with the kernels' protocols. CELLS: lane quarters x columns of each CTA's TMEM.
template <uint32_t CTAS, uint32_t BARRIERS>
struct Tracker {
  static constexpr uint32_t QUARTERS = 4, COLUMNS = 512;
  uint32_t rel[WARPS]            = {};
  uint32_t joined[WARPS][WARPS]  = {};
  uint32_t bar[BARRIERS][WARPS]  = {};
  uint32_t cell[CTAS][QUARTERS][COLUMNS] = {};

  // tcgen05.ld by warp w of its lane quarter, columns [c0, c0 + n), in CTA `cta`'s TMEM.
  void ld(uint32_t w, uint32_t cta, uint32_t quarter, uint32_t c0, uint32_t n) {
    for (uint32_t c = c0; c < c0 + n; ++c) cell[cta][quarter][c] = read_record(w, rel[w]);
  }
  void fence_before_thread_sync(uint32_t w) { ++rel[w]; }
  void arrive(uint32_t w, uint32_t b) {
    for (uint32_t i = 0; i < WARPS; ++i) {
      const uint32_t v = published(joined[w][i], i, w, rel[w]);
      if (v > bar[b][i]) bar[b][i] = v;
    }
  }
  void wait(uint32_t w, uint32_t b) {
    for (uint32_t i = 0; i < WARPS; ++i)
      if (bar[b][i] > joined[w][i]) joined[w][i] = bar[b][i];
  }
  // An MMA or cp by warp w writing all four lane quarters of columns [c0, c0 + n) in CTA `cta`: true if
  // ordered, else `reader` and `column` name the first cell that is not.
  bool write(uint32_t w, uint32_t cta, uint32_t c0, uint32_t n, uint32_t* reader = nullptr,
             uint32_t* column = nullptr) const {
    for (uint32_t q = 0; q < QUARTERS; ++q)
      for (uint32_t c = c0; c < c0 + n; ++c)
        if (!write_ordered(cell[cta][q][c], w, joined[w][record_reader(cell[cta][q][c]) % WARPS])) {
          if (reader) *reader = record_reader(cell[cta][q][c]);
          if (column) *column = c;
          return false;
        }
    return true;
  }
  // tcgen05.alloc of columns [c0, c0 + n) in CTA `cta`: a new owner's cells carry no reads.
  void alloc(uint32_t cta, uint32_t c0, uint32_t n) {
    for (uint32_t q = 0; q < QUARTERS; ++q)
      for (uint32_t c = c0; c < c0 + n; ++c) cell[cta][q][c] = 0;
  }
};

}  // namespace gemm::tmem_war
