// test_v6_protocol.cpp: the synchronisation protocol of the Blackwell v6 kernel (v6_persistent/matmul_v6.cu),
// which no GPU here can run, executed on the CPU against the model of tests/protocol_model.h.
//
// One 2-CTA cluster of the persistent grid, every role a host thread running the kernel's code line for line
// (warp 0 the producer of each CTA; warp 1 of each CTA the TMEM allocation, and CTA 0's the MMA thread; the 4
// epilogue warps of each CTA), with the kernel's own schedule (common/scheduler.h) and edge arithmetic
// (common/edge.h), from barrier init through the setup cluster barriers and the 2-CTA allocation to the
// teardown cluster barrier and exit. Besides the model's own (protocol_model.h), checked on every event:
//  - a TMA copy never overwrites a ring stage that an issued MMA has not read yet, nor one whose last load
//    was never read;
//  - an MMA reads, in both CTAs, the A and B of its own tile and K step (where they were loaded: a box wholly
//    outside the tensor is not loaded, and what the MMA reads there only reaches outputs that are not
//    stored);
//  - MMAs execute in issue order, later; a commit's arrival happens after every earlier MMA has executed,
//    but the arrivals of two commits may land in either order;
//  - the first MMA of a tile overwrites an accumulator only after all 4 epilogue warps of each CTA read its
//    previous tile; an epilogue reads an accumulator only when all K steps of its tile are in it;
//  - every valid tile is stored once by each of the 4 row quarters, padding tiles never;
//  - nothing is still in flight towards a CTA when it exits.
// Mutants of the protocol must be caught: the tmem_empty count of one CTA's warps only, the ring restarting
// at stage 0 for each tile, no producer tail, the 2-CTA allocation before the first cluster barrier.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "common/edge.h"
#include "common/scheduler.h"
#include "protocol_model.h"

using gemm::ScheduledTile;
using gemm::ScheduleKind;
using gemm::TileSchedule;
using protocol::Barrier;
using protocol::Machine;

namespace {

// The kernel's constants (v6_persistent/matmul_v6.cu); NUM_STAGES also varies below, the protocol is generic.
constexpr int BLOCK_M = 128, BLOCK_N = 256, BLOCK_K = 64, CLUSTER_SIZE = 2, B_HALF_ROWS = BLOCK_N / 2;
constexpr int NUM_ACCUMULATORS = 2, NUM_EPILOGUE_WARPS = 4, GROUP_M = 16, NUM_WARPS = 6;
constexpr uint32_t A_BYTES = 16384, B_BYTES = 16384;

enum class Mutant { None, EmptyCountOneCta, RingRestartsPerTile, NoProducerTail, AllocBeforeClusterBarrier };

struct Config {
  int m, n, k;
  int num_clusters, cluster_id;
  ScheduleKind kind;
  int num_stages;
  Mutant mutant          = Mutant::None;
  uint64_t seed          = 1;
  int slow_epilogue_rank = -1;    // the epilogue warps of this CTA sleep before each tile (any role may be
  int slow_epilogue_us   = 2000;  // slow: the protocol must not depend on speed)
  bool lazy = false;  // deliver an arrival (or TMA bytes) only once some role waits on its barrier: as
                      // late as the hardware may; what nobody waits for stays in flight to the end
  int skew_us[CLUSTER_SIZE] = {0, 0};  // each CTA starts this long after the cluster's launch
  protocol::Options model;             // the explorations' switches (seed and lazy are set from above)
};

class Model {
 public:
  explicit Model(const Config& c)
      : c_(c),
        m_(options(c)),
        tiles_m_(gemm::num_tiles(c.m, BLOCK_M)),
        tiles_n_(gemm::num_tiles(c.n, BLOCK_N)),
        k_tiles_(gemm::num_k_tiles(c.k, BLOCK_K)) {
    for (int r = 0; r < CLUSTER_SIZE; ++r) {
      for (int s = 0; s < c.num_stages; ++s) {
        full_[r].push_back(&m_.barrier(r, "tma_full_bar[" + std::to_string(s) + "]"));
        mma_done_[r].push_back(&m_.barrier(r, "mma_done_bar[" + std::to_string(s) + "]"));
        for (int op = 0; op < 2; ++op) stage_[r][op].push_back({});
      }
      for (int a = 0; a < NUM_ACCUMULATORS; ++a) {
        tmem_full_[r].push_back(&m_.barrier(r, "tmem_full_bar[" + std::to_string(a) + "]"));
        tmem_empty_[r].push_back(&m_.barrier(r, "tmem_empty_bar[" + std::to_string(a) + "]"));
        acc_[r].push_back({});
      }
    }
  }

