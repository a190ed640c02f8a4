// test_v6_protocol.cpp: the synchronisation protocol of the Blackwell v6 kernel (v6_persistent/matmul_v6.cu),
// which no GPU here can run, executed on the CPU against a model of its mbarriers and asynchronous units.
//
// One 2-CTA cluster of the persistent grid, every role a host thread running the kernel's loops line for line
// (producer of each CTA, the MMA thread of CTA 0, the 4 epilogue warps of each CTA), with the kernel's own
// schedule (common/scheduler.h) and edge arithmetic (common/edge.h). The model, from the PTX ISA
// ("mbarrier", "tcgen05.commit", "tcgen05 Memory Consistency Model"):
//  - an mbarrier counts pending arrivals and transaction bytes; its phase completes when both reach zero;
//    try_wait.parity(p) succeeds once the phase of parity p has completed (so parity 1 passes at first);
//  - a TMA copy completes (writes shared memory, then its bytes) at an arbitrary later time, in any order;
//  - MMAs execute in issue order, later; a commit's arrival happens after every earlier MMA has executed,
//    but the arrivals of two commits may land in either order.
// A delivery thread performs the asynchronous events in a random order with random delays, and the role
// threads sleep at random, so each run explores another interleaving. Checked on every event:
//  - a TMA copy never overwrites a ring stage that an issued MMA has not read yet, nor one whose last load
//    was never read;
//  - an MMA reads, in both CTAs, the A and B of its own tile and K step (where they were loaded: a box wholly
//    outside the tensor is not loaded, and what the MMA reads there only reaches outputs that are not
//    stored);
//  - the first MMA of a tile overwrites an accumulator only after all 4 epilogue warps of each CTA read its
//    previous tile; an epilogue reads an accumulator only when all K steps of its tile are in it;
//  - every valid tile is stored once by each of the 4 row quarters, padding tiles never;
//  - nothing is still in flight towards either CTA once all roles reach the final cluster barrier;
//  - no wait lasts 2 s (a hang).
// Mutants of the protocol (the tmem_empty count of one CTA's warps only, the ring restarting at stage 0 for
// each tile, no producer tail) must be caught.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "common/edge.h"
#include "common/scheduler.h"

using gemm::ScheduledTile;
using gemm::ScheduleKind;
using gemm::TileSchedule;

namespace {

// The kernel's constants (v6_persistent/matmul_v6.cu); NUM_STAGES also varies below, the protocol is generic.
constexpr int BLOCK_M = 128, BLOCK_N = 256, BLOCK_K = 64, CLUSTER_SIZE = 2, B_HALF_ROWS = BLOCK_N / 2;
constexpr int NUM_ACCUMULATORS = 2, NUM_EPILOGUE_WARPS = 4, GROUP_M = 16;
constexpr uint32_t A_BYTES = 16384, B_BYTES = 16384;

enum class Mutant { None, EmptyCountOneCta, RingRestartsPerTile, NoProducerTail };

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
};

struct Barrier {
  int count = 1, pending = 1;
  long tx   = 0;
  int phase = 0;  // parity of the phase in progress
};

class Model {
 public:
  explicit Model(const Config& c)
      : c_(c),
        rng_(c.seed),
        jitter_rng_(c.seed * 31 + 7),
        tiles_m_(gemm::num_tiles(c.m, BLOCK_M)),
        tiles_n_(gemm::num_tiles(c.n, BLOCK_N)),
        k_tiles_(gemm::num_k_tiles(c.k, BLOCK_K)) {
    const int S = c.num_stages;
    for (int r = 0; r < CLUSTER_SIZE; ++r) {
      for (int s = 0; s < S; ++s) {
        full_[r].push_back(make_bar(CLUSTER_SIZE));
        mma_done_[r].push_back(make_bar(1));
        for (int op = 0; op < 2; ++op) stage_[r][op].push_back({});
      }
      for (int a = 0; a < NUM_ACCUMULATORS; ++a) {
        tmem_full_[r].push_back(make_bar(1));
        const int empty_count =
            c.mutant == Mutant::EmptyCountOneCta ? NUM_EPILOGUE_WARPS : NUM_EPILOGUE_WARPS * CLUSTER_SIZE;
        tmem_empty_[r].push_back(make_bar(empty_count));
        acc_[r].push_back({});
      }
    }
  }

