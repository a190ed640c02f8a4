// streamk.h: the stream-K partition of a GEMM's work (v7, v8): which pieces (an output unit and a range of its
// K tiles) each persistent worker computes, and which worker fixes up a unit that several workers share.
// Host and device, so that the CPU tests check the very code the kernels run.
//
// Work, not tiles. A persistent kernel with one unit (an output tile, or a pair of tiles for a 2-CTA
// cluster) per turn leaves SMs idle in its last wave whenever the units do not divide evenly over the
// workers: 256 units on 66 clusters are 3.88 turns, so in the fourth turn 8 clusters idle for a whole unit.
// Stream-K (Osama et al., "Stream-K: Work-centric Parallel Decomposition for Dense Matrix-Matrix
// Multiplication on the GPU", PPoPP 2023) schedules MAC iterations instead: one iteration is one unit times
// one K tile (BLOCK_K), and a problem of `units` units of `iters` K tiles has units * iters of them. Cut
// into `workers` contiguous ranges, every worker does the same amount of work to within one iteration.
//
// The plan. Units [0, dp_units) are data-parallel: whole units, unit u to worker u % workers (under Hybrid
// dp_units is a multiple of workers, so every worker does the same number). Units [dp_units, units) are
// stream-K:
// their iterations, in unit-major, K-minor order, are cut into sk_workers contiguous ranges as evenly as
// integer division allows (the first (total % sk_workers) ranges one iteration longer). Every worker does
// its data-parallel units first, then its stream-K range. Three policies pick dp_units:
//  - DataParallel: every unit whole (v6's schedule; sk_workers = 0).
//  - StreamK: every unit in the stream-K region.
//  - Hybrid: whole waves stay data-parallel, and the stream-K region is the partial last wave plus one full
//    wave (when there is one), so that each worker's stream-K share is between one and two units: the
//    split units are few, and each partial sum is a sizeable piece of K. With no partial wave, it is
//    DataParallel.
// A range shorter than `min_iters` K tiles costs more in fixup than it saves: sk_workers is reduced until
// each range has at least min_iters iterations (at least one worker).
//
// The fixup. A stream-K unit whose iterations fall into several ranges is split into segments, one per
// worker, in K order. The worker of its FIRST segment (k_begin == 0) finishes it: it adds the partial sums
// of the later segments, in K order, to its own and stores the unit. Why that worker: it reaches the unit at
// the END of its range, while the workers of the later segments reach it at the START of theirs, so their
// partials are usually ready when it asks. Consequences the tests check:
//  - a later (k_begin > 0) segment is always the first stream-K piece of its worker: each worker writes at
//    most one partial, so the workspace has one fp32 tile per worker (slot = worker index) and one flag;
//  - only finishers wait, and only for partials, whose writers never wait before writing them (their
//    data-parallel units need no one): no cycle, provided every worker is resident at once (the persistent
//    grid is sized from the occupancy calculation for that reason);
//  - the sum order is fixed by the plan (own partial, then segment 1, 2, ...), not by which partial lands
//    first: two runs give bit-identical output.
#pragma once

#include "common/descriptors.cuh"  // GEMM_HD

namespace gemm {

enum class StreamKPolicy : int { DataParallel = 0, StreamK = 1, Hybrid = 2 };

// One piece of a worker's work: K tiles [k_begin, k_end) of unit `unit`.
struct StreamKPiece {
  int unit    = 0;
  int k_begin = 0, k_end = 0;
  int k_tiles = 0;  // the unit's K tiles (iters): k_end == k_tiles means the piece reaches the unit's end
  // The piece's role in the fixup: Whole (stored directly), Finisher (k_begin == 0, not whole: adds the
  // later segments' partials, then stores), Partial (k_begin > 0: writes its partial and a flag).
  enum Role : int { Whole = 0, Finisher = 1, Partial = 2 } role = Whole;
};

struct StreamKPlan {
  int units = 0, iters = 0, workers = 0;  // units of iters K tiles each, over `workers` workers
  int dp_units   = 0;                     // units [0, dp_units): whole, round-robin; a multiple of workers
  int sk_workers = 0;                     // workers [0, sk_workers) share units [dp_units, units)