  long negative_tx() { return m_.negative_tx_count(); }

  // Runs the cluster; returns "" or what went wrong.
  std::string run() {
    m_.start_delivery();
    cluster_ = m_.launch_cluster({0, 1}, NUM_WARPS, {c_.skew_us[0], c_.skew_us[1]});
    for (int r = 0; r < CLUSTER_SIZE; ++r) cta_[r] = m_.cta(cluster_, r);
    for (int r = 0; r < CLUSTER_SIZE; ++r)
      for (int w = 0; w < NUM_WARPS; ++w) m_.spawn(cta_[r], [this, r, w] { warp(r, w); });
    m_.join_threads();
    const std::string error = m_.finish();
    if (!error.empty()) return error;
    // every valid tile stored once per row quarter, padding never
    for (int tm = 0; tm <= tiles_m_; ++tm)
      for (int tn = 0; tn < tiles_n_; ++tn)
        for (int q = 0; q < 4; ++q) {
          const int expect = tm < tiles_m_ && tile_of_this_cluster(tm, tn) ? 1 : 0;
          const auto it    = stored_.find(std::make_tuple(tm, tn, q));
          const int got    = it == stored_.end() ? 0 : it->second;
          if (got != expect) {
            std::ostringstream s;
            s << "tile (" << tm << ", " << tn << ") quarter " << q << " stored " << got << " times, not "
              << expect;
            return s.str();
          }
        }
    return "";
  }

 private:
  struct StageContent {
    int turn = -1, k_tile = -1;  // what the last TMA copy wrote (-1: nothing yet)
    bool read         = true;    // an MMA has read it since
    int reads_pending = 0;       // MMAs issued that read it and have not executed yet
  };
  struct AccContent {
    int turn = -1, k_done = 0;
    int reads = NUM_EPILOGUE_WARPS;  // epilogue warps that read this turn's result (fresh TMEM: free)
  };

  static protocol::Options options(const Config& c) {
    protocol::Options o = c.model;
    o.seed              = c.seed;
    o.lazy              = c.lazy;
    return o;
  }

  template <typename F>
  void for_each_tile(int rank, F f) const {
    switch (c_.kind) {
      case ScheduleKind::Static:
        walk<ScheduleKind::Static>(rank, f);
        break;
      case ScheduleKind::Grouped:
        walk<ScheduleKind::Grouped>(rank, f);
        break;
      case ScheduleKind::Hilbert:
        walk<ScheduleKind::Hilbert>(rank, f);
        break;
    }
  }
  template <ScheduleKind K, typename F>
  void walk(int rank, F f) const {
    TileSchedule<K> s(tiles_m_, tiles_n_, c_.num_clusters, c_.cluster_id, CLUSTER_SIZE, rank, GROUP_M);
    int turn = 0;
    for (ScheduledTile t; s.next(t); ++turn)
      if (!f(turn, t)) return;
  }
  bool tile_of_this_cluster(int tm, int tn) const {
    bool found = false;
    for (int r = 0; r < CLUSTER_SIZE; ++r)
      for_each_tile(r, [&](int, const ScheduledTile& t) {
        found = found || (t.valid && t.m == tm && t.n == tn);
        return true;
      });
    return found;
  }

  // ---- one warp of CTA `rank`, as in the kernel: setup, its role, teardown ----
  void warp(int rank, int warp_id) {
    if (!setup(rank, warp_id)) return;
    if (warp_id == 0)
      producer(rank);
    else if (warp_id == 1 && rank == 0)
      mma();
    else if (warp_id >= 2)
      epilogue(rank, warp_id);
    // teardown: every TMEM read of both CTAs is done before warp 1 frees the pair's TMEM, then exit
    m_.cluster_sync(cluster_, "teardown");
  }

