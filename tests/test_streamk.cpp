// test_streamk.cpp: the stream-K partition (common/streamk.h), the code the v7 and v8 kernels run, on the CPU.
// For every policy over a grid of shapes (primes, one unit, fewer iterations than workers, K shorter than a
// range, more workers than units): every MAC iteration is done exactly once; every split unit has exactly
// one finisher and its later segments are contiguous, in K order, each the piece its worker computes; a
// worker writes at most one partial, as its first stream-K piece; the ranges are balanced to one iteration;
// and no interleaving of the workers deadlocks on the fixup's flags.
#include <array>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include "common/edge.h"
#include "common/streamk.h"

using gemm::make_streamk_plan;
using gemm::StreamKPiece;
using gemm::StreamKPlan;
using gemm::StreamKPolicy;
using gemm::StreamKWork;

namespace {

std::vector<std::vector<StreamKPiece>> all_pieces(const StreamKPlan& plan) {
  std::vector<std::vector<StreamKPiece>> pieces(plan.workers);
  for (int w = 0; w < plan.workers; ++w) {
    StreamKWork work(plan, w);
    for (StreamKPiece p; work.next(p);) pieces[w].push_back(p);
  }
  return pieces;
}

const char* name(StreamKPolicy p) {
  return p == StreamKPolicy::DataParallel ? "DataParallel" : p == StreamKPolicy::StreamK ? "StreamK" : "Hybrid";
}

// Every property of the partition for one configuration; returns the number of split units.
int check_plan(int units, int iters, int workers, StreamKPolicy policy, int min_iters) {
  const StreamKPlan plan = make_streamk_plan(units, iters, workers, policy, min_iters);
  INFO(name(policy) << " units=" << units << " iters=" << iters << " workers=" << workers
                    << " min_iters=" << min_iters << " -> dp_units=" << plan.dp_units
                    << " sk_workers=" << plan.sk_workers);
  if (policy != StreamKPolicy::DataParallel) REQUIRE(plan.dp_units % workers == 0);  // whole waves only
  REQUIRE(plan.dp_units >= 0);
  REQUIRE(plan.dp_units <= units);
  if (policy == StreamKPolicy::DataParallel) REQUIRE(plan.dp_units == units);
  if (policy == StreamKPolicy::StreamK) REQUIRE(plan.dp_units == 0);
  if (policy == StreamKPolicy::Hybrid) {
    const int rest = units % workers;
    // the partial last wave and one full wave (where there is one) go stream-K; no partial wave: all whole
    REQUIRE(units - plan.dp_units == (rest == 0 ? 0 : rest + (units >= workers ? workers : 0)));
  }
  const bool has_sk = plan.dp_units < units;
  REQUIRE((plan.sk_workers >= 1) == has_sk);
  REQUIRE(plan.sk_workers <= workers);

  const auto pieces = all_pieces(plan);
  std::vector<int> done(size_t(units) * iters, 0);
  long long min_sk = -1, max_sk = 0;
  for (int w = 0; w < workers; ++w) {
    int dp = 0, partials = 0;
    long long sk = 0;
    bool in_sk = false;
    for (size_t i = 0; i < pieces[w].size(); ++i) {
      const StreamKPiece& p = pieces[w][i];
      REQUIRE(p.unit >= 0);
      REQUIRE(p.unit < units);
      REQUIRE(p.k_begin < p.k_end);  // no empty piece
      REQUIRE(p.k_end <= iters);
      REQUIRE(p.k_tiles == iters);
      for (int k = p.k_begin; k < p.k_end; ++k) ++done[size_t(p.unit) * iters + k];
      if (p.unit < plan.dp_units) {
        REQUIRE_FALSE(in_sk);  // data-parallel units come first
        REQUIRE(p.unit % workers == w);
        REQUIRE(p.role == StreamKPiece::Whole);
        ++dp;
      } else {
        if (p.role == StreamKPiece::Partial) {
          REQUIRE_FALSE(in_sk);  // a later segment is the worker's FIRST stream-K piece: one partial at most
          ++partials;
        }
        REQUIRE((p.role == StreamKPiece::Partial) == (p.k_begin > 0));
        REQUIRE((p.role == StreamKPiece::Whole) == (p.k_begin == 0 && p.k_end == iters));
        in_sk = true;
        sk += p.k_end - p.k_begin;
      }
    }
    REQUIRE(dp == (plan.dp_units - w + workers - 1) / workers);  // units w, w + workers, ... < dp_units
    REQUIRE(partials <= 1);
    if (w < plan.sk_workers) {
      min_sk = min_sk < 0 ? sk : std::min(min_sk, sk);
      max_sk = std::max(max_sk, sk);
      // a range is at least min_iters long, unless the whole region is shorter (then one worker takes it)
      if (plan.sk_workers > 1) REQUIRE(sk >= min_iters);
    } else {
      REQUIRE(sk == 0);
    }
  }
  for (size_t i = 0; i < done.size(); ++i) {
    INFO("unit " << i / iters << " K tile " << i % iters);
    REQUIRE(done[i] == 1);  // every MAC iteration exactly once
  }
  if (has_sk) REQUIRE(max_sk - min_sk <= 1);  // balanced to one iteration

  // The fixup of every stream-K unit: the workers first..last, consecutive, their segments contiguous in K
  // order from 0 to iters, each exactly the piece that worker computes for the unit.
  int split = 0;
  for (int u = plan.dp_units; u < units; ++u) {
    const int first = plan.first_worker(u), last = plan.last_worker(u);
    REQUIRE(first <= last);
    REQUIRE(last < plan.sk_workers);
    int k = 0;
    for (int w = first; w <= last; ++w) {
      const int b = plan.segment_k_begin(u, w), e = plan.segment_k_end(u, w);
      REQUIRE(b == k);
      REQUIRE(e > b);
      k = e;
      const auto it = std::find_if(pieces[w].begin(), pieces[w].end(),
                                   [&](const StreamKPiece& p) { return p.unit == u; });
      REQUIRE(it != pieces[w].end());
      REQUIRE(it->k_begin == b);
      REQUIRE(it->k_end == e);
      const auto expected = first == last  ? StreamKPiece::Whole
                            : w == first ? StreamKPiece::Finisher
                                         : StreamKPiece::Partial;
      REQUIRE(it->role == expected);
    }
    REQUIRE(k == iters);
    split += first < last;
  }
  return split;
}

// Runs the workers in a random interleaving: a Finisher piece may complete only once the partials of its
// unit's later segments are flagged; a Partial piece flags its worker's slot. At most `resident` workers run
// at once; a worker starts, in index order, when one has finished (how a GPU launches CTAs that do not all
// fit). False if every running worker is blocked (a deadlock).
bool interleaving_completes(const StreamKPlan& plan, std::mt19937& rng, int resident) {
  const auto pieces = all_pieces(plan);
  std::vector<size_t> next(plan.workers, 0);
  std::vector<char> flagged(plan.workers, 0);
  for (;;) {
    std::vector<int> runnable;
    int running = 0;
    for (int w = 0; w < plan.workers && running < resident; ++w) {
      if (next[w] == pieces[w].size()) continue;
      ++running;
      const StreamKPiece& p = pieces[w][next[w]];
      bool ready            = true;
      if (p.role == StreamKPiece::Finisher)
        for (int v = plan.first_worker(p.unit) + 1; v <= plan.last_worker(p.unit); ++v) ready &= flagged[v] != 0;
      if (ready) runnable.push_back(w);
    }
    if (running == 0) return true;  // every worker has done all its pieces
    if (runnable.empty()) return false;
    const int w           = runnable[std::uniform_int_distribution<size_t>(0, runnable.size() - 1)(rng)];
    const StreamKPiece& p = pieces[w][next[w]++];
    if (p.role == StreamKPiece::Partial) flagged[w] = 1;
  }
}

}  // namespace