  GEMM_HD constexpr long long sk_iters() const { return (long long)(units - dp_units) * iters; }
  // First stream-K iteration of worker w's range (w in [0, sk_workers]; w == sk_workers: the end).
  GEMM_HD constexpr long long sk_begin(int w) const {
    const long long q = sk_iters() / sk_workers, r = sk_iters() % sk_workers;
    return w * q + (w < r ? w : r);
  }
  // The worker whose range holds stream-K iteration g (0 <= g < sk_iters()).
  GEMM_HD constexpr int sk_owner(long long g) const {
    const long long q = sk_iters() / sk_workers, r = sk_iters() % sk_workers;
    // the first r ranges have q + 1 iterations, the rest q
    return g < r * (q + 1) ? int(g / (q + 1)) : int(r + (g - r * (q + 1)) / q);
  }
  // The workers whose ranges cover stream-K unit u (dp_units <= u < units): first .. last, in K order.
  GEMM_HD constexpr int first_worker(int u) const { return sk_owner((long long)(u - dp_units) * iters); }
  GEMM_HD constexpr int last_worker(int u) const {
    return sk_owner((long long)(u - dp_units + 1) * iters - 1);
  }
  // Worker w's K tiles of stream-K unit u: [k_begin, k_end), empty where its range misses the unit.
  GEMM_HD constexpr int segment_k_begin(int u, int w) const {
    const long long u0 = (long long)(u - dp_units) * iters, b = sk_begin(w);
    return int(b > u0 ? b - u0 : 0);
  }
  GEMM_HD constexpr int segment_k_end(int u, int w) const {
    const long long u0 = (long long)(u - dp_units) * iters, e = sk_begin(w + 1);
    return int(e < u0 + iters ? e - u0 : iters);
  }
};

// The plan for `units` units of `iters` K tiles on `workers` resident workers (all >= 1).
GEMM_HD constexpr StreamKPlan make_streamk_plan(int units, int iters, int workers, StreamKPolicy policy,
                                                int min_iters = 4) {
  StreamKPlan p;
  p.units   = units;
  p.iters   = iters;
  p.workers = workers;
  const int full_waves = units / workers, rest = units % workers;
  int sk_units         = 0;
  if (policy == StreamKPolicy::StreamK) sk_units = units;
  if (policy == StreamKPolicy::Hybrid && rest != 0) sk_units = rest + (full_waves >= 1 ? workers : 0);
  p.dp_units = units - sk_units;
  if (sk_units > 0) {
    const long long total = (long long)sk_units * iters;
    const long long most  = min_iters > 0 ? total / min_iters : total;  // ranges of >= min_iters iterations
    p.sk_workers          = int(most < 1 ? 1 : (most < workers ? most : workers));
  }
  return p;
}

// ---- The picking rule (v7's default variant): data-parallel or stream-K, and how finely to split ----
//
// A cost model in K-tile iterations of one worker, with one measured constant: `fixup_iters`, what writing
// one partial, or reading and adding one, costs in iterations (v7 on the H100: ~3 us each when every SM does
// it at once, against ~0.75-1.1 us per iteration; docs/performance/stream-k-fixup.md, "One partial, written
// and read").
//  - Data-parallel: ceil(units / workers) turns of `iters` iterations.
//  - Stream-K with ranges of at least s iterations: the longest range L, plus, per worker, one partial
//    written and (segments - 1) read by the finisher of a unit split into `segments` pieces, on the worst
//    unit: L + fixup_iters * segments (no fixup where no unit is split).
// Stream-K is considered when the units do not fill the workers once (units < workers): s runs over the
// powers of two up to iters; the cheapest plan wins, ties to data-parallel, and between stream-K plans to
// the shorter ranges (more workers). With a wave or more of units, the most it can win is the idle part of
// the last wave, which the measurements found smaller than its fixup where the last wave is mostly full,
// and spreading each worker's range over several units at once costs L2 reuse (4096^3, 8192^3: the hybrid
// plan measured slower at a model's tie). So there (rule 1b) only the hybrid plan is priced, with v7c's
// ranges of at least HYBRID_MIN_ITERS, and taken where it costs at most 4/5 of data-parallel: where the last
// wave is nearly empty (3072^3: 144 units on 66 workers, a third turn of 12: 113 against 144; measured
// 11% faster on the H100, and 2-16% at the four other shapes where the rule changes the plan:
// docs/performance/stream-k-plans.md, "A nearly empty last turn: the hybrid plan (rule 1b)").
constexpr int HYBRID_MIN_ITERS = 4;  // rule 1b's hybrid plan: no stream-K range under 4 K tiles (v7c's)

struct StreamKChoice {
  StreamKPolicy policy = StreamKPolicy::DataParallel;
  int min_iters        = 0;                    // StreamK: the plan's min_iters
  long long cost = 0, cost_data_parallel = 0;  // the model's estimates, in iterations
};

// The model's cost of a plan with stream-K ranges: its whole units' turns, plus the longest range and, where
// a unit is split, fixup_iters per segment of the most split unit.
GEMM_HD constexpr long long streamk_plan_cost(const StreamKPlan& plan, int fixup_iters) {
  long long longest = 0;
  for (int w = 0; w < plan.sk_workers; ++w) {
    const long long len = plan.sk_begin(w + 1) - plan.sk_begin(w);
    longest             = len > longest ? len : longest;
  }
  int segments = 1;
  for (int u = plan.dp_units; u < plan.units; ++u) {
    const int segs = plan.last_worker(u) - plan.first_worker(u) + 1;
    segments       = segs > segments ? segs : segments;
  }
  const long long whole = (long long)(plan.dp_units / plan.workers) * plan.iters;
  return whole + longest + (segments > 1 ? (long long)fixup_iters * segments : 0);
}

GEMM_HD constexpr StreamKChoice pick_streamk(int units, int iters, int workers, int fixup_iters) {
  StreamKChoice best;
  best.cost_data_parallel = (long long)((units + workers - 1) / workers) * iters;
  best.cost               = best.cost_data_parallel;
  if (units >= workers) {
    // Rule 1b: the last wave nearly empty (3072^3: 144 units on 66 workers), the hybrid plan, whole waves
    // and stream-K over the last two, where the model prices it at 4/5 of data-parallel or less.
    const StreamKPlan plan =
        make_streamk_plan(units, iters, workers, StreamKPolicy::Hybrid, HYBRID_MIN_ITERS);
    const long long cost   = streamk_plan_cost(plan, fixup_iters);
    if (plan.sk_workers > 0 && 5 * cost <= 4 * best.cost) {
      best.policy    = StreamKPolicy::Hybrid;
      best.min_iters = HYBRID_MIN_ITERS;
      best.cost      = cost;
    }
    return best;
  }
  for (int s = 1; s <= iters; s *= 2) {
    const long long cost =
        streamk_plan_cost(make_streamk_plan(units, iters, workers, StreamKPolicy::StreamK, s), fixup_iters);
    if (cost < best.cost) {
      best.policy    = StreamKPolicy::StreamK;
      best.min_iters = s;
      best.cost      = cost;
    }
  }
  return best;
}

// ---- The unit (v8): a CTA pair, or a CTA alone ----
//
// The same plans can run on two units: the pair (a 2-CTA cluster: 256 x 256, each CTA 128 x 256, B multicast),
// on `pair_workers` clusters, or a CTA alone (128 x 256, no cluster), on `cta_workers` CTAs, twice as many.
// An iteration is one K tile of a 128 x 256 tile on one SM in both, so the model's costs (iterations of the
// busiest worker) compare as they are. The rule, from the measurements on the H100 (docs/performance/
// tile-shapes.md, "The unit: a CTA pair or a CTA alone"):
//  - the pair with its plan from pick_streamk, unless
//  - a CTA alone with whole units only (data-parallel), ceil(tiles / cta_workers) turns of `iters`, costs at
//    most 3/4 of the pair's plan. Where M <= 128 a pair's second CTA computes nothing useful, and 112 units of
//    128 x 256 are two turns of 66 pairs but one of 132 CTAs (128 x 28672 x 4096: 1.02x cuBLAS against
//    0.87x; 384 x 10240 x 4096, 2 turns against 1: 0.95x against 0.54x). The quarter is measured, not
//    derived: at 4099 x 4093 x 1032 the CTA alone saves one turn of five (68 against 85 iterations) and ran
//    11% slower than the pair (B multicast halves its loads; not traced further), so a CTA alone must save
//    more than that to be taken.
// Stream-K on a CTA alone is never taken: it measured slower than the pair's wherever the model favoured it
// or tied. At 128 x 8192 x 8192 its quarters on 128 CTAs (48 by the model) ran slower than the pair's halves
// on 64 clusters (72): the shape is memory-bound, where twice as many ranges only add fixups (the pair's second
// CTA is not idle there either: it issues half of the B loads). At 256 x 4096 x 14336 (79 either way) the two M
// tiles of a B column fall in different workers' ranges, read at different times: B crosses L2 twice instead
// of once multicast (0.56x against 0.79x).
struct UnitChoice {
  int ctas = 2;        // CTAs per unit: 2 (the pair) or 1 (a CTA alone, data-parallel)
  StreamKChoice plan;  // the chosen unit's plan: pick_streamk's for the pair, data-parallel for a CTA alone
  long long cost_pair = 0, cost_cta = 0;  // the model's estimates, in iterations: the pair's picked plan,
                                          // a CTA alone's whole units
};

GEMM_HD constexpr UnitChoice pick_unit(int tiles_m, int tiles_n, int iters, int pair_workers, int cta_workers,
                                       int fixup_iters) {
  UnitChoice u;
  u.plan       = pick_streamk((tiles_m + 1) / 2 * tiles_n, iters, pair_workers, fixup_iters);
  u.cost_pair  = u.plan.cost;
  const int tiles = tiles_m * tiles_n;
  u.cost_cta   = (long long)((tiles + cta_workers - 1) / cta_workers) * iters;
  if (4 * u.cost_cta <= 3 * u.cost_pair) {
    u.ctas                    = 1;
    u.plan                    = StreamKChoice{};  // data-parallel
    u.plan.cost               = u.cost_cta;
    u.plan.cost_data_parallel = u.cost_cta;
  }
  return u;
}

// ---- The tile's width (v8): the unit above, or the narrow pair (two 128 x 64 tiles) ----
//
// Where the wide units leave most workers idle (1024^3: 16 units for 66 clusters) or must be split into
// pieces that each pay a fixup (256 x 256 x 8192: one unit), a tile a quarter as wide gives four times the
// units. Its iteration (one K tile of a 128 x 64 tile on one SM) does a quarter of a wide one's MMAs but
// moves half the bytes (A's 128 rows land in full), so it costs more than a quarter of a wide one's time.
// The rule counts it as `narrow_percent` percent of a wide iteration:
//  - the narrow pair, with pick_streamk's plan over its units (`fixup_iters` still in its own iterations:
//    a narrow partial is a quarter of a wide one), where that share of its cost is less than the picked
//    unit's plan;
//  - otherwise the unit pick_unit picked (ties to it).
// NARROW_PERCENT_SM90, the Hopper twin's (its pair side by side along N, sharing A): 36. Measured on the H100
// at 4096^3, where both widths run whole units on every cluster: four times the iterations in 1.40 times the
// time (35%); over 13 shapes (docs/performance/tile-shapes.md, "The width: the narrow pair"), 36 is the value
// at which the rule takes the faster width at every one: narrow at 512^3, 768^3, 1000 x 1000 x 1024, 1024^3,
// 256 x 256 x 8192, 512 x 512 x 8192, 128 x 8192 x 8192 and 1024 x 1024 x {3072, 4096, 8192}; wide at 2048^3, 4096^3,
// 256 x 4096 x 14336, 1536 x 1536 x 4096, 2048 x 1024 x 4096, 1024 x 2048 x 4096, 1024 x 1024 x 16384 (at
// 35, 256 x 4096 x 14336 would go narrow, measured 2.6% slower; at 38, 1024 x 1024 x 8192 would stay wide,
// measured 7% slower). NARROW_PERCENT_SM100, the Blackwell file's (its pair along M, one cta_group::2 MMA):
// 50, what the Hopper twin measured with its pair along M (1.89 times the time at 4096^3); never timed on a
// Blackwell GPU.
constexpr int NARROW_PERCENT_SM90  = 36;
constexpr int NARROW_PERCENT_SM100 = 50;

struct WidthChoice {
  bool narrow = false;  // the narrow pair, with `plan`; otherwise pick_unit's unit and plan
  StreamKChoice plan;   // the narrow pair's plan from pick_streamk (its cost in narrow iterations)
  long long cost_wide = 0, cost_narrow = 0;  // the model's estimates, in wide iterations
};

// The narrow pair's units over tiles_m x tiles_n narrow tiles (128 x 64): two tiles side by side along N on
// the Hopper twin, whose pair shares A, the larger operand of a narrow tile (tiles_m x ceil(tiles_n / 2));
// one above the other along M on Blackwell, where one cta_group::2 MMA spans the pair (ceil(tiles_m / 2) x
// tiles_n). Where M is one tile (M <= 128), the Hopper pair has no padding CTA; the Blackwell one has.
GEMM_HD constexpr int narrow_units(int tiles_m, int tiles_n, bool along_n) {
  return along_n ? tiles_m * ((tiles_n + 1) / 2) : (tiles_m + 1) / 2 * tiles_n;
}

GEMM_HD constexpr WidthChoice pick_width(const UnitChoice& wide, int narrow_units, int iters, int narrow_workers,
                                         int fixup_iters, int narrow_percent) {
  WidthChoice w;
  w.plan        = pick_streamk(narrow_units, iters, narrow_workers, fixup_iters);
  w.cost_wide   = wide.plan.cost;
  w.cost_narrow = (w.plan.cost * narrow_percent + 99) / 100;
  w.narrow      = w.plan.cost * narrow_percent < 100 * w.cost_wide;
  return w;
}

// ---- The medium tile (v8m, the Hopper twin only): 128 x 128 per CTA, pairs side by side along N ----
// The narrow pair reads A's tile once per 128 columns of C. Where M is about one tile and N or K is large, B
// is read once and the L2's throughput bounds the narrow loop (docs/performance/one-m-tile.md); a pair of
// 128x128 tiles reads A once per 256 columns: per K tile an SM asks the L2 for 24 KB for 128x128x64
// multiply-adds, where the narrow pair asks for 16 KB for half as many (each CTA multicasting half of A,
// loading its own B). It has half the narrow pair's units, so its plans split K where the narrow pair's need
// not. v8d takes it where MEDIUM_PERCENT_SM90 percent of its plan's cost (in its own iterations) is less than
// what the width rule picked costs. 65, measured on an H200 at 13 shapes, each pairing run with either tile
// first (docs/performance/one-m-tile.md, "Does a 128 x 128 tile pay?"): the medium tile at 96 and 128 x 8192
// x 28672, 128 x 10240 x 8192 and 128 x 14336 x 8192 (3-14% faster than the narrow pair); the narrow pair at
// 128 x 8192 x 8192 (1.5%), 48 and 64 x 8192 x 8192, 128 x 4096 x 4096, 128 x 4096 x 14336, 64 x 4096 x 28672
// (4-12%), level at 128 x 8192 x 14336 and 1024 x 1024 x 8192. At 66, 128 x 10240 x 8192 would stay narrow;
// at 64, 128 x 8192 x 8192 would go medium. Missed: 256 x 8192 x 8192, where the medium tile is 3% faster
// than the pair the rule keeps, and 48 and 64 x 10240 x 8192, where the narrow pair is 1-3% ahead of the
// medium tile the rule takes (the rules count tiles, not rows: A's rows past M are not read). Checked after,
// where the rule takes it unmeasured: 128 x 14336 x {1024, 2048, 4096}, 3-11% faster than the narrow pair.
//
// Where M ends inside the second 64-row box of the narrow pair's A tile (65-127 rows in the last M tile), the
// TMA fills the box's rows past M with zeros, and the narrow loop runs longer the more rows it fills (the
// medium tile's, 7% at most). The rule raises the narrow pair's cost by narrow_fill_percent(m): the square of
// the rows filled, over 100, shared among the M tiles (the last one fills). Fitted to v8n at 72-120 x 8192 x
// 8192 and x 4096 x 4096 on an H200, one process per variant, against its time at 120 rows (8 filled): 56
// rows filled (72 tokens) 34% and 26% longer, 48 23% and 19%, 40 17% and 15%, 32 15% and 11%, 24 7% and 5%,
// 16 3% and 3% (docs/performance/one-m-tile.md, "Which tile where M ends inside a box?"). At 8192 x 8192, a
// near tie at M = 128, it takes the medium tile at 72-112 tokens (6-24% less time; 3% missed at 120); at 4096
// x 4096 it keeps the narrow pair (the medium tile's plan splits K: 1-8% less time at 72-88 tokens, missed;
// 3-14% more at 96-120). Checked after, where it takes the medium tile unmeasured: 80 x 4096 x 8192, 80 x
// 8192 x 4096, 96 x 10240 x 4096 13-15% less time; 88 x 4096 x 14336, 80 x 5120 x 8192, 96 x 5120 x 14336,
// 112 x 8192 x 14336, 80 x 10240 x 2112 2-6% less; 96 x 4096 x 28672 level; 72 x 2048 x 28672 3% more
// (missed).
GEMM_HD constexpr int narrow_fill_percent(int m) {
  const int tiles_m = (m + 127) / 128, last = m - (tiles_m - 1) * 128;  // rows of the last M tile
  const int filled  = last > 64 ? 128 - last : 0;  // its second box's rows past M (a box past M: not issued)
  return filled * filled / 100 / tiles_m;
}
constexpr int MEDIUM_PERCENT_SM90 = 65;
GEMM_HD constexpr bool pick_medium(const WidthChoice& w, int medium_units, int iters, int medium_workers,
                                   int fixup_iters, int fill_percent = 0) {
  const StreamKChoice plan = pick_streamk(medium_units, iters, medium_workers, fixup_iters);
  const long long picked =
      w.narrow ? w.plan.cost * NARROW_PERCENT_SM90 * (100 + fill_percent) : 100ll * 100 * w.cost_wide;
  return plan.cost * MEDIUM_PERCENT_SM90 * 100 < picked;
}

// ---- The ping-pong tiles (v8p, the Hopper twin only) ----
// Where a tile has few K tiles its epilogue is a large share of its time, and the wide pair's two consumer
// warpgroups, which share a tile, store it with the tensor pipe idle; v8p's warpgroups each own a 128 x 128 tile
// and store it under the other's main loop (docs/performance/short-k.md). Its main loop is slower per
// multiply-add than the wide pair's (m64n128 wgmmas, not m64n256; no multicast), which loses wherever K is long.
// v8d takes it where K is at most PINGPONG_MAX_K_TILES K tiles (2048), where its tiles give every resident CTA
// one at least (fewer, and the narrow pair's smaller units fill the GPU better: 1024^3), and where C can be
// stored by TMA (N % 8 == 0). Measured on an H200 against v8d's other picks, paired with cuBLAS at its best:
// 2048 x 2048 x 512 (256 tiles), 4096^2 x {512, 1024}, 8192^2 x {256, 512, 1024}, 2048^3 (three runs),
// 1536^2 x 2048, 3072^2 x 2048, 4096 x 2048 x 2048 and 4096^2 x 2048 faster, by 1-21%; 2048^2 x 1024 level;
// 1024^3 (64 tiles), 1000 x 1000 x 1024, 2048^2 x 4096, 4096^3 and every longer-K shape slower, by 1-26%.
// Nor where A's and B's rows (K bf16) are an odd multiple of 16 bytes (K % 16 == 8): each 128-byte row of a
// box then straddles two of the L2's 32-byte sectors at either end, and the L2 serves about three times the
// requests (ncu: cuBLAS's 128 x 128 ping-pong kernel 19.9 -> 26.0 us from K = 1024 to 1032); the 128 x 128
// tiles, which ask for twice the rows per multiply-add of the wide pair's, ran at 0.75x of cuBLAS at its
// best at 1900 x 3000 x 1032 and 4096^2 x 1032, against 0.92-0.94x at K = 1024, 1040 and 1088 (H200).
constexpr int PINGPONG_MAX_K_TILES = 32;
GEMM_HD constexpr bool pick_pingpong(int pingpong_tiles, int iters, int resident_ctas, bool c_tma,
                                     bool rows_32b) {
  return c_tma && rows_32b && iters <= PINGPONG_MAX_K_TILES && pingpong_tiles >= resident_ctas;
}
// A's and B's rows of K bf16 elements: a whole number of 32-byte sectors (pick_pingpong's last condition).
GEMM_HD constexpr bool rows_whole_sectors(long k) { return (k * 2) % 32 == 0; }
// Its width, where v8d takes it: 128 columns (v8p), or the wide ones (v8w, 144) where the busiest CTA's
// columns of C, turns x width, fall to PINGPONG_WIDE_PERCENT of the narrow width's or below: 1536 x 1536 at 132
// CTAs, 2 turns of 128 columns (256) against 1 of 144; 3072 x 3072, 5 x 128 (640) against 4 x 144 (576).
constexpr int PINGPONG_WIDE_PERCENT = 90;
GEMM_HD constexpr int pick_pingpong_width(int tiles, int wide_tiles, int ctas, int wide_ctas, int cols,
                                          int wide_cols) {
  const long busiest      = long((tiles + ctas - 1) / ctas) * cols;
  const long wide_busiest = long((wide_tiles + wide_ctas - 1) / wide_ctas) * wide_cols;
  return 100 * wide_busiest <= PINGPONG_WIDE_PERCENT * busiest ? wide_cols : cols;
}
// In CTA pairs (v8c: two vertically adjacent 128 x 128 tiles, each CTA multicasting half of B's tile to both,
// so each SM asks the L2 for 24 KB per K tile instead of 32) where the narrow width is picked and a tile has
// PINGPONG_PAIR_MIN_K_TILES K tiles (1024) or more. Measured on an H200 against v8p, paired with cuBLAS at its
// best: faster by 1-5% at 8192^2 x 1024, 4096^2 x 2048, 3072^2 x 2048, 4096 x 2048 x 2048 and 2048^3 (timed
// rounds; ncu: the tensor pipe 92% busy against 88% at 4096^2 x 2048), level at 4096^2 x 1024 and 2048^2 x
// 1024; below K = 1024 within 1-2% either way (4096^2 and 8192^2 x 512 faster, 2048^2 x 512 and 8192^2 x 256
// slower: docs/performance/short-k.md). Only where the pairs take no more turns than the CTAs alone: where
// M is one tile (or three) a pair's second tile is padding for every (or every other) unit of a column.
constexpr int PINGPONG_PAIR_MIN_K_TILES = 16;
GEMM_HD constexpr bool pick_pingpong_pair(int iters, int tiles_m, int tiles_n, int ctas, int pair_clusters) {
  const long alone_turns = (long(tiles_m) * tiles_n + ctas - 1) / ctas;
  const long pair_turns  = (long((tiles_m + 1) / 2) * tiles_n + pair_clusters - 1) / pair_clusters;
  return iters >= PINGPONG_PAIR_MIN_K_TILES && pair_turns <= alone_turns;
}

// ---- The L2 policy of a stream-K plan (v8, the Hopper twin) ----
// Where one unit row covers M, every byte of B is loaded once, by one unit; where B is also larger than the
// L2, it streams through the L2 and, as the L2's default is to keep what came last, pushes out the fixup's
// partials between their writing and their reading: the L2 writes them back to DRAM and reads them again
// (measured on an H100 at 256 x 4096 x 14336: 135 MB read from DRAM against 125 MB with the policy). The
// policy: B's loads marked evict-first, and each partial dropped from the L2 unwritten once its finisher has
// read it (discard). Only where the plan has stream-K ranges (partials exist) and B is read once and
// outgrows the L2: at 128 x 28672 x 4096 (whole units on CTAs alone) B's evict-first cost 2.6%, at 256 x 256
// x 8192 (B 4 MB, everything stays in the L2 anyway) the policy cost ~13% (the discards, on the finisher's
// serial path).
GEMM_HD constexpr bool streamk_l2_policy(const StreamKPlan& plan, int unit_rows, long long b_bytes,
                                         long long l2_bytes) {
  return plan.sk_workers > 0 && unit_rows == 1 && b_bytes > l2_bytes;
}

// Where a warpgroup's partial lives (the Hopper twin's fixup): thread t (0..127) of the warpgroup keeps its
// float4 j (j < acc_regs / 4) at float4 j * 128 + t, so that each store and load instruction of the
// warpgroup is coalesced and the finisher's thread t holds the same elements. A 128-byte line is 8 float4:
// line j * 16 + t / 8, read by the 8 threads t / 8 * 8 .. +7, which are 8 lanes of one warp.
// (The kernel writes it as pointer arithmetic, part + j * 128 + t: the int form cost it registers.)
GEMM_HD constexpr int partial_float4(int t, int j) { return j * 128 + t; }
// The L2 policy's discards: after its last read of a partial, thread t drops the lines of float4
// partial_discard_float4(t, i), i < acc_regs / 32: its 8-thread group's lines j = t % 8 + 8 i, so that the 8
// threads that read a line drop it once between them (tests/test_streamk.cpp checks it for both tiles).
// (Linear in i: the kernel adds 8 * 128 float4 per i to the first.)
GEMM_HD constexpr int partial_discard_float4(int t, int i) { return (t & ~7) + (t % 8 + 8 * i) * 128; }

// One worker's pieces, in the order it computes them: its data-parallel units, then its stream-K range.
class StreamKWork {
 public:
  GEMM_HD constexpr StreamKWork(const StreamKPlan& plan, int worker)
      : plan_(plan), next_dp_(worker), next_sk_(0) {
    if (worker < plan.sk_workers) {
      next_sk_ = plan.sk_begin(worker);
      end_sk_  = plan.sk_begin(worker + 1);
    }
  }