  bool setup(int rank, int warp_id) {
    if (warp_id == 0) {  // barrier init by one thread
      std::lock_guard<std::mutex> lock(m_.mu);
      const int empty_count =
          c_.mutant == Mutant::EmptyCountOneCta ? NUM_EPILOGUE_WARPS : NUM_EPILOGUE_WARPS * CLUSTER_SIZE;
      for (int s = 0; s < c_.num_stages; ++s) {
        m_.init_locked(*full_[rank][size_t(s)], cta_[rank], CLUSTER_SIZE);
        m_.init_locked(*mma_done_[rank][size_t(s)], cta_[rank], 1);
      }
      for (int a = 0; a < NUM_ACCUMULATORS; ++a) {
        m_.init_locked(*tmem_full_[rank][size_t(a)], cta_[rank], 1);
        m_.init_locked(*tmem_empty_[rank][size_t(a)], cta_[rank], empty_count);
      }
    }
    // cluster barrier 1 (the mutant allocates before it, as the kernel once did), the allocation by warp 1
    // of each CTA, cluster barrier 2
    if (c_.mutant != Mutant::AllocBeforeClusterBarrier && !m_.cluster_sync(cluster_, "setup 1")) return false;
    if (warp_id == 1 && !m_.alloc_2cta(cta_[rank])) return false;
    return m_.cluster_sync(cluster_, "setup 2");
  }

  void producer(int rank) {
    int stage = 0, empty_phase = 1;
    auto advance = [&] {
      if (++stage == c_.num_stages) {
        stage = 0;
        empty_phase ^= 1;
      }
    };
    for_each_tile(rank, [&](int turn, const ScheduledTile& t) {
      const int m0 = t.m * BLOCK_M, b_row0 = t.n * BLOCK_N + rank * B_HALF_ROWS;
      if (c_.mutant == Mutant::RingRestartsPerTile) {
        stage       = 0;
        empty_phase = 1;
      }
      for (int k_tile = 0; k_tile < k_tiles_; ++k_tile) {
        if (!m_.wait(*mma_done_[rank][size_t(stage)], empty_phase, "mma_done_bar")) return false;
        const bool load_a = m0 < c_.m, load_b = b_row0 < c_.n;
        std::lock_guard<std::mutex> lock(m_.mu);
        Barrier& full = *full_[0][size_t(stage)];
        m_.arrive_expect_tx_locked(full, cta_[0], (load_a ? A_BYTES : 0) + (load_b ? B_BYTES : 0));
        for (int op = 0; op < 2; ++op) {
          if (!(op == 0 ? load_a : load_b)) continue;
          const int s = stage;
          Machine::Event e;
          e.fn = [this, rank, op, s, turn, k_tile, &full] {
            StageContent& st = stage_[rank][op][size_t(s)];
            if (st.reads_pending > 0)
              return m_.fail_locked("TMA overwrote a stage an issued MMA has not read");
            if (!st.read) return m_.fail_locked("TMA overwrote a stage whose last load was never read");
            st = {turn, k_tile, false, 0};
            m_.complete_tx_locked(full, op == 0 ? A_BYTES : B_BYTES);
          };
          e.key         = &full;
          e.target      = &full;
          e.target_cta  = cta_[0];
          e.smem_cta[0] = cta_[rank];
          e.what        = std::string("TMA ") + (op == 0 ? "A" : "B") + " of CTA " + std::to_string(rank);
          m_.post_locked(std::move(e));
        }
        advance();
      }
      return true;
    });
    if (c_.mutant == Mutant::NoProducerTail) return;
    for (int i = 0; i < c_.num_stages; ++i) {
      if (!m_.wait(*mma_done_[rank][size_t(stage)], empty_phase, "mma_done_bar (tail)")) return;
      advance();
    }
  }