TEST_CASE("stream-K: every iteration once, every split unit fixed up once in K order, balanced",
          "[streamk]") {
  const int units_list[]   = {1, 2, 3, 7, 13, 64, 65, 66, 67, 131, 132, 256, 257, 1000};
  const int iters_list[]   = {1, 2, 3, 5, 16, 17, 64, 128};
  const int workers_list[] = {1, 2, 7, 64, 66, 74, 132};
  const StreamKPolicy policies[] = {StreamKPolicy::DataParallel, StreamKPolicy::StreamK, StreamKPolicy::Hybrid};
  int configs = 0, split_units = 0;
  for (int units : units_list)
    for (int iters : iters_list)
      for (int workers : workers_list)
        for (StreamKPolicy policy : policies)
          for (int min_iters : {1, 4}) {
            split_units += check_plan(units, iters, workers, policy, min_iters);
            ++configs;
          }
  std::printf("stream-K partition: %d configurations, %d split units checked\n", configs, split_units);
  REQUIRE(split_units > 1000);  // the grid does exercise the fixup
}

TEST_CASE("stream-K: the plans the v7 shapes get", "[streamk]") {
  SECTION("4096^3 on an H100: 256 pair units of 64 K tiles on 66 clusters") {
    const StreamKPlan p = make_streamk_plan(256, 64, 66, StreamKPolicy::Hybrid);
    CHECK(p.dp_units == 132);  // two whole waves; the 0.88 wave + one wave = 124 units go stream-K
    CHECK(p.sk_workers == 66);
    CHECK(p.sk_begin(66) == 124LL * 64);
    CHECK(p.sk_begin(1) == 121);  // 7936 iterations / 66 = 120 r 16: the first 16 ranges are 121 long
    CHECK(p.sk_begin(17) - p.sk_begin(16) == 120);
  }
  SECTION("one 256x256 unit, K = 8192 (128 K tiles): split-K over the workers, >= 4 K tiles each") {
    const StreamKPlan p = make_streamk_plan(1, 128, 66, StreamKPolicy::StreamK, 4);
    CHECK(p.dp_units == 0);
    CHECK(p.sk_workers == 32);
    CHECK(p.first_worker(0) == 0);
    CHECK(p.last_worker(0) == 31);
    CHECK(p.segment_k_begin(0, 31) == 124);
  }
  SECTION("an even grid stays data-parallel under Hybrid") {
    const StreamKPlan p = make_streamk_plan(132, 64, 66, StreamKPolicy::Hybrid);
    CHECK(p.dp_units == 132);
    CHECK(p.sk_workers == 0);
  }
  SECTION("fewer units than workers: Hybrid splits all of them") {
    const StreamKPlan p = make_streamk_plan(16, 64, 66, StreamKPolicy::Hybrid, 4);
    CHECK(p.dp_units == 0);
    CHECK(p.sk_workers == 66);  // 1024 iterations: 15 or 16 each
  }
}

TEST_CASE("stream-K: the picking rule (v7's default variant) at the measured shapes", "[streamk]") {
  using gemm::pick_streamk;
  constexpr int W = 66, F = 4;  // an H100's clusters; a partial's cost in K tiles (docs/performance/stream-k-fixup.md)
  // A wave or more of units: data-parallel, unless the hybrid plan costs at most 4/5 of it (rule 1b).
  // 4096^3: whole waves 128 + the last two turns' 124 units in ranges of 121 + 2 segments x 4 = 257 > 256.
  const auto cube4k = pick_streamk(256, 64, W, F);
  CHECK(cube4k.policy == StreamKPolicy::DataParallel);
  CHECK(cube4k.cost == 256);
  CHECK(gemm::streamk_plan_cost(make_streamk_plan(256, 64, W, StreamKPolicy::Hybrid, 4), F) == 257);
  // 8192^3: 1792 + 194 + 8 = 1994 of 2048 (0.97): data-parallel.
  CHECK(pick_streamk(1024, 128, W, F).policy == StreamKPolicy::DataParallel);
  CHECK(gemm::streamk_plan_cost(make_streamk_plan(1024, 128, W, StreamKPolicy::Hybrid, 4), F) == 1994);
  CHECK(pick_streamk(W, 64, W, F).policy == StreamKPolicy::DataParallel);      // one whole wave: no rest
  CHECK(pick_streamk(2 * W, 64, W, F).policy == StreamKPolicy::DataParallel);  // two
  // Rule 1b's shapes, measured 2-16% faster than whole units (docs/performance/stream-k-plans.md, "A nearly
  // empty last turn: the hybrid plan (rule 1b)"): the last turn nearly empty. 3072^3: 144 units of 48, a
  // third turn of 12: 48 + 57 + 8 = 113 against 144.
  const auto cube3k = pick_streamk(144, 48, W, F);
  CHECK(cube3k.policy == StreamKPolicy::Hybrid);
  CHECK(cube3k.min_iters == gemm::HYBRID_MIN_ITERS);
  CHECK(cube3k.cost == 113);
  CHECK(cube3k.cost_data_parallel == 144);
  // 2304 x 2304 x 4096 (81 units of 64: 79 + 8 = 87 of 128), 2049 x 2049 x 2056 (81 of 33: 41 + 8 = 49 of
  // 66), 2048 x 3072 x 4096 and 1536 x 4096 x 4096 (96 of 64: 94 + 8 = 102 of 128, 5 x 102 <= 4 x 128).
  const int hybrid[][3] = {{81, 64, 87}, {81, 33, 49}, {96, 64, 102}};
  for (const auto& h : hybrid) {
    const auto c = pick_streamk(h[0], h[1], W, F);
    INFO(h[0] << " units of " << h[1]);
    CHECK(c.policy == StreamKPolicy::Hybrid);
    CHECK(c.cost == h[2]);
  }
  // Just past 4/5: 97 units of 64 (95 + 8 = 103; 5 x 103 > 4 x 128) stays data-parallel.
  CHECK(pick_streamk(97, 64, W, F).policy == StreamKPolicy::DataParallel);
  // Fewer units than workers, short K: a split costs as much as it saves, or more.
  CHECK(pick_streamk(64, 32, W, F).policy == StreamKPolicy::DataParallel);  // 2048^3
  CHECK(pick_streamk(16, 16, W, F).policy == StreamKPolicy::DataParallel);  // 1024^3: halves, 16 = 16
  // Long K: split. 128 x 8192 x 8192: 32 units of 128, each split once (64 workers of 64 iterations).
  const auto skinny = pick_streamk(32, 128, W, F);
  CHECK(skinny.policy == StreamKPolicy::StreamK);
  CHECK(skinny.min_iters == 64);
  CHECK(skinny.cost == 64 + 2 * F);
  // One 256 x 256 unit with K = 8192: 8 pieces of 16 (16 + 4 * 8 = 48, as 4 of 32: the tie goes to more
  // workers), against 128 whole.
  const auto one = pick_streamk(1, 128, W, F);
  CHECK(one.policy == StreamKPolicy::StreamK);
  CHECK(one.min_iters == 16);
  CHECK(one.cost == 48);
  // 256 x 4096 x 14336: one pair row of 16 units of 224 K tiles.
  const auto ffn = pick_streamk(16, 224, W, F);
  CHECK(ffn.policy == StreamKPolicy::StreamK);
  CHECK(ffn.cost < 224 / 2);
  // Never worse than data-parallel by the model, and a chosen plan splits what it says.
  for (int units : {1, 2, 3, 7, 16, 31, 32, 65, 66, 67, 300})
    for (int iters : {1, 2, 5, 16, 64, 128, 448}) {
      const auto c = pick_streamk(units, iters, W, F);
      INFO("units=" << units << " iters=" << iters);
      CHECK(c.cost <= c.cost_data_parallel);
      if (c.policy == StreamKPolicy::StreamK) {
        CHECK(units < W);
        CHECK(c.min_iters >= 1);
        CHECK(c.min_iters <= iters);
        check_plan(units, iters, W, StreamKPolicy::StreamK, c.min_iters);
      }
      if (c.policy == StreamKPolicy::Hybrid) {  // rule 1b: a wave or more, at most 4/5 of data-parallel
        CHECK(units > W);
        CHECK(5 * c.cost <= 4 * c.cost_data_parallel);
        check_plan(units, iters, W, StreamKPolicy::Hybrid, c.min_iters);
      }
      if (units >= W && c.policy == StreamKPolicy::DataParallel) {  // and where it is not taken, it is dearer
        const auto hy = make_streamk_plan(units, iters, W, StreamKPolicy::Hybrid, gemm::HYBRID_MIN_ITERS);
        CHECK((hy.sk_workers == 0 || 5 * gemm::streamk_plan_cost(hy, F) > 4 * c.cost_data_parallel));
      }
    }
}