  // Runs the cluster; returns "" or what went wrong.
  std::string run() {
    std::vector<std::thread> roles;
    std::thread hw([this] { deliver(); });
    for (int r = 0; r < CLUSTER_SIZE; ++r) roles.emplace_back([this, r] { producer(r); });
    roles.emplace_back([this] { mma(); });
    for (int r = 0; r < CLUSTER_SIZE; ++r)
      for (int w = 2; w < 2 + NUM_EPILOGUE_WARPS; ++w) roles.emplace_back([this, r, w] { epilogue(r, w); });
    for (auto& t : roles) t.join();
    // every role is at the final cluster barrier: nothing may still be on its way to either CTA
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (error_.empty() && (!pool_.empty() || !fifo_.empty()))
        fail_locked("an asynchronous arrival is still in flight when the CTAs reach the exit barrier");
      roles_done_ = true;
    }
    cv_.notify_all();
    hw.join();
    if (!error_.empty()) return error_;
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
  struct Event {
    std::function<void()> fn;
    const Barrier* target;  // the barrier it arrives on (pool events), nullptr for the FIFO
  };

  Barrier make_bar(int count) {
    Barrier b;
    b.count = b.pending = count;
    return b;
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

  // ---- the mbarrier model (callers hold mu_) ----
  void complete_if_done(Barrier& b) {
    if (b.pending == 0 && b.tx == 0) {
      b.phase ^= 1;
      b.pending = b.count;
      cv_.notify_all();
    }
  }
  void arrive_locked(Barrier& b, long expect_tx = 0) {
    if (b.pending == 0) return fail_locked("arrival on a barrier with no arrival pending");
    b.tx += expect_tx;
    --b.pending;
    complete_if_done(b);
  }
  void complete_tx_locked(Barrier& b, long bytes) {
    b.tx -= bytes;
    complete_if_done(b);
  }
  // Blocks until the phase of parity `parity` has completed; false on a failure elsewhere or a hang.
  bool wait(Barrier& b, int parity, const char* what) {
    jitter();
    std::unique_lock<std::mutex> lock(mu_);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    ++waiting_[&b];
    cv_.notify_all();  // a lazy delivery may now be due
    while (error_.empty() && b.phase == parity) {
      if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && b.phase == parity) {
        fail_locked(std::string("hang: waiting on ") + what);
        break;
      }
    }
    --waiting_[&b];
    return error_.empty();
  }
  void fail_locked(const std::string& why) {
    if (error_.empty()) error_ = why;
    cv_.notify_all();
  }
  void jitter() {
    int us;
    {
      std::lock_guard<std::mutex> lock(jitter_mu_);
      us = std::uniform_int_distribution<int>(0, 3)(jitter_rng_) == 0
               ? std::uniform_int_distribution<int>(0, 40)(jitter_rng_)
               : 0;
    }
    if (us) std::this_thread::sleep_for(std::chrono::microseconds(us));
  }