  void mma() {
    int stage = 0, full_phase = 0, acc = 0, acc_empty_phase = 1;
    {
      std::lock_guard<std::mutex> lock(m_.mu);
      for (int r = 0; r < CLUSTER_SIZE; ++r) m_.tmem_check_locked(cta_[r], "the MMA thread");
    }
    // both CTAs' tiles of each turn (the MMA of the pair reads both)
    std::vector<ScheduledTile> rank1;
    for_each_tile(1, [&](int, const ScheduledTile& t) {
      rank1.push_back(t);
      return true;
    });
    for_each_tile(0, [&](int turn, const ScheduledTile& t0) {
      if (c_.mutant == Mutant::RingRestartsPerTile) {
        stage      = 0;
        full_phase = 0;
      }
      if (!m_.wait(*tmem_empty_[0][size_t(acc)], acc_empty_phase, "tmem_empty_bar")) return false;
      const ScheduledTile tiles[CLUSTER_SIZE] = {t0, rank1[size_t(turn)]};
      for (int k_tile = 0; k_tile < k_tiles_; ++k_tile) {
        if (!m_.wait(*full_[0][size_t(stage)], full_phase, "tma_full_bar")) return false;
        std::lock_guard<std::mutex> lock(m_.mu);
        for (int r = 0; r < CLUSTER_SIZE; ++r)
          for (int op = 0; op < 2; ++op) ++stage_[r][op][size_t(stage)].reads_pending;
        const int s = stage, a = acc;
        Machine::Event mma;  // the MMAs of this K tile execute
        mma.fn = [this, s, a, turn, k_tile, tiles] {
          for (int r = 0; r < CLUSTER_SIZE; ++r) {
            const bool need[2] = {tiles[r].valid, tiles[r].n * BLOCK_N + r * B_HALF_ROWS < c_.n};
            for (int op = 0; op < 2; ++op) {
              StageContent& st = stage_[r][op][size_t(s)];
              --st.reads_pending;
              if (need[op] && (st.turn != turn || st.k_tile != k_tile))
                return m_.fail_locked("an MMA read a stage that does not hold its tile and K step");
              st.read = true;
            }
            AccContent& ac = acc_[r][size_t(a)];
            if (k_tile == 0) {
              if (ac.reads != NUM_EPILOGUE_WARPS)
                return m_.fail_locked("an MMA overwrote an accumulator before the epilogue of a CTA read it");
              ac = {turn, 1, 0};
            } else {
              if (ac.turn != turn || ac.k_done != k_tile)
                return m_.fail_locked("MMA accumulated out of order");
              ++ac.k_done;
            }
          }
        };
        mma.smem_cta[0] = cta_[0];
        mma.smem_cta[1] = cta_[1];
        mma.what        = "an MMA";
        m_.post_fifo_locked(std::move(mma));
        m_.post_fifo_locked(commit(mma_done_, s, "mma_done_bar"));
        if (++stage == c_.num_stages) {
          stage = 0;
          full_phase ^= 1;
        }
      }
      {
        std::lock_guard<std::mutex> lock(m_.mu);
        m_.post_fifo_locked(commit(tmem_full_, acc, "tmem_full_bar"));
      }
      if (++acc == NUM_ACCUMULATORS) {
        acc = 0;
        acc_empty_phase ^= 1;
      }
      return true;
    });
  }
  // tcgen05.commit multicast to both CTAs: once every earlier MMA has executed, one arrival in each CTA,
  // each landing on its own
  Machine::Event commit(std::vector<Barrier*> (&bars)[CLUSTER_SIZE], int i, const std::string& name) {
    Machine::Event e;
    e.fn = [this, &bars, i, name] {
      for (int r = 0; r < CLUSTER_SIZE; ++r) {
        Barrier& b = *bars[r][size_t(i)];
        Machine::Event arrival;
        arrival.fn         = [this, &b] { m_.arrive_locked(b); };
        arrival.key        = &b;
        arrival.target     = &b;
        arrival.target_cta = cta_[r];
        arrival.what       = "the commit to " + b.name;
        m_.post_locked(std::move(arrival));
      }
    };
    e.smem_cta[0] = cta_[0];
    e.what        = "a commit to " + name + "[" + std::to_string(i) + "]";
    return e;
  }