TEST_CASE("stream-K: the unit the picking rule takes on Hopper, a CTA pair or a CTA alone", "[streamk]") {
  using gemm::pick_unit;
  // An H100: 66 clusters of a pair or 132 CTAs alone; the fixup as in matmul_v8_sm90.cu (FIXUP_ITERS).
  // Arguments: M tiles of 128, N tiles of 256, K tiles of 64.
  constexpr int P = 66, C = 132, F = 4;
  // 128 x 28672 x 4096: 112 units, two turns of the pair's 66 clusters (112 > 66: data-parallel), one of the
  // 132 CTAs.
  const auto wide = pick_unit(1, 112, 64, P, C, F);
  CHECK(wide.ctas == 1);
  CHECK(wide.cost_pair == 128);
  CHECK(wide.cost_cta == 64);
  CHECK(wide.plan.policy == StreamKPolicy::DataParallel);
  // 384 x 10240 x 4096 (an odd number of M tiles: a pair's third row is half padding): 80 pair units, two
  // turns; 120 tiles, one turn of CTAs alone. 4099 x 4093 x 1032: 272 pair units, 5 turns; 528 tiles, 4:
  // a fifth saved, not the quarter the rule asks (the CTA alone measured 11% slower there): the pair.
  CHECK(pick_unit(3, 40, 64, P, C, F).ctas == 1);
  CHECK(pick_unit(33, 16, 17, P, C, F).cost_cta == 4 * 17);
  CHECK(pick_unit(33, 16, 17, P, C, F).cost_pair == 5 * 17);
  CHECK(pick_unit(33, 16, 17, P, C, F).ctas == 2);
  // The pair, with pick_streamk's plan: 128 x 8192 x 8192 (stream-K halves, 72, against 128 for whole
  // 128 x 256 units: a CTA alone's stream-K quarters are never considered: docs/performance/tile-shapes.md,
  // "The unit: a CTA pair or a CTA alone"),
  // 256 x 4096 x 14336, 256 x 256 x 8192, 128 x 8192 x 2048; ties: 4096^3, 2048^3, 1024^3, 100 x 700 x 264,
  // 1100 x 700 x 264, 128 x 16384 x 8192 (64 units: one turn either way).
  const int pairs[][3] = {{1, 32, 128}, {2, 16, 224}, {2, 1, 128}, {1, 32, 32}, {32, 16, 64}, {16, 8, 32},
                          {8, 4, 16},   {1, 3, 5},    {9, 3, 5},   {1, 64, 128}};
  for (const auto& t : pairs) {
    const auto u = pick_unit(t[0], t[1], t[2], P, C, F);
    INFO("tiles " << t[0] << " x " << t[1] << ", " << t[2] << " K tiles");
    CHECK(u.ctas == 2);
    CHECK(u.cost_pair <= u.cost_cta);
  }
  const auto skinny = pick_unit(1, 32, 128, P, C, F);
  CHECK(skinny.plan.policy == StreamKPolicy::StreamK);
  CHECK(skinny.plan.min_iters == 64);
  CHECK(skinny.cost_pair == 64 + 2 * F);
  CHECK(skinny.cost_cta == 128);
  // The rule as stated, over a grid: a CTA alone exactly where its whole units cost at most 3/4 of the
  // pair's picked plan, and then with whole units; otherwise the pair with pick_streamk's plan. An even number
  // of M tiles never takes a CTA alone (twice the units on twice the workers: the same turns).
  for (int tiles_m : {1, 2, 3, 5, 8, 33})
    for (int tiles_n : {1, 3, 16, 32, 67, 112})
      for (int iters : {1, 5, 16, 64, 128, 224}) {
        const auto u = pick_unit(tiles_m, tiles_n, iters, P, C, F);
        INFO("tiles " << tiles_m << " x " << tiles_n << ", " << iters << " K tiles");
        const auto pair    = gemm::pick_streamk((tiles_m + 1) / 2 * tiles_n, iters, P, F);
        const long long dp = (long long)((tiles_m * tiles_n + C - 1) / C) * iters;
        CHECK(u.cost_pair == pair.cost);
        CHECK(u.cost_cta == dp);
        CHECK((u.ctas == 1) == (4 * dp <= 3 * pair.cost));
        if (tiles_m % 2 == 0) CHECK(u.ctas == 2);
        CHECK(u.plan.policy == (u.ctas == 1 ? StreamKPolicy::DataParallel : pair.policy));
        CHECK(u.plan.min_iters == (u.ctas == 1 ? 0 : pair.min_iters));
        CHECK(u.plan.cost == (u.ctas == 1 ? dp : pair.cost));
      }
}

