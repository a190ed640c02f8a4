// test_v3_v5_protocol.cpp: the synchronisation protocols of the Blackwell stages v3, v4 and v5
// (v3_pipeline/matmul_v3.cu, v4_warpspec/matmul_v4.cu, v5_2sm/matmul_v5.cu), which no GPU here can run,
// executed on the CPU against the model of tests/protocol_model.h.
//
// These grids are not persistent: each CTA (v5: each 2-CTA cluster) computes one tile and exits, and the
// next CTA on the same SM initialises its barriers at the same shared-memory offsets. Each test runs several
// CTAs (clusters) one after another on the same SM (SM pair), every role a host thread running the kernel's
// code line for line:
//  - v3: warp 0 initialises the barriers, warp 1 allocates TMEM (cta_group::1), __syncthreads(); one thread
//    of warp 0 puts NUM_STAGES - 1 K tiles in flight, then per K tile waits for its bytes, issues its MMAs,
//    commits them to mma_done_bar[stage], waits for the MMAs of the previous tile and refills their stage;
//    after the loop it waits for the last tile's commit; __syncthreads(); all 4 warps read TMEM;
//    __syncthreads(); exit.
//  - v4: warp 0 the producer (waits on mma_done_bar, starting at parity 1; announces and issues the stage's
//    copies; after the loop, the tail: it waits for the release of the last NUM_STAGES stages), warp 1 the
//    MMA thread (waits on tma_full_bar, commits each stage to mma_done_bar and the whole loop to
//    mainloop_done_bar); all 4 warps wait on mainloop_done_bar, read TMEM, __syncthreads(), exit.
//  - v5: v4 on a 2-CTA cluster: cluster barrier, tcgen05.alloc.cta_group::2 by warp 1 of both CTAs, cluster
//    barrier; both producers announce their bytes on CTA 0's tma_full_bar (count 2) and their copies land
//    there; CTA 0's MMA thread reads both CTAs' stages and multicasts every commit to both CTAs; each
//    producer runs the tail on its own mma_done_bar; a cluster barrier before exit.
// Checked on every event, besides the model's own (protocol_model.h): a TMA copy never overwrites a stage an
// issued MMA has not read, nor one whose last load was never read; an MMA reads, in every CTA of the
// cluster, the A and B of its own tile and K step, and accumulates in order; an epilogue reads TMEM only
// when all K steps of its tile are in it; each CTA's 4 row quarters are stored once; nothing is in flight
// towards a CTA when it exits.
// Mutants must be caught: no producer tail (v4, v5), the 2-CTA allocation before the first cluster barrier
// (v5), a commit landing after its CTA exited (on the next CTA's barrier), and v3 reading TMEM without
// waiting for the last tile's commit.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "protocol_model.h"

using protocol::Barrier;
using protocol::Machine;

namespace {

enum class Stage { V3, V4, V5 };
// The kernels' ring depths (NUM_STAGES also varies below, the protocol is generic) and tile bytes
constexpr int V3_STAGES = 7, V4_STAGES = 7, V5_STAGES = 7, NUM_WARPS = 4;
constexpr uint32_t A_BYTES = 16384, B_BYTES = 16384;  // v3/v4: 128x64 bf16 each; v5: A and one B half

enum class Mutant { None, NoProducerTail, AllocBeforeClusterBarrier, NoLastMmaWait };

struct Config {
  Stage stage;
  int k_tiles;
  int num_stages;
  int num_ctas;  // CTAs (v5: clusters) run one after another on the same SM (v5: SM pair)
  Mutant mutant = Mutant::None;
  uint64_t seed = 1;
  bool lazy     = false;    // deliver an arrival (or TMA bytes) only once some role waits on its barrier
  int skew_us   = -1;       // the odd CTA's launch skew (-1: random, 0-300 us for every CTA)
  protocol::Options model;  // the explorations' switches (seed and lazy are set from above)
};

const char* stage_name(Stage s) {
  return s == Stage::V3 ? "v3" : s == Stage::V4 ? "v4" : "v5";
}

class Model {
 public:
  explicit Model(const Config& c)
      : c_(c),
        m_(options(c)),
        cluster_size_(c.stage == Stage::V5 ? 2 : 1),
        skew_rng_(protocol::mix64(c.seed)) {
    for (int r = 0; r < cluster_size_; ++r) {
      for (int s = 0; s < c.num_stages; ++s) {
        full_[r].push_back(&m_.barrier(r, "tma_full_bar[" + std::to_string(s) + "]"));
        mma_done_[r].push_back(&m_.barrier(r, "mma_done_bar[" + std::to_string(s) + "]"));
        for (int op = 0; op < 2; ++op) stage_[r][op].push_back({});
      }
      mainloop_done_[r].push_back(&m_.barrier(r, "mainloop_done_bar"));
    }
  }