  // ---- asynchronous units: TMA copies and commit arrivals in a pool (any order), MMAs in a FIFO ----
  void async_pool(const Barrier& target, std::function<void()> fn) {
    pool_.push_back({std::move(fn), &target});
    cv_.notify_all();
  }
  void async_fifo(std::function<void()> fn) {
    fifo_.push_back({std::move(fn), nullptr});
    cv_.notify_all();
  }
  void deliver() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      if (!error_.empty()) return;
      if (roles_done_) return;
      std::vector<size_t> due;  // pool events that may be delivered now; pool_.size() stands for the FIFO
      for (size_t i = 0; i < pool_.size(); ++i)
        if (!c_.lazy || waiting_[pool_[i].target] > 0) due.push_back(i);
      if (!fifo_.empty()) due.push_back(pool_.size());
      if (due.empty()) {
        cv_.wait_for(lock, std::chrono::milliseconds(1));
        continue;
      }
      const size_t i = due[std::uniform_int_distribution<size_t>(0, due.size() - 1)(rng_)];
      std::function<void()> fn;
      if (i < pool_.size()) {
        fn = std::move(pool_[i].fn);
        pool_.erase(pool_.begin() + long(i));
      } else {
        fn = std::move(fifo_.front().fn);
        fifo_.erase(fifo_.begin());
      }
      fn();
      const int us = std::uniform_int_distribution<int>(0, 3)(rng_) == 0 ? 20 : 0;
      if (us) {
        lock.unlock();
        std::this_thread::sleep_for(std::chrono::microseconds(us));
        lock.lock();
      }
    }
  }

  // ---- the roles, as in the kernel ----
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
        if (!wait(mma_done_[rank][stage], empty_phase, "mma_done_bar")) return false;
        const bool load_a = m0 < c_.m, load_b = b_row0 < c_.n;
        std::lock_guard<std::mutex> lock(mu_);
        arrive_locked(full_[0][stage], (load_a ? A_BYTES : 0) + (load_b ? B_BYTES : 0));
        for (int op = 0; op < 2; ++op) {
          if (!(op == 0 ? load_a : load_b)) continue;
          const int s = stage;
          async_pool(full_[0][s], [this, rank, op, s, turn, k_tile] {
            StageContent& st = stage_[rank][op][s];
            if (st.reads_pending > 0) return fail_locked("TMA overwrote a stage an issued MMA has not read");
            if (!st.read) return fail_locked("TMA overwrote a stage whose last load was never read");
            st = {turn, k_tile, false, 0};
            complete_tx_locked(full_[0][s], op == 0 ? A_BYTES : B_BYTES);
          });
        }
        advance();
      }
      return true;
    });
    if (c_.mutant == Mutant::NoProducerTail) return;
    for (int i = 0; i < c_.num_stages; ++i) {
      if (!wait(mma_done_[rank][stage], empty_phase, "mma_done_bar (tail)")) return;
      advance();
    }
  }

  void mma() {
    int stage = 0, full_phase = 0, acc = 0, acc_empty_phase = 1;
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
      if (!wait(tmem_empty_[0][acc], acc_empty_phase, "tmem_empty_bar")) return false;
      const ScheduledTile tiles[CLUSTER_SIZE] = {t0, rank1[size_t(turn)]};
      for (int k_tile = 0; k_tile < k_tiles_; ++k_tile) {
        if (!wait(full_[0][stage], full_phase, "tma_full_bar")) return false;
        std::lock_guard<std::mutex> lock(mu_);
        for (int r = 0; r < CLUSTER_SIZE; ++r)
          for (int op = 0; op < 2; ++op) ++stage_[r][op][stage].reads_pending;
        const int s = stage, a = acc;
        async_fifo([this, s, a, turn, k_tile, tiles] {  // the MMAs of this K tile execute
          for (int r = 0; r < CLUSTER_SIZE; ++r) {
            const bool need[2] = {tiles[r].valid, tiles[r].n * BLOCK_N + r * B_HALF_ROWS < c_.n};
            for (int op = 0; op < 2; ++op) {
              StageContent& st = stage_[r][op][s];
              --st.reads_pending;
              if (need[op] && (st.turn != turn || st.k_tile != k_tile))
                return fail_locked("an MMA read a stage that does not hold its tile and K step");
              st.read = true;
            }
            AccContent& ac = acc_[r][a];
            if (k_tile == 0) {
              if (ac.reads != NUM_EPILOGUE_WARPS)
                return fail_locked("an MMA overwrote an accumulator before the epilogue of a CTA read it");
              ac = {turn, 1, 0};
            } else {
              if (ac.turn != turn || ac.k_done != k_tile) return fail_locked("MMA accumulated out of order");
              ++ac.k_done;
            }
          }
        });
        async_fifo([this, s] {  // commit: arrives once every earlier MMA has executed, in both CTAs
          for (int r = 0; r < CLUSTER_SIZE; ++r)
            async_pool(mma_done_[r][s], [this, r, s] { arrive_locked(mma_done_[r][s]); });
        });
        if (++stage == c_.num_stages) {
          stage = 0;
          full_phase ^= 1;
        }
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        const int a = acc;
        async_fifo([this, a] {
          for (int r = 0; r < CLUSTER_SIZE; ++r)
            async_pool(tmem_full_[r][a], [this, r, a] { arrive_locked(tmem_full_[r][a]); });
        });
      }
      if (++acc == NUM_ACCUMULATORS) {
        acc = 0;
        acc_empty_phase ^= 1;
      }
      return true;
    });
  }

  void epilogue(int rank, int warp_id) {
    const int quarter = warp_id % 4;  // gemm::tmem_warp_lane_base(warp_id) / 32
    int acc = 0, acc_full_phase = 0;
    for_each_tile(rank, [&](int turn, const ScheduledTile& t) {
      if (rank == c_.slow_epilogue_rank)
        std::this_thread::sleep_for(std::chrono::microseconds(c_.slow_epilogue_us));
      if (!wait(tmem_full_[rank][acc], acc_full_phase, "tmem_full_bar")) return false;
      std::lock_guard<std::mutex> lock(mu_);
      AccContent& ac = acc_[rank][acc];
      if (ac.turn != turn || ac.k_done != k_tiles_) {
        fail_locked("an epilogue read an accumulator that does not hold its whole tile");
        return false;
      }
      ++ac.reads;
      if (gemm::tile_extent(c_.m, BLOCK_M, t.m) > 0) ++stored_[std::make_tuple(t.m, t.n, quarter)];
      if (c_.mutant != Mutant::EmptyCountOneCta || rank == 0) arrive_locked(tmem_empty_[0][acc]);
      if (++acc == NUM_ACCUMULATORS) {
        acc = 0;
        acc_full_phase ^= 1;
      }
      return true;
    });
  }

  const Config c_;
  std::mt19937_64 rng_;         // the delivery order (under mu_)
  std::mt19937_64 jitter_rng_;  // the roles' sleeps (under jitter_mu_)
  std::mutex jitter_mu_;
  const int tiles_m_, tiles_n_, k_tiles_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Barrier> full_[CLUSTER_SIZE], mma_done_[CLUSTER_SIZE], tmem_full_[CLUSTER_SIZE],
      tmem_empty_[CLUSTER_SIZE];
  std::vector<StageContent> stage_[CLUSTER_SIZE][2];
  std::vector<AccContent> acc_[CLUSTER_SIZE];
  std::vector<Event> pool_, fifo_;
  std::map<std::tuple<int, int, int>, int> stored_;
  std::map<const Barrier*, int> waiting_;  // roles blocked on each barrier now
  bool roles_done_ = false;
  std::string error_;
};