// v8d's choice at a shape, as prepare_v8_picked makes it in both v8 files (M tiles of 128, wide N tiles of
// 256, narrow of 64, K tiles of 64; `pairs` clusters of a pair, twice as many CTAs alone; the fixup's 4).
struct Picked {
  gemm::UnitChoice unit;
  gemm::WidthChoice width;
  int unit_rows, units, workers;
  gemm::StreamKChoice plan;  // the plan of the unit taken
};
// narrow_along_n: the Hopper twin's narrow pair (side by side along N); false: the Blackwell one (along M).
static Picked picked(int m, int n, int k, int pairs = 66, bool narrow_along_n = true) {
  using gemm::num_k_tiles;
  using gemm::num_tiles;
  Picked p;
  const int tiles_m = num_tiles(m, 128), iters = num_k_tiles(k, 64);
  p.unit  = gemm::pick_unit(tiles_m, num_tiles(n, 256), iters, pairs, 2 * pairs, 4);
  const int narrow  = gemm::narrow_units(tiles_m, num_tiles(n, 64), narrow_along_n);
  const int percent = narrow_along_n ? gemm::NARROW_PERCENT_SM90 : gemm::NARROW_PERCENT_SM100;
  p.width           = gemm::pick_width(p.unit, narrow, iters, pairs, 4, percent);
  const int ctas = p.width.narrow ? 2 : p.unit.ctas;
  p.unit_rows    = p.width.narrow && narrow_along_n ? tiles_m : (tiles_m + ctas - 1) / ctas;
  p.units        = p.width.narrow ? narrow : p.unit_rows * num_tiles(n, 256);
  p.workers      = ctas == 1 ? 2 * pairs : pairs;
  p.plan         = p.width.narrow ? p.width.plan : p.unit.plan;
  return p;
}

TEST_CASE("stream-K: the tile's width the picking rule takes on Hopper, wide or narrow", "[streamk]") {
  // The measured shapes (docs/performance/tile-shapes.md, "The width: the narrow pair"): v8n (the pair side by
  // side along N) was faster than the wide pair at the first ten, slower at the next seven, on an H100 (66
  // pairs of either width resident); 8192^3 and 128 x 28672 x 4096 (a CTA alone) by the model only. At
  // 128 x 8192 x 8192 the narrow pair has no padding CTA: 64 whole units of 128 K tiles (cost 128, 36% of it
  // 47) against the wide pair's halves (72). The closest calls: 1024 x 1024 x 8192 (narrow 46.08 against 48;
  // measured 7% faster) and 256 x 4096 x 14336 (narrow 80.64 against 79; measured 2.6% slower).
  for (const auto& s : {std::array<int, 3>{512, 512, 512}, {768, 768, 768}, {1000, 1000, 1024},
                        {1024, 1024, 1024}, {256, 256, 8192}, {512, 512, 8192}, {128, 8192, 8192},
                        {1024, 1024, 3072}, {1024, 1024, 4096}, {1024, 1024, 8192}}) {
    INFO(s[0] << " x " << s[1] << " x " << s[2]);
    CHECK(picked(s[0], s[1], s[2]).width.narrow);
  }
  for (const auto& s : {std::array<int, 3>{2048, 2048, 2048}, {4096, 4096, 4096}, {256, 4096, 14336},
                        {1536, 1536, 4096}, {2048, 1024, 4096}, {1024, 2048, 4096}, {1024, 1024, 16384},
                        {8192, 8192, 8192}, {128, 28672, 4096}}) {
    INFO(s[0] << " x " << s[1] << " x " << s[2]);
    CHECK_FALSE(picked(s[0], s[1], s[2]).width.narrow);
  }
  // The narrow units: the Hopper pair side by side along N, the Blackwell one along M (one cta_group::2 MMA).
  CHECK(gemm::narrow_units(16, 16, true) == 128);  // 2048^3 either way: 16 x 8 or 8 x 16
  CHECK(gemm::narrow_units(16, 16, false) == 128);
  CHECK(gemm::narrow_units(1, 128, true) == 64);    // M = 128: no padding CTA along N
  CHECK(gemm::narrow_units(1, 128, false) == 128);  // a padding CTA in every unit along M
  CHECK(gemm::narrow_units(3, 9, true) == 15);
  CHECK(gemm::narrow_units(3, 9, false) == 18);
  // 1024^3: 64 narrow units of 16 K tiles, one turn (16, 36% of it 6 rounded up) against the wide 16 units'.
  const Picked cube = picked(1024, 1024, 1024);
  CHECK(cube.width.plan.policy == StreamKPolicy::DataParallel);
  CHECK(cube.width.cost_narrow == 6);
  CHECK(cube.width.cost_wide == 16);
  // 256 x 256 x 8192: four narrow units split 8 ways each (48, 36%: 18), against the wide unit's 48.
  const Picked one = picked(256, 256, 8192);
  CHECK(one.width.plan.policy == StreamKPolicy::StreamK);
  CHECK(one.width.cost_narrow == 18);
  CHECK(one.width.cost_wide == 48);
  // 2048^3: 256 narrow units, four turns (128, 36%: 47), against one turn of 64 wide units (32).
  CHECK(picked(2048, 2048, 2048).width.cost_narrow == 47);
  CHECK(picked(2048, 2048, 2048).width.cost_wide == 32);
  // The rule as stated, over a grid and both percentages: narrow exactly where that share of the narrow
  // plan's cost is below the picked unit's, the narrow plan pick_streamk's over the narrow units.
  for (int tiles_m : {1, 2, 3, 8, 33})
    for (int tiles_n : {1, 3, 16, 32, 112})
      for (int iters : {1, 5, 16, 64, 224}) {
        INFO("tiles " << tiles_m << " x " << tiles_n << ", " << iters << " K tiles");
        const auto u    = gemm::pick_unit(tiles_m, tiles_n, iters, 66, 132, 4);
        for (int percent : {gemm::NARROW_PERCENT_SM90, gemm::NARROW_PERCENT_SM100}) {
          const auto w    = gemm::pick_width(u, (tiles_m + 1) / 2 * tiles_n * 4, iters, 66, 4, percent);
          const auto plan = gemm::pick_streamk((tiles_m + 1) / 2 * tiles_n * 4, iters, 66, 4);
          CHECK(w.plan.cost == plan.cost);
          CHECK(w.plan.policy == plan.policy);
          CHECK(w.cost_wide == u.plan.cost);
          CHECK(w.narrow == (plan.cost * percent < 100 * u.plan.cost));
          CHECK(w.cost_narrow == (plan.cost * percent + 99) / 100);
        }
      }
}

// The medium tile (v8m, Hopper): taken after the width rule, where 65% of its plan's cost (pairs of 128 x 128
// along N, its own iterations) is below what that rule picked.
static bool picks_medium(int m, int n, int k) {
  const Picked p = picked(m, n, k);
  const int medium_units = gemm::narrow_units(gemm::num_tiles(m, 128), gemm::num_tiles(n, 128), true);
  return gemm::pick_medium(p.width, medium_units, gemm::num_k_tiles(k, 64), 66, 4,
                           gemm::narrow_fill_percent(m));
}