  long negative_tx() { return m_.negative_tx_count(); }
  long late_landings() { return m_.late_landings(); }

  // Runs the CTAs one after another; returns "" or what went wrong.
  std::string run() {
    m_.start_delivery();
    std::vector<int> sms;
    for (int r = 0; r < cluster_size_; ++r) sms.push_back(r);
    std::vector<int> all_ctas;
    for (int turn = 0; turn < c_.num_ctas; ++turn) {
      std::vector<int> skews;
      for (int r = 0; r < cluster_size_; ++r)
        skews.push_back(c_.skew_us >= 0 ? (r % 2 == 1 ? c_.skew_us : 0)
                                        : (skew_rng_() % 4 == 0 ? 0 : int(skew_rng_() % 300)));
      cluster_ = m_.launch_cluster(sms, NUM_WARPS, skews);
      for (int r = 0; r < cluster_size_; ++r) all_ctas.push_back(cta_[r] = m_.cta(cluster_, r));
      for (int r = 0; r < cluster_size_; ++r)
        for (int w = 0; w < NUM_WARPS; ++w)
          m_.spawn(cta_[r],
                   [this, turn, r, w] { c_.stage == Stage::V3 ? v3_warp(turn, w) : ws_warp(turn, r, w); });
      m_.join_threads();  // the next CTA on this SM starts once this one has exited
    }
    const std::string error = m_.finish();
    if (!error.empty()) return error;
    for (int cta : all_ctas)
      if (stored_[cta] != NUM_WARPS) {
        std::ostringstream s;
        s << "CTA " << cta << " stored " << stored_[cta] << " row quarters, not " << NUM_WARPS;
        return s.str();
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
  };

  static protocol::Options options(const Config& c) {
    protocol::Options o = c.model;
    o.seed              = c.seed;
    o.lazy              = c.lazy;
    return o;
  }

  // ---- asynchronous units ----
  // One TMA copy of CTA `rank`'s operand `op` of (turn, k_tile) into its stage `s`, its bytes on `full`
  void tma_locked(int rank, int op, int s, int turn, int k_tile, Barrier& full) {
    Machine::Event e;
    e.fn = [this, rank, op, s, turn, k_tile, &full] {
      StageContent& st = stage_[rank][op][size_t(s)];
      if (st.reads_pending > 0) return m_.fail_locked("TMA overwrote a stage an issued MMA has not read");
      if (!st.read) return m_.fail_locked("TMA overwrote a stage whose last load was never read");
      st = {turn, k_tile, false, 0};
      m_.complete_tx_locked(full, op == 0 ? A_BYTES : B_BYTES);
    };
    e.key         = &full;
    e.target      = &full;
    e.target_cta  = cta_[0];
    e.smem_cta[0] = cta_[rank];
    e.what        = std::string("TMA ") + (op == 0 ? "A" : "B") + " of CTA " + std::to_string(cta_[rank]);
    m_.post_locked(std::move(e));
  }
  // The MMAs of (turn, k_tile) from stage `s` of every CTA of the cluster, then a commit to `bars` of every
  // CTA (v5: multicast), both in the issuing thread's order
  void mma_and_commit_locked(int s, int turn, int k_tile, std::vector<Barrier*> (&bars)[2], int i) {
    for (int r = 0; r < cluster_size_; ++r)
      for (int op = 0; op < 2; ++op) ++stage_[r][op][size_t(s)].reads_pending;
    const int ctas[2] = {cta_[0], cta_[cluster_size_ - 1]};
    Machine::Event mma;
    mma.fn = [this, s, turn, k_tile, ctas] {
      for (int r = 0; r < cluster_size_; ++r) {
        for (int op = 0; op < 2; ++op) {
          StageContent& st = stage_[r][op][size_t(s)];
          --st.reads_pending;
          if (st.turn != turn || st.k_tile != k_tile)
            return m_.fail_locked("an MMA read a stage that does not hold its tile and K step");
          st.read = true;
        }
        AccContent& ac = acc_[ctas[r]];
        if (k_tile == 0) {
          ac = {turn, 1};
        } else {
          if (ac.turn != turn || ac.k_done != k_tile) return m_.fail_locked("MMA accumulated out of order");
          ++ac.k_done;
        }
      }
    };
    mma.smem_cta[0] = ctas[0];
    mma.smem_cta[1] = ctas[1];
    mma.what        = "an MMA";
    m_.post_fifo_locked(std::move(mma));
    commit_locked(bars, i);
  }
  void commit_locked(std::vector<Barrier*> (&bars)[2], int i) {
    const int ctas[2] = {cta_[0], cta_[cluster_size_ - 1]};
    Machine::Event e;
    e.fn = [this, &bars, i, ctas] {
      for (int r = 0; r < cluster_size_; ++r) {
        Barrier& b = *bars[r][size_t(i)];
        Machine::Event arrival;
        arrival.fn         = [this, &b] { m_.arrive_locked(b); };
        arrival.key        = &b;
        arrival.target     = &b;
        arrival.target_cta = ctas[r];
        arrival.what       = "the commit of CTA " + std::to_string(ctas[0]) + " to " + b.name;
        m_.post_locked(std::move(arrival));
      }
    };
    e.smem_cta[0] = ctas[0];
    e.what        = "a commit";
    m_.post_fifo_locked(std::move(e));
  }

  // The epilogue of warp `w` of CTA `rank`: reads its TMEM lanes, stores its row quarter
  bool epilogue(int turn, int rank, int w) {
    std::lock_guard<std::mutex> lock(m_.mu);
    m_.tmem_check_locked(cta_[rank], "an epilogue warp");
    const AccContent& ac = acc_[cta_[rank]];
    if (ac.turn != turn || ac.k_done != c_.k_tiles) {
      m_.fail_locked("an epilogue read TMEM before all K steps of its tile were in it");
      return false;
    }
    (void)w;
    ++stored_[cta_[rank]];
    return m_.ok_locked();
  }

  // ---- v3: one thread loads and multiplies ----
  void v3_warp(int turn, int w) {
    const int cta = cta_[0], S = c_.num_stages;
    if (w == 0) {
      std::lock_guard<std::mutex> lock(m_.mu);
      for (int s = 0; s < S; ++s) {
        m_.init_locked(*full_[0][size_t(s)], cta, 1);
        m_.init_locked(*mma_done_[0][size_t(s)], cta, 1);
      }
    } else if (w == 1) {
      m_.alloc_1cta(cta);
    }
    if (!m_.cluster_sync(cluster_, "setup __syncthreads")) return;
    if (w == 0) {
      auto load = [&](int k_tile, int s) {
        std::lock_guard<std::mutex> lock(m_.mu);
        Barrier& full = *full_[0][size_t(s)];
        m_.arrive_expect_tx_locked(full, cta, A_BYTES + B_BYTES);
        for (int op = 0; op < 2; ++op) tma_locked(0, op, s, turn, k_tile, full);
      };
      for (int t = 0; t < S - 1 && t < c_.k_tiles; ++t) load(t, t);
      int stage = 0, phase = 0;
      for (int k_tile = 0; k_tile < c_.k_tiles; ++k_tile) {
        if (!m_.wait(*full_[0][size_t(stage)], phase, "tma_full_bar")) return;
        {
          std::lock_guard<std::mutex> lock(m_.mu);
          m_.tmem_check_locked(cta, "the MMA thread");
          mma_and_commit_locked(stage, turn, k_tile, mma_done_, stage);
        }
        const int prev_stage = stage == 0 ? S - 1 : stage - 1;
        const int prev_phase = stage == 0 ? phase ^ 1 : phase;
        if (k_tile > 0 && !m_.wait(*mma_done_[0][size_t(prev_stage)], prev_phase, "mma_done_bar")) return;
        if (k_tile + S - 1 < c_.k_tiles) load(k_tile + S - 1, prev_stage);
        if (++stage == S) {
          stage = 0;
          phase ^= 1;
        }
      }
      const int last_stage = stage == 0 ? S - 1 : stage - 1;
      const int last_phase = stage == 0 ? phase ^ 1 : phase;
      if (c_.mutant != Mutant::NoLastMmaWait &&
          !m_.wait(*mma_done_[0][size_t(last_stage)], last_phase, "mma_done_bar (last)"))
        return;
    }
    if (!m_.cluster_sync(cluster_, "mainloop __syncthreads")) return;
    if (!epilogue(turn, 0, w)) return;
    m_.cluster_sync(cluster_, "teardown __syncthreads");
  }

  // ---- v4 and v5: a producer warp and an MMA warp ----
  void ws_warp(int turn, int rank, int w) {
    const int cta = cta_[rank];
    if (w == 0) {
      std::lock_guard<std::mutex> lock(m_.mu);
      for (int s = 0; s < c_.num_stages; ++s) {
        m_.init_locked(*full_[rank][size_t(s)], cta, cluster_size_);
        m_.init_locked(*mma_done_[rank][size_t(s)], cta, 1);
      }
      m_.init_locked(*mainloop_done_[rank][0], cta, 1);
    }
    if (c_.stage == Stage::V5) {
      // cluster barrier 1 (the mutant allocates before it), the 2-CTA allocation, cluster barrier 2
      if (c_.mutant != Mutant::AllocBeforeClusterBarrier && !m_.cluster_sync(cluster_, "setup 1")) return;
      if (w == 1 && !m_.alloc_2cta(cta)) return;
      if (!m_.cluster_sync(cluster_, "setup 2")) return;
    } else {
      if (w == 1) m_.alloc_1cta(cta);
      if (!m_.cluster_sync(cluster_, "setup __syncthreads")) return;
    }
    if (w == 0 && !producer(turn, rank)) return;
    if (w == 1 && rank == 0 && !mma(turn)) return;
    if (!m_.wait(*mainloop_done_[rank][0], 0, "mainloop_done_bar")) return;
    if (!epilogue(turn, rank, w)) return;
    m_.cluster_sync(cluster_, "teardown");
  }

  bool producer(int turn, int rank) {
    int stage = 0, empty_phase = 1;
    auto advance = [&] {
      if (++stage == c_.num_stages) {
        stage = 0;
        empty_phase ^= 1;
      }
    };
    for (int k_tile = 0; k_tile < c_.k_tiles; ++k_tile) {
      if (!m_.wait(*mma_done_[rank][size_t(stage)], empty_phase, "mma_done_bar")) return false;
      std::lock_guard<std::mutex> lock(m_.mu);
      Barrier& full = *full_[0][size_t(stage)];  // CTA 0's (v5: through mapa)
      m_.arrive_expect_tx_locked(full, cta_[0], A_BYTES + B_BYTES);
      for (int op = 0; op < 2; ++op) tma_locked(rank, op, stage, turn, k_tile, full);
      advance();
    }
    if (c_.mutant == Mutant::NoProducerTail) return true;
    for (int i = 0; i < c_.num_stages; ++i) {
      if (!m_.wait(*mma_done_[rank][size_t(stage)], empty_phase, "mma_done_bar (tail)")) return false;
      advance();
    }
    return true;
  }

  bool mma(int turn) {
    int stage = 0, full_phase = 0;
    for (int k_tile = 0; k_tile < c_.k_tiles; ++k_tile) {
      if (!m_.wait(*full_[0][size_t(stage)], full_phase, "tma_full_bar")) return false;
      std::lock_guard<std::mutex> lock(m_.mu);
      for (int r = 0; r < cluster_size_; ++r) m_.tmem_check_locked(cta_[r], "the MMA thread");
      mma_and_commit_locked(stage, turn, k_tile, mma_done_, stage);
      if (++stage == c_.num_stages) {
        stage = 0;
        full_phase ^= 1;
      }
    }
    std::lock_guard<std::mutex> lock(m_.mu);
    commit_locked(mainloop_done_, 0);
    return true;
  }

  const Config c_;
  Machine m_;
  const int cluster_size_;
  std::mt19937_64 skew_rng_;
  int cluster_ = -1, cta_[2] = {-1, -1};  // the cluster running now (set before its threads start)
  std::vector<Barrier*> full_[2], mma_done_[2], mainloop_done_[2];
  std::vector<StageContent> stage_[2][2];  // per SM, per operand: shared memory outlives its CTAs
  std::map<int, AccContent> acc_;          // per CTA: its TMEM
  std::map<int, int> stored_;              // per CTA: row quarters stored
};

std::string describe(const Config& c) {
  std::ostringstream s;
  s << stage_name(c.stage) << ": " << c.k_tiles << " K tiles, " << c.num_stages << " stages, " << c.num_ctas
    << (c.stage == Stage::V5 ? " clusters" : " CTAs") << " one after another, seed " << c.seed
    << (c.lazy ? ", lazy" : "");
  return s.str();
}

int kernel_stages(Stage s) {
  return s == Stage::V3 ? V3_STAGES : s == Stage::V4 ? V4_STAGES : V5_STAGES;
}

// Runs `runs` seeds of one configuration; returns how many failed (printing each with VERBOSE).
int failures(const Config& config, int runs, uint64_t salt, const char* name) {
  int failed = 0;
  for (int run = 0; run < runs; ++run) {
    Config c                = config;
    c.seed                  = protocol::run_seed(salt + uint64_t(run));
    c.lazy                  = config.lazy || run % 2 == 1;
    const std::string error = Model(c).run();
    if (std::getenv("V3_V5_PROTOCOL_VERBOSE")) std::printf("%s run %d: %s\n", name, run, error.c_str());
    failed += error.empty() ? 0 : 1;
  }
  return failed;
}

}  // namespace

TEST_CASE("v3-v5 Blackwell protocols: every interleaving tried keeps the ring safe, CTA after CTA",
          "[v3][v4][v5][protocol]") {
  int runs = 0;
  for (Stage stage : {Stage::V3, Stage::V4, Stage::V5}) {
    const int kernel = kernel_stages(stage);
    for (int stages : {2, 3, kernel})
      // one K tile; fewer than the stages; as many; one more (the ring wraps); several laps
      for (int k_tiles : {1, stages - 1, stages, stages + 1, 3 * stages + 2})
        for (int seed = 0; seed < 4; ++seed) {
          Config c{stage, k_tiles, stages, 3};
          c.seed = protocol::run_seed(uint64_t(runs));
          c.lazy = runs % 2 == 1;
          INFO(describe(c));
          const std::string error = Model(c).run();
          INFO(error);
          CHECK(error.empty());
          ++runs;
        }
  }
  CHECK(runs == 180);  // 3 stages x 3 ring depths x 5 K lengths x 4 seeds
}

TEST_CASE("v3-v5 Blackwell protocols: the model catches broken protocols",
          "[v3][v4][v5][protocol][negative]") {
  // Without the producer tail, the last stages' commits are still on their way when the CTA exits; the lazy
  // delivery (as late as the hardware may) makes that certain. With the allocation before the first cluster
  // barrier, the odd CTA starts 3 ms late (as a CTA may), so the even CTA's half of the exchange writes into
  // a CTA that has not started.
  struct Case {
    Stage stage;
    Mutant mutant;
    const char* name;
  };
  for (const Case& m :
       {Case{Stage::V4, Mutant::NoProducerTail, "v4 without the producer tail"},
        Case{Stage::V5, Mutant::NoProducerTail, "v5 without the producer tail"},
        Case{Stage::V5, Mutant::AllocBeforeClusterBarrier,
             "v5 with the TMEM allocation before the cluster barrier"},
        Case{Stage::V3, Mutant::NoLastMmaWait, "v3 without the wait for the last tile's commit"}}) {
    Config c{m.stage, 9, 3, 3, m.mutant};
    c.lazy = m.mutant == Mutant::NoProducerTail;
    if (m.mutant == Mutant::AllocBeforeClusterBarrier) c.skew_us = 3000;
    const int failed = failures(c, 8, 1000, m.name);
    INFO(m.name << ": failed " << failed << " of 8 runs");
    CHECK(failed > 0);
  }
}

TEST_CASE("v3-v5 Blackwell protocols: a commit landing after its CTA exited is caught",
          "[v4][v5][protocol][negative]") {
  // Without the tail and without the exit check, the stale commit is delivered when the next CTA on the SM
  // waits on the same storage (lazy delivery): it lands on that CTA's re-initialised mma_done_bar, which the
  // landing check reports. Without the landing check too, what it does there must still be caught: it
  // completes a phase of the new CTA's barrier, whose producer then refills a stage that an MMA has not read.
  for (Stage stage : {Stage::V4, Stage::V5}) {
    Config c{stage, 12, 3, 4, Mutant::NoProducerTail};
    c.lazy             = true;
    c.model.exit_check = false;
    const int landed   = failures(c, 8, 2000, "late commit, landing check");
    INFO(stage_name(stage) << ": a late commit caught by the landing check in " << landed << " of 8 runs");
    CHECK(landed > 0);
    c.model.late_landing_check = false;
    c.model.hang_ms            = 200;  // the stale phase may also leave a role waiting for ever
    const int consequence      = failures(c, 8, 3000, "late commit, its consequence");
    std::printf(
        "%s without the tail: the late commit caught by the landing check in %d of 8 runs, by its "
        "consequence in the next CTA in %d of 8\n",
        stage_name(stage), landed, consequence);
    INFO(stage_name(stage) << ": its consequence caught in " << consequence << " of 8 runs");
    CHECK(consequence > 0);
  }
}

TEST_CASE("v3-v5 Blackwell protocols: TMA bytes before their arrive.expect_tx",
          "[v3][v4][v5][protocol][exploration]") {
  // The tx-count may go below zero: the bytes of a copy may land before the arrive.expect_tx that announces
  // them (v5: CTA 1's announcement is a remote arrival on CTA 0's barrier). The protocols must hold.
  long negative = 0;
  int runs      = 0;
  for (Stage stage : {Stage::V3, Stage::V4, Stage::V5})
    for (int stages : {2, kernel_stages(stage)}) {
      Config c{stage, 2 * stages + 1, stages, 3};
      c.seed                      = protocol::run_seed(4000 + uint64_t(runs));
      c.lazy                      = runs % 2 == 1;
      c.model.expect_tx_in_flight = true;
      INFO(describe(c));
      Model model(c);
      const std::string error = model.run();
      INFO(error);
      CHECK(error.empty());
      negative += model.negative_tx();
      ++runs;
    }
  std::printf("v3-v5: TMA bytes landed before their arrive.expect_tx %ld times in %d runs, all passed\n",
              negative, runs);
  CHECK(negative > 0);
}