  GEMM_HD constexpr bool next(StreamKPiece& piece) {
    piece.k_tiles = plan_.iters;
    if (next_dp_ < plan_.dp_units) {
      piece.unit    = next_dp_;
      piece.k_begin = 0;
      piece.k_end   = plan_.iters;
      piece.role    = StreamKPiece::Whole;
      next_dp_ += plan_.workers;
      return true;
    }
    if (next_sk_ >= end_sk_) return false;
    const long long local = next_sk_ / plan_.iters;  // stream-K unit, counted from dp_units
    const long long u0    = local * plan_.iters;
    const long long stop  = end_sk_ < u0 + plan_.iters ? end_sk_ : u0 + plan_.iters;
    piece.unit            = plan_.dp_units + int(local);
    piece.k_begin         = int(next_sk_ - u0);
    piece.k_end           = int(stop - u0);
    piece.role            = piece.k_begin > 0                ? StreamKPiece::Partial
                            : piece.k_end == plan_.iters ? StreamKPiece::Whole
                                                         : StreamKPiece::Finisher;
    next_sk_              = stop;
    return true;
  }

 private:
  StreamKPlan plan_;
  int next_dp_;
  long long next_sk_, end_sk_ = 0;
};

// ---- The dynamic order (v7e, the Hopper twin): the same pieces, handed out at run time by a counter ----
//
// A static plan fixes on the host which worker does which piece. The dynamic order lists every piece of every
// worker of a plan once, in one global order, and the running clusters take them from it in turn (cluster c
// piece c at its start, then each the next one an atomicAdd on a counter in global memory gives it): a
// cluster that runs faster takes more of them. The plan's `workers` are then not clusters but ranges of
// iterations (a plan over 2 x the clusters cuts ranges half as long); a piece keeps its worker's index, which
// names its slot in the fixup's workspace (a worker writes at most one partial, so the slots stay one per
// worker).
//
// The order: every partial (k_begin > 0) first, then the whole units, then the finishers, each group in unit
// order (v6b's grouped order, as the units are numbered). Why partials first: a finisher waits for its unit's
// partials. When it is taken, every partial of every unit has been taken already, by clusters that are
// running; and a running cluster reaches every piece it took: by induction over the order, the first piece
// (in the order) that never finished could only wait for partials before it, all finished. So nothing waits
// for a piece that nobody holds, provided the clusters that take the first pieces at their start are all
// resident (the grid is sized so). And a finisher comes late, after its partials had time to be written,
// as in a static stream-K range (a unit's head at the END of a worker's range). Taken the other way
// (finisher first), a cluster can hold the finisher while the partials it waits for are still in the list,
// behind pieces that every other cluster is stuck on: tests/test_v7_protocol.cpp shows that hang.
struct StreamKTask {  // one entry of the order: 16 bytes, what the drawing thread hands to the cluster's roles
  int unit = 0, k_begin = 0, k_end = 0;
  int worker = 0;  // the plan's worker of this piece: a partial's slot; a finisher adds worker + 1 .. last
};

// Writes the order of `plan`'s pieces into `out` (when not null); returns how many there are.
GEMM_HD constexpr int streamk_dynamic_order(const StreamKPlan& plan, StreamKTask* out) {
  int n = 0;
  for (int group = 0; group < 3; ++group)  // 0: partials, 1: whole units, 2: finishers
    for (int u = 0; u < plan.units; ++u) {
      if (u < plan.dp_units) {
        if (group == 1) {
          if (out) out[n] = {u, 0, plan.iters, u % plan.workers};
          ++n;
        }
        continue;
      }
      for (int w = plan.first_worker(u); w <= plan.last_worker(u); ++w) {
        const int b = plan.segment_k_begin(u, w), e = plan.segment_k_end(u, w);
        if (group != (b > 0 ? 0 : e == plan.iters ? 1 : 2)) continue;
        if (out) out[n] = {u, b, e, w};
        ++n;
      }
    }
  return n;
}

// The piece an entry of the order stands for (its role as StreamKWork would give it).
GEMM_HD constexpr StreamKPiece piece_of(const StreamKTask& t, int iters) {
  StreamKPiece p;
  p.unit    = t.unit;
  p.k_begin = t.k_begin;
  p.k_end   = t.k_end;
  p.k_tiles = iters;
  p.role    = t.k_begin > 0 ? StreamKPiece::Partial : t.k_end == iters ? StreamKPiece::Whole : StreamKPiece::Finisher;
  return p;
}

}  // namespace gemm