std::string describe(const Config& c) {
  std::ostringstream s;
  s << "M=" << c.m << " N=" << c.n << " K=" << c.k << ", cluster " << c.cluster_id << " of " << c.num_clusters
    << ", order " << int(c.kind) << ", " << c.num_stages << " stages, seed " << c.seed;
  return s.str();
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
          c.seed               = uint64_t(runs) * 7919 + 17;
          c.lazy               = runs % 2 == 1;
          c.slow_epilogue_rank = runs % 3 - 1;  // none, CTA 0's, CTA 1's
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
  // the lazy delivery makes certain.
  struct Case {
    Mutant mutant;
    const char* name;
  };
  for (const Case& m : {Case{Mutant::EmptyCountOneCta, "tmem_empty counts one CTA's epilogue warps"},
                        Case{Mutant::RingRestartsPerTile, "the ring restarts at stage 0 for each tile"},
                        Case{Mutant::NoProducerTail, "no producer tail before the exit barrier"}}) {
    int failures = 0;
    for (uint64_t seed = 1; seed <= 12; ++seed) {
      Config c{1000, 1000, 64 * 5, 1, 0, ScheduleKind::Static, 3, m.mutant, seed};
      c.lazy = m.mutant == Mutant::NoProducerTail || seed % 2 == 0;
      c.slow_epilogue_rank =
          m.mutant == Mutant::EmptyCountOneCta ? 1 : -1;  // CTA 1's, which is not waited for
      c.slow_epilogue_us      = 20000;                    // far behind the MMAs, even on a loaded machine
      const std::string error = Model(c).run();
      if (std::getenv("V6_PROTOCOL_VERBOSE"))
        std::printf("%s seed %d: %s\n", m.name, int(seed), error.c_str());
      failures += error.empty() ? 0 : 1;
    }
    INFO(m.name << ": failed " << failures << " of 12 runs");
    CHECK(failures > 0);
  }
}