  void epilogue(int rank, int warp_id) {
    const int quarter = warp_id % 4;  // gemm::tmem_warp_lane_base(warp_id) / 32
    int acc = 0, acc_full_phase = 0;
    {
      std::lock_guard<std::mutex> lock(m_.mu);
      m_.tmem_check_locked(cta_[rank], "an epilogue warp");
    }
    for_each_tile(rank, [&](int turn, const ScheduledTile& t) {
      if (rank == c_.slow_epilogue_rank)
        std::this_thread::sleep_for(std::chrono::microseconds(c_.slow_epilogue_us));
      if (!m_.wait(*tmem_full_[rank][size_t(acc)], acc_full_phase, "tmem_full_bar")) return false;
      std::lock_guard<std::mutex> lock(m_.mu);
      AccContent& ac = acc_[rank][size_t(acc)];
      if (ac.turn != turn || ac.k_done != k_tiles_) {
        m_.fail_locked("an epilogue read an accumulator that does not hold its whole tile");
        return false;
      }
      ++ac.reads;
      if (gemm::tile_extent(c_.m, BLOCK_M, t.m) > 0) ++stored_[std::make_tuple(t.m, t.n, quarter)];
      if (c_.mutant != Mutant::EmptyCountOneCta || rank == 0)
        m_.thread_arrive_locked(*tmem_empty_[0][size_t(acc)], cta_[0]);
      if (++acc == NUM_ACCUMULATORS) {
        acc = 0;
        acc_full_phase ^= 1;
      }
      return true;
    });
  }

  const Config c_;
  Machine m_;
  const int tiles_m_, tiles_n_, k_tiles_;
  int cluster_ = -1, cta_[CLUSTER_SIZE] = {-1, -1};
  std::vector<Barrier*> full_[CLUSTER_SIZE], mma_done_[CLUSTER_SIZE], tmem_full_[CLUSTER_SIZE],
      tmem_empty_[CLUSTER_SIZE];
  std::vector<StageContent> stage_[CLUSTER_SIZE][2];  // under m_.mu, as everything the roles share
  std::vector<AccContent> acc_[CLUSTER_SIZE];
  std::map<std::tuple<int, int, int>, int> stored_;
};

std::string describe(const Config& c) {
  std::ostringstream s;
  s << "M=" << c.m << " N=" << c.n << " K=" << c.k << ", cluster " << c.cluster_id << " of " << c.num_clusters
    << ", order " << int(c.kind) << ", " << c.num_stages << " stages, seed " << c.seed
    << (c.lazy ? ", lazy" : "") << ", CTA start skews " << c.skew_us[0] << "/" << c.skew_us[1] << " us";
  return s.str();
}

// A random launch skew per CTA: 0-300 us for either, so that either may start first.
void random_skews(Config& c, uint64_t salt) {
  std::mt19937_64 g(protocol::mix64(c.seed ^ salt));
  for (int& s : c.skew_us) s = std::uniform_int_distribution<int>(0, 3)(g) == 0 ? 0 : int(g() % 300);
}

}  // namespace

TEST_CASE("v6 Blackwell protocol: every interleaving tried keeps both rings safe and ends cleanly",
          "[v6][protocol]") {
  // shapes: one tile; odd tiles_m (padding tile) with N inside the first B half; fewer K tiles than stages;
  // a short last K tile; several turns per cluster; a ragged everything
  const int shapes[][3] = {{1, 1, 8},        {129, 100, 72},   {300, 513, 520},
                           {1000, 1000, 64}, {257, 257, 1032}, {640, 1024, 256}};
  int runs              = 0;
  for (const auto& sh : shapes)
    for (int stages : {2, 3, 7})
      for (ScheduleKind kind : {ScheduleKind::Static, ScheduleKind::Grouped, ScheduleKind::Hilbert})
        for (int clusters : {1, 3}) {
          Config c{sh[0], sh[1], sh[2], clusters, clusters - 1, kind, stages};
          c.seed               = protocol::run_seed(uint64_t(runs));
          c.lazy               = runs % 2 == 1;
          c.slow_epilogue_rank = runs % 3 - 1;  // none, CTA 0's, CTA 1's
          random_skews(c, 1);
          INFO(describe(c));
          Model model(c);
          const std::string error = model.run();
          INFO(error);
          CHECK(error.empty());
          ++runs;
        }
  CHECK(runs == 108);
}