TEST_CASE("stream-K: the medium tile the picking rule takes on Hopper", "[streamk]") {
  // The measured shapes (docs/performance/one-m-tile.md, "Does a 128 x 128 tile pay?", an H200, each pairing
  // with either tile first): v8m faster than the narrow pair at the first seven (the last three checked after
  // the rule was set), slower or level at the next eight (the narrow pair), slower than the pair at 512 x
  // 8192 x 8192 and 256 x 4096 x 14336, than a CTA alone at 128 x 28672 x 8192. Missed, and not listed: 256 x
  // 8192 x 8192 (v8m 3% faster than the pair kept), 48 and 64 x 10240 x 8192 (the narrow pair 1-3% ahead of
  // v8m).
  for (const auto& s : {std::array<int, 3>{96, 8192, 28672}, {128, 8192, 28672}, {128, 10240, 8192},
                        {128, 14336, 8192}, {128, 14336, 4096}, {128, 14336, 2048}, {128, 14336, 1024}}) {
    INFO(s[0] << " x " << s[1] << " x " << s[2]);
    CHECK(picks_medium(s[0], s[1], s[2]));
    CHECK(picked(s[0], s[1], s[2]).width.narrow);  // what it replaces
  }
  for (const auto& s : {std::array<int, 3>{128, 8192, 8192}, {64, 8192, 8192}, {48, 8192, 8192},
                        {128, 4096, 4096}, {128, 4096, 14336}, {64, 4096, 28672}, {128, 8192, 14336},
                        {1024, 1024, 8192}, {1024, 1024, 1024}, {256, 256, 8192}, {512, 8192, 8192},
                        {256, 4096, 14336}, {128, 28672, 8192}, {256, 8192, 8192}, {4096, 4096, 4096}}) {
    INFO(s[0] << " x " << s[1] << " x " << s[2]);
    CHECK_FALSE(picks_medium(s[0], s[1], s[2]));
  }
  // The closest calls: 128 x 8192 x 8192, 32 medium units split in two (72, 65% of it 46.8) against 64 whole
  // narrow units (128, 36% of it 46.08); 128 x 10240 x 8192, 40 units (90: 58.5) against 80 (164: 59.04).
  CHECK(gemm::pick_streamk(32, 128, 66, 4).cost == 72);
  CHECK(picked(128, 8192, 8192).width.plan.cost == 128);
  CHECK(gemm::pick_streamk(40, 128, 66, 4).cost == 90);
  CHECK(picked(128, 10240, 8192).width.plan.cost == 164);
  // The rule as stated, over a grid: medium exactly where 65% of its plan's cost is below the picked width's.
  for (int m : {128, 256, 1024})
    for (int n : {1024, 8192, 28672})
      for (int k : {1024, 8192, 28672}) {
        INFO(m << " x " << n << " x " << k);
        const Picked p       = picked(m, n, k);
        const int units      = gemm::num_tiles(m, 128) * ((gemm::num_tiles(n, 128) + 1) / 2);
        const long long cost = gemm::pick_streamk(units, gemm::num_k_tiles(k, 64), 66, 4).cost;
        const long long then =
            p.width.narrow ? p.width.plan.cost * gemm::NARROW_PERCENT_SM90 : 100 * p.width.cost_wide;
        CHECK(picks_medium(m, n, k) == (cost * gemm::MEDIUM_PERCENT_SM90 < then));
      }
}

TEST_CASE("stream-K: where M ends inside the narrow pair's second A box, the medium tile", "[streamk]") {
  // The rows the TMA fills past M in the last M tile's second 64-row box, squared over 100, shared among the
  // M tiles: none where M ends at or before 64 rows of its last tile, or on a whole tile.
  for (int m : {1, 33, 64, 128, 129, 192, 256, 1024}) CHECK(gemm::narrow_fill_percent(m) == 0);
  CHECK(gemm::narrow_fill_percent(65) == 39);   // 63 rows filled: 3969 / 100
  CHECK(gemm::narrow_fill_percent(72) == 31);   // 56
  CHECK(gemm::narrow_fill_percent(80) == 23);   // 48
  CHECK(gemm::narrow_fill_percent(96) == 10);   // 32
  CHECK(gemm::narrow_fill_percent(112) == 2);   // 16
  CHECK(gemm::narrow_fill_percent(120) == 0);   // 8: 64 / 100
  CHECK(gemm::narrow_fill_percent(200) == 15);  // two M tiles, the last 72 rows: 31 shared by 2
  // The measured shapes (docs/performance/one-m-tile.md, "Which tile where M ends inside a box?"): at 8192 x
  // 8192 the medium tile at 72-112 tokens (6-24% less time than the narrow pair), the narrow pair at 120 (3%
  // missed) and at 64 and 128; at 4096 x 4096 the narrow pair at every M (1-8% missed at 72-88).
  for (int m : {72, 80, 88, 96, 104, 112}) {
    INFO(m << " x 8192 x 8192");
    CHECK(picked(m, 8192, 8192).width.narrow);  // what it replaces
    CHECK(picks_medium(m, 8192, 8192));
  }
  for (int m : {64, 120, 128}) {
    INFO(m << " x 8192 x 8192");
    CHECK_FALSE(picks_medium(m, 8192, 8192));
  }
  for (int m = 33; m <= 128; ++m) {
    INFO(m << " x 4096 x 4096");
    CHECK(picked(m, 4096, 4096).width.narrow);
    CHECK_FALSE(picks_medium(m, 4096, 4096));
  }
  // Without the fill the rule is the one above: at 8192 x 8192 a near tie the narrow pair wins (46.08 against
  // 46.8), which 2% more of the narrow pair's cost turns.
  const auto width = picked(96, 8192, 8192).width;
  CHECK_FALSE(gemm::pick_medium(width, 32, 128, 66, 4, 1));
  CHECK(gemm::pick_medium(width, 32, 128, 66, 4, 2));
}

// The emulated Blackwell tests that force the CTA alone through v8d (tests/CMakeLists.txt,
// gpu/v8/sm100_emulated_cta_alone*): the Blackwell file's unit has the Hopper twin's tiles (128 x 256, K
// tiles of 64), and under emulation its resident counts are an H100's or H200's: 66 pairs or 132 CTAs (SXM,
// H200), 57 or 114 (H100 PCIe). Both shapes take the CTA alone, wide, on all three; 256 x 256 x 8192
// (gpu/v8/sm100_emulated_split) the narrow pair, and the default shape on 66 pairs; 4096 x 4096 x 136 the
// wide pair.
TEST_CASE("stream-K: the emulated v8 tests' shapes take the unit they are named for", "[streamk]") {
  for (int pairs : {66, 57}) {
    INFO(pairs << " pairs");
    const auto bw = [&](int m, int n, int k) { return picked(m, n, k, pairs, /*narrow_along_n=*/false); };
    const Picked alone = bw(300, 9000, 200), skinny = bw(128, 28672, 256);
    CHECK(alone.unit.ctas == 1);  // 3 x 36 tiles: 108 CTAs, one turn; 72 pair units, two
    CHECK_FALSE(alone.width.narrow);
    CHECK(skinny.unit.ctas == 1);  // 1 x 112 tiles: 112 CTAs, one turn; 112 pair units, two
    CHECK_FALSE(skinny.width.narrow);
    // 64 narrow units of 9 K tiles: one turn on 66 pairs (9 narrow iterations, under twice the 16 wide
    // units' 9), two turns on 57 (18: a tie, which goes to the wide units)
    CHECK(bw(1000, 1000, 520).width.narrow == (pairs == 66));
    CHECK(bw(256, 256, 8192).width.narrow);
    CHECK_FALSE(bw(4096, 4096, 136).width.narrow);
    CHECK(bw(4096, 4096, 136).unit.ctas == 2);
  }
}

// The L2 policy of v8's Hopper twin (streamk_l2_policy): B evict-first and the partials discarded only where
// the plan has partials, one unit row covers M and B outgrows the L2. Measured on an H100 (50 MB of L2,
// docs/performance/l2-policy.md): it paid at the first two shapes and cost at the next two.
TEST_CASE("stream-K: the L2 policy is taken where B streams once through an L2 it outgrows", "[streamk]") {
  constexpr long long L2 = 50LL << 20;
  // v8d's plan and unit rows at a shape, as prepare_v8_picked makes them
  const auto policy = [](int m, int n, int k, long long l2) {
    const Picked p               = picked(m, n, k);
    const int min_iters          = p.plan.min_iters > 0 ? p.plan.min_iters : 1;
    const gemm::StreamKPlan plan =
        gemm::make_streamk_plan(p.units, gemm::num_k_tiles(k, 64), p.workers, p.plan.policy, min_iters);
    return gemm::streamk_l2_policy(plan, p.unit_rows, (long long)n * k * 2, l2);
  };
  CHECK(policy(256, 4096, 14336, L2));    // 0.786x -> 0.848x (two runs each)
  CHECK(!policy(128, 8192, 8192, L2));    // wide: 0.840x -> 0.868x; v8d now takes narrow whole units (0.99x)
  CHECK(!policy(256, 256, 8192, L2));     // B is 4 MB: 0.41x -> 0.35x with it (on wide units, before the narrow pair)
  CHECK(!policy(128, 28672, 4096, L2));   // whole units on CTAs alone, no partials: 1.016x -> 0.990x with it
  CHECK(!policy(4096, 4096, 4096, L2));   // 16 unit rows, data-parallel
  CHECK(!policy(256, 4096, 14336, 256LL << 20));  // an L2 that holds B: nothing to protect the partials from
  // the rule itself
  const gemm::StreamKPlan split = gemm::make_streamk_plan(16, 224, 66, StreamKPolicy::StreamK, 1);
  const gemm::StreamKPlan whole = gemm::make_streamk_plan(16, 224, 66, StreamKPolicy::DataParallel, 1);
  CHECK(gemm::streamk_l2_policy(split, 1, L2 + 1, L2));
  CHECK(!gemm::streamk_l2_policy(split, 1, L2, L2));
  CHECK(!gemm::streamk_l2_policy(split, 2, L2 + 1, L2));
  CHECK(!gemm::streamk_l2_policy(whole, 1, L2 + 1, L2));
}

// The partial's layout and the L2 policy's discards (the Hopper twin's fixup): every 128-byte line of a
// warpgroup's partial is dropped exactly once, by one of the 8 threads that read it (lanes of one warp, so
// that the __syncwarp before the discards orders their reads before it), for the wide tile (128 accumulators
// per thread) and the narrow one (32).
TEST_CASE("stream-K: the L2 policy drops each line of a partial once, from a thread that read it", "[streamk]") {
  for (int acc_regs : {128, 32}) {
    INFO("acc_regs " << acc_regs);
    const int float4s = acc_regs / 4 * 128, lines = float4s / 8;
    std::vector<int> reader_group(size_t(lines), -1), dropped(size_t(lines), 0);
    std::vector<int> stored(size_t(float4s), 0);
    for (int t = 0; t < 128; ++t)
      for (int j = 0; j < acc_regs / 4; ++j) {
        const int f = gemm::partial_float4(t, j);
        REQUIRE(f >= 0);
        REQUIRE(f < float4s);
        ++stored[size_t(f)];
        int& g = reader_group[size_t(f / 8)];
        CHECK((g == -1 || g == t / 8));  // a line is read by one group of 8 threads
        g = t / 8;
      }
    for (int f = 0; f < float4s; ++f) CHECK(stored[size_t(f)] == 1);  // the partial: each float4 once
    for (int t = 0; t < 128; ++t)
      for (int i = 0; i < acc_regs / 32; ++i) {
        const int f = gemm::partial_discard_float4(t, i);
        REQUIRE(f >= 0);
        REQUIRE(f < float4s);
        CHECK(f % 8 == 0);                              // the line's first float4 (128-byte aligned)
        CHECK(reader_group[size_t(f / 8)] == t / 8);    // dropped by a thread of the group that read it
        CHECK(t / 32 == reader_group[size_t(f / 8)] / 4);  // in the same warp
        ++dropped[size_t(f / 8)];
      }
    for (int l = 0; l < lines; ++l) CHECK(dropped[size_t(l)] == 1);
  }
}

TEST_CASE("stream-K: no interleaving of resident workers deadlocks on the fixup", "[streamk]") {
  const uint32_t seed = std::random_device{}();
  std::printf("stream-K interleavings: seed %u\n", seed);
  std::mt19937 rng(seed);
  INFO("seed " << seed);
  const int shapes[][3] = {{256, 64, 66}, {1, 128, 66}, {67, 5, 66}, {13, 17, 7}, {1000, 3, 132}, {3, 1, 7}};
  for (const auto& s : shapes)
    for (StreamKPolicy policy : {StreamKPolicy::StreamK, StreamKPolicy::Hybrid})
      for (int run = 0; run < 50; ++run) {
        const StreamKPlan plan = make_streamk_plan(s[0], s[1], s[2], policy, 1);
        INFO(name(policy) << " units=" << s[0] << " iters=" << s[1] << " workers=" << s[2]);
        REQUIRE(interleaving_completes(plan, rng, plan.workers));
      }
}

TEST_CASE("stream-K: the interleaving check fails when not every worker is resident", "[streamk]") {
  // Why the persistent grid is sized from the occupancy calculation: with fewer resident workers than the
  // plan has, a finisher waits for a partial that a worker which cannot start yet would write.
  std::mt19937 rng(1);
  const StreamKPlan plan = make_streamk_plan(7, 5, 3, StreamKPolicy::StreamK, 1);
  REQUIRE(plan.first_worker(2) < plan.last_worker(2));  // unit 2 is split between workers 0 and 1
  CHECK(interleaving_completes(plan, rng, 3));
  CHECK_FALSE(interleaving_completes(plan, rng, 1));
}