TEST_CASE("v6 Blackwell protocol: the model catches broken protocols", "[v6][protocol][negative]") {
  // Each mutant must fail in at least one of a few random interleavings (most fail in every one). Without
  // the producer tail, the last commits' arrivals are still in flight at the exit when they come late, which
  // the lazy delivery makes certain. With the allocation before the first cluster barrier, CTA 1 starts late
  // in every run (as a CTA may), so CTA 0's half of the exchange writes into a CTA that has not started.
  struct Case {
    Mutant mutant;
    const char* name;
  };
  for (const Case& m :
       {Case{Mutant::EmptyCountOneCta, "tmem_empty counts one CTA's epilogue warps"},
        Case{Mutant::RingRestartsPerTile, "the ring restarts at stage 0 for each tile"},
        Case{Mutant::NoProducerTail, "no producer tail before the exit barrier"},
        Case{Mutant::AllocBeforeClusterBarrier, "TMEM allocation before the cluster barrier"}}) {
    int failures = 0;
    for (uint64_t run = 1; run <= 12; ++run) {
      Config c{1000, 1000, 64 * 5, 1, 0, ScheduleKind::Static, 3, m.mutant, protocol::run_seed(1000 + run)};
      c.lazy = m.mutant == Mutant::NoProducerTail || run % 2 == 0;
      c.slow_epilogue_rank =
          m.mutant == Mutant::EmptyCountOneCta ? 1 : -1;  // CTA 1's, which is not waited for
      c.slow_epilogue_us = 20000;                         // far behind the MMAs, even on a loaded machine
      if (m.mutant == Mutant::AllocBeforeClusterBarrier) c.skew_us[1] = 3000;
      const std::string error = Model(c).run();
      if (std::getenv("V6_PROTOCOL_VERBOSE")) std::printf("%s run %d: %s\n", m.name, int(run), error.c_str());
      failures += error.empty() ? 0 : 1;
    }
    INFO(m.name << ": failed " << failures << " of 12 runs");
    CHECK(failures > 0);
  }
}

TEST_CASE("v6 Blackwell protocol: TMA bytes before their arrive.expect_tx, epilogue arrivals in flight",
          "[v6][protocol][exploration]") {
  // The tx-count may go below zero (PTX ISA "mbarrier": bytes may complete before the expect-tx that
  // announces them); the epilogue's relaxed arrivals on CTA 0's tmem_empty_bar are in flight until they land
  // or the warp's barrier.cluster.arrive.release at the teardown performs them. The protocol must hold in
  // both, and the bytes-first order must actually occur.
  long negative = 0;
  int runs      = 0;
  for (int stages : {2, 7})
    for (int clusters : {1, 3})
      for (int lazy = 0; lazy < 2; ++lazy) {
        Config c{640, 1024, 256, clusters, clusters - 1, ScheduleKind::Grouped, stages};
        c.seed                            = protocol::run_seed(2000 + uint64_t(runs));
        c.lazy                            = lazy == 1;
        c.slow_epilogue_rank              = runs % 3 - 1;
        c.model.expect_tx_in_flight       = true;
        c.model.thread_arrivals_in_flight = true;
        random_skews(c, 2);
        INFO(describe(c));
        Model model(c);
        const std::string error = model.run();
        INFO(error);
        CHECK(error.empty());
        negative += model.negative_tx();
        ++runs;
      }
  std::printf("v6: TMA bytes landed before their arrive.expect_tx %ld times in %d runs, all passed\n",
              negative, runs);
  CHECK(negative > 0);
  // Without the release ordering them, the arrivals of the last tiles, which nobody waits for, would still
  // be in flight when CTA 0 exits: the kernel relies on barrier.cluster.arrive being .release.
  int failures = 0;
  for (uint64_t run = 1; run <= 6; ++run) {
    Config c{640, 1024, 256, 1, 0, ScheduleKind::Static, 3};
    c.seed                            = protocol::run_seed(3000 + run);
    c.lazy                            = true;
    c.model.thread_arrivals_in_flight = true;
    c.model.release_orders_arrivals   = false;
    const std::string error           = Model(c).run();
    if (std::getenv("V6_PROTOCOL_VERBOSE"))
      std::printf("no release ordering run %d: %s\n", int(run), error.c_str());
    failures += error.empty() ? 0 : 1;
  }
  INFO("epilogue arrivals not ordered by the teardown barrier: failed " << failures << " of 6 runs");
  CHECK(failures > 0);
}