// ---- the dynamic order (v7e): the same pieces, drawn at run time from a global counter ----
namespace {

std::vector<gemm::StreamKTask> dynamic_order(const StreamKPlan& plan) {
  std::vector<gemm::StreamKTask> order(size_t(gemm::streamk_dynamic_order(plan, nullptr)));
  gemm::streamk_dynamic_order(plan, order.data());
  return order;
}

// `clusters` clusters, all resident, draw the pieces of `order` in a random interleaving, each up to
// `ahead` pieces beyond the one it works on, and work through what they drew in draw order: a Finisher
// completes only once the partials of its unit's later segments are flagged. False on a deadlock (every
// cluster blocked with the order not yet exhausted, or waiting on a partial nobody holds).
bool dynamic_completes(const StreamKPlan& plan, const std::vector<gemm::StreamKTask>& order, int clusters,
                       int ahead, std::mt19937& rng) {
  std::vector<std::vector<size_t>> held(static_cast<size_t>(clusters));  // drawn, not yet done, in draw order
  std::vector<char> flagged(size_t(plan.workers), 0);
  size_t next = 0;
  for (;;) {
    std::vector<std::pair<int, bool>> moves;  // (cluster, true: draw / false: complete its current piece)
    for (int c = 0; c < clusters; ++c) {
      auto& h = held[size_t(c)];
      if (next < order.size() && int(h.size()) <= ahead) moves.push_back({c, true});
      if (h.empty()) continue;
      const gemm::StreamKPiece p = gemm::piece_of(order[h.front()], plan.iters);
      bool ready                 = true;
      if (p.role == StreamKPiece::Finisher)
        for (int v = order[h.front()].worker + 1; v <= plan.last_worker(p.unit); ++v) ready &= flagged[size_t(v)] != 0;
      if (ready) moves.push_back({c, false});
    }
    if (moves.empty()) {
      for (const auto& h : held)
        if (!h.empty()) return false;
      return next == order.size();
    }
    const auto [c, draw] = moves[std::uniform_int_distribution<size_t>(0, moves.size() - 1)(rng)];
    auto& h              = held[size_t(c)];
    if (draw) {
      h.push_back(next++);
    } else {
      const gemm::StreamKTask& t = order[h.front()];
      if (gemm::piece_of(t, plan.iters).role == StreamKPiece::Partial) flagged[size_t(t.worker)] = 1;
      h.erase(h.begin());
    }
  }
}

}  // namespace

TEST_CASE("stream-K, dynamic order: every piece once, each partial drawn before its unit's finisher", "[streamk]") {
  int configs = 0, split = 0;
  for (int units : {1, 2, 3, 7, 13, 32, 66, 67, 256})
    for (int iters : {1, 2, 5, 16, 17, 128})
      for (int workers : {1, 2, 7, 64, 132, 264})
        for (StreamKPolicy policy : {StreamKPolicy::DataParallel, StreamKPolicy::StreamK, StreamKPolicy::Hybrid})
          for (int min_iters : {1, 4, 32}) {
            const StreamKPlan plan = make_streamk_plan(units, iters, workers, policy, min_iters);
            INFO(name(policy) << " units=" << units << " iters=" << iters << " workers=" << workers
                              << " min_iters=" << min_iters);
            const auto order  = dynamic_order(plan);
            const auto pieces = all_pieces(plan);
            size_t total      = 0;
            for (const auto& w : pieces) total += w.size();
            REQUIRE(order.size() == total);  // exactly the static plan's pieces, no more, no fewer
            std::vector<int> done(size_t(units) * iters, 0), partials(size_t(plan.workers), 0);
            std::vector<long long> finisher_at(size_t(units), -1), last_partial_at(size_t(units), -1);
            for (size_t i = 0; i < order.size(); ++i) {
              const gemm::StreamKTask& t = order[i];
              const StreamKPiece p       = gemm::piece_of(t, iters);
              REQUIRE(t.worker >= 0);
              REQUIRE(t.worker < plan.workers);
              // the piece is the one that worker computes for that unit in the static plan (role included)
              const auto& mine = pieces[size_t(t.worker)];
              const auto it    = std::find_if(mine.begin(), mine.end(), [&](const StreamKPiece& q) {
                return q.unit == p.unit && q.k_begin == p.k_begin;
              });
              REQUIRE(it != mine.end());
              REQUIRE(it->k_end == p.k_end);
              REQUIRE(it->role == p.role);
              for (int k = p.k_begin; k < p.k_end; ++k) ++done[size_t(p.unit) * iters + k];
              if (p.role == StreamKPiece::Partial) {
                ++partials[size_t(t.worker)];
                last_partial_at[size_t(p.unit)] = (long long)i;
              }
              if (p.role == StreamKPiece::Finisher) finisher_at[size_t(p.unit)] = (long long)i;
              // partials, then whole units, then finishers, each in unit order
              const int group = p.role == StreamKPiece::Partial ? 0 : p.role == StreamKPiece::Whole ? 1 : 2;
              if (i > 0) {
                const StreamKPiece q = gemm::piece_of(order[i - 1], iters);
                const int before = q.role == StreamKPiece::Partial ? 0 : q.role == StreamKPiece::Whole ? 1 : 2;
                REQUIRE(before <= group);
                if (before == group) REQUIRE(q.unit <= p.unit);
              }
            }
            for (int d : done) REQUIRE(d == 1);
            for (int n : partials) REQUIRE(n <= 1);  // one partial per worker: its slot is never shared
            for (int u = 0; u < units; ++u) {
              REQUIRE((finisher_at[size_t(u)] >= 0) == (last_partial_at[size_t(u)] >= 0));
              REQUIRE(last_partial_at[size_t(u)] <= finisher_at[size_t(u)]);  // -1 == -1: not split
              if (finisher_at[size_t(u)] >= 0)  // every partial drawn before the finisher
                REQUIRE(last_partial_at[size_t(u)] < finisher_at[size_t(u)]);
              split += finisher_at[size_t(u)] >= 0;
            }
            ++configs;
          }
  std::printf("stream-K dynamic order: %d configurations, %d split units checked\n", configs, split);
  REQUIRE(split > 1000);
}

TEST_CASE("stream-K, dynamic order: no interleaving of drawing clusters deadlocks, finisher first does",
          "[streamk]") {
  const uint32_t seed = std::random_device{}();
  std::printf("stream-K dynamic interleavings: seed %u\n", seed);
  std::mt19937 rng(seed);
  INFO("seed " << seed);
  // (units, iters, plan workers, clusters): more ranges than clusters (v7e's), a single unit in 8 pieces
  // on 1, 2, 5 clusters, fewer pieces than clusters
  const int cases[][4] = {{32, 128, 132, 66}, {1, 128, 8, 1}, {1, 128, 8, 2}, {13, 17, 14, 5},
                          {3, 5, 7, 2},       {67, 5, 132, 66}, {16, 224, 132, 3}, {2, 3, 6, 9}};
  for (const auto& c : cases)
    for (int ahead : {0, 1, 3})
      for (int run = 0; run < 20; ++run) {
        const StreamKPlan plan = make_streamk_plan(c[0], c[1], c[2], StreamKPolicy::StreamK, 1);
        INFO("units=" << c[0] << " iters=" << c[1] << " workers=" << c[2] << " clusters=" << c[3]
                      << " ahead=" << ahead);
        REQUIRE(dynamic_completes(plan, dynamic_order(plan), c[3], ahead, rng));
      }
  // The mutant: each split unit's pieces drawn in K order, the finisher first. One cluster holds the
  // finisher and waits for partials still in the list: a deadlock, caught; with enough clusters to hold
  // every piece of a unit at once it can get through, so it is a possible deadlock, not a certain one.
  const StreamKPlan plan = make_streamk_plan(1, 128, 8, StreamKPolicy::StreamK, 1);
  auto finisher_first    = dynamic_order(plan);
  std::reverse(finisher_first.begin(), finisher_first.end());  // one unit: its segments in K order
  REQUIRE(gemm::piece_of(finisher_first.front(), plan.iters).role == StreamKPiece::Finisher);
  CHECK_FALSE(dynamic_completes(plan, finisher_first, 1, 0, rng));
  int deadlocks = 0;
  for (int run = 0; run < 50; ++run) deadlocks += dynamic_completes(plan, finisher_first, 4, 1, rng) ? 0 : 1;
  CHECK(deadlocks > 0);
}

TEST_CASE("v8d picks the ping-pong tiles at short K where every resident CTA gets a tile, C is stored by TMA and "
          "A's and B's rows are whole L2 sectors",
          "[streamk]") {
  // The shapes measured on an H200 (132 CTAs of v8p resident: one per SM), the rule's answer and the faster
  // kernel there (docs/performance/short-k.md): 128 x 128 tiles, K tiles of 64.
  struct Case {
    int m, n, k;
    bool pingpong;
  };
  const Case cases[] = {{8192, 8192, 256, true},  {8192, 8192, 512, true},  {8192, 8192, 1024, true},
                        {4096, 4096, 512, true},  {4096, 4096, 1024, true}, {2048, 2048, 512, true},
                        {2048, 2048, 2048, true},  {1536, 1536, 2048, true}, {3072, 3072, 2048, true},
                        {4096, 2048, 2048, true},  {4096, 4096, 2048, true}, {2048, 2048, 4096, false},
                        {1024, 1024, 1024, false}, {1000, 1000, 1024, false}, {128, 8192, 8192, false},
                        {4096, 4096, 4096, false}, {8200, 8200, 8192, false}, {4096, 8192, 28672, false},
                        {512, 512, 512, false}};
  for (const Case& c : cases) {
    INFO(c.m << " x " << c.n << " x " << c.k);
    const int tiles = gemm::num_tiles(c.m, 128) * gemm::num_tiles(c.n, 128);
    CHECK(gemm::pick_pingpong(tiles, gemm::num_k_tiles(c.k, 64), 132, true, gemm::rows_whole_sectors(c.k)) ==
          c.pingpong);
  }
  // The bounds: 32 K tiles take it, 33 do not; as many tiles as resident CTAs take it, one fewer does not;
  // N % 8 != 0 (no TMA store of C) never does.
  CHECK(gemm::pick_pingpong(132, gemm::PINGPONG_MAX_K_TILES, 132, true, true));
  CHECK_FALSE(gemm::pick_pingpong(132, gemm::PINGPONG_MAX_K_TILES + 1, 132, true, true));
  CHECK_FALSE(gemm::pick_pingpong(131, 4, 132, true, true));
  CHECK_FALSE(gemm::pick_pingpong(4096, 4, 132, false, true));
  CHECK(gemm::PINGPONG_MAX_K_TILES * 64 == 2048);
  // Rows of A and B an odd multiple of 16 bytes (K % 16 == 8) never take it: 1900 x 3000 x 1032 and 4096^2 x
  // 1032 take v8d's other units; K = 1024, 1040 (rows of 65 sectors) and 1088 take it.
  CHECK_FALSE(gemm::rows_whole_sectors(1032));
  CHECK_FALSE(gemm::rows_whole_sectors(520));
  CHECK(gemm::rows_whole_sectors(1024));
  CHECK(gemm::rows_whole_sectors(1040));
  CHECK(gemm::rows_whole_sectors(1088));
  const int tiles_1900 = gemm::num_tiles(1900, 128) * gemm::num_tiles(3000, 128);  // 360
  CHECK(gemm::pick_pingpong(tiles_1900, gemm::num_k_tiles(1024, 64), 132, true, gemm::rows_whole_sectors(1024)));
  CHECK_FALSE(
      gemm::pick_pingpong(tiles_1900, gemm::num_k_tiles(1032, 64), 132, true, gemm::rows_whole_sectors(1032)));
}

TEST_CASE("v8d takes the ping-pong tiles in CTA pairs (v8c) from 1024 of K where the pairs take no more turns",
          "[streamk]") {
  // (m, n, k, pair) on an H200: 132 CTAs alone, 66 pairs resident; 128 x 128 tiles, K tiles of 64.
  struct Case {
    int m, n, k;
    bool pair;
  };
  const Case cases[] = {
      {8192, 8192, 256, false}, {8192, 8192, 512, false}, {2048, 2048, 512, false},  // K below 1024
      {2048, 2048, 960, false},                                                      // 15 K tiles
      {2048, 2048, 961, true},  // 16 K tiles, the last one K element; 2 turns either way
      {8192, 8192, 1024, true}, {4096, 4096, 2048, true}, {2048, 2048, 2048, true},
      {1900, 3000, 1024, true},   // 15 tiles down: 192 pair units, 3 turns, as 360 tiles alone
      {100, 20000, 1024, false},  // one tile down: 157 pairs of a tile and padding, 3 turns against 2
      {384, 20000, 1024, false},  // three down: 314 pair units, 5 turns against 4
      {512, 20000, 1024, true},   // four down: 314 units, 5 turns, as 628 tiles alone
  };
  for (const Case& c : cases) {
    INFO(c.m << " x " << c.n << " x " << c.k);
    CHECK(gemm::pick_pingpong_pair(gemm::num_k_tiles(c.k, 64), gemm::num_tiles(c.m, 128), gemm::num_tiles(c.n, 128),
                                   132, 66) == c.pair);
  }
  CHECK(gemm::PINGPONG_PAIR_MIN_K_TILES * 64 == 1024);
  // Within the ping-pong kernel's K range (PINGPONG_MAX_K_TILES), so both picks hold at once at 17-32 tiles
  CHECK(gemm::PINGPONG_PAIR_MIN_K_TILES < gemm::PINGPONG_MAX_K_TILES);
}

TEST_CASE("the ping-pong tiles' width: 144 where it saves a tenth of the busiest CTA's columns",
          "[streamk]") {
  // (m, n, width on 132 CTAs of either width)
  struct Case {
    int m, n, width;
  } cases[] = {{1536, 1536, 144},  // 144 tiles of 128 (2 turns, 256 columns) against 132 of 144 (1 turn, 144)
               {3072, 3072, 144},  // 576 tiles, 5 turns (640) against 528, 4 turns (576): 90%
               {2048, 2048, 128},  // 256 tiles, 2 turns (256) against 240, 2 turns (288)
               {8192, 8192, 128},  // 4096 tiles, 32 turns (4096) against 3648, 28 turns (4032): 98%
               {4096, 2048, 128},  // 512 tiles, 4 turns (512) against 480, 4 turns (576)
               {4096, 4096, 128},  // 1024, 8 turns (1024) against 928, 8 turns (1152)
               {4096, 1536, 128},  // 384 tiles, 3 turns (384) against 352, 3 turns (432)
               {2304, 2304, 128}};  // 324 tiles, 3 turns (384) against 288, 3 turns (432)
  for (const Case& c : cases) {
    const int tiles_m = gemm::num_tiles(c.m, 128);
    const int narrow = tiles_m * gemm::num_tiles(c.n, 128), wide = tiles_m * gemm::num_tiles(c.n, 144);
    const int busiest = (narrow + 131) / 132 * 128, wide_busiest = (wide + 131) / 132 * 144;
    INFO(c.m << " x " << c.n << ": " << narrow << " tiles (" << busiest << " columns) against " << wide
             << " (" << wide_busiest << ")");
    CHECK(gemm::pick_pingpong_width(narrow, wide, 132, 132, 128, 144) == c.width);
    CHECK((c.width == 144) == (100 * wide_busiest <= 90 * busiest));
  }
}
