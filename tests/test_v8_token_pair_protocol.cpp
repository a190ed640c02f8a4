// test_v8_token_pair_protocol.cpp: the synchronisation protocol of v8's Blackwell decode kernel
// (v8_tile_shapes/decode.cuh), as the token pair (decode_kernel<COLS, 2>: v8q .. v8r) and as a CTA alone
// (decode_kernel<COLS, 1>: v8s .. v8v), which no GPU here can run, executed on the CPU against the model of
// tests/protocol_model.h.
//
// A cluster of two CTAs takes one 128-row tile of B and one range of K tiles; CTA r multiplies A's rows of
// its rank (a CTA alone: the same with one CTA, B's tile one box of its own, each empty barrier counting its
// own commit). Each CTA, line for line as the kernel:
//  - warp 0 initialises full_bar[s] (count 1), empty_bar[s] (count 2: one commit from each CTA's MMA thread)
//    and acc_full_bar (count 1); warp 1 allocates TMEM (cta_group::1); a cluster barrier;
//  - the producer (warp 0): per K tile, waits on its empty_bar[stage] (parity 1 first), announces the stage's
//    bytes on its own full_bar (its A tile and both 64-row boxes of B), and issues its A tile into its own
//    stage and its box of B (box `rank`) multicast into the stage of both CTAs, each copy's bytes on the
//    full_bar of the CTA it writes; after the loop, the tail: it waits for the release of the last NUM_STAGES
//    stages;
//  - the MMA thread (warp 1): per K tile, waits on its full_bar[stage], issues its MMAs (its own stage: A and
//    both boxes of B) and commits them to empty_bar[stage] of both CTAs (the multicast cta_group::1 commit);
//    after the loop, a commit to its own acc_full_bar;
//  - the epilogue (warps 2-5) waits on acc_full_bar and reads TMEM; a cluster barrier before exit.
// Each CTA's MMAs and the commits behind them execute in its own issue order, the two CTAs' independently
// (each tensor pipe is its own); their arrivals and the TMA bytes land in any order, at any later time.
// Several clusters run one after another on the same SM pair, so a late arrival lands on the next cluster's
// barriers. Checked on every event, besides the model's own: a TMA copy never overwrites a box that an issued
// MMA of either CTA has not read, nor one whose last load no MMA read; an MMA reads, in its CTA, the A tile
// and both boxes of B of its own tile and K step, and accumulates in order; the epilogue reads TMEM only when
// every K step is in it; nothing is in flight towards a CTA when it exits.
// Mutants must be caught: the commit to the own CTA's empty barrier only (a hang), empty barriers that count
// one arrival, both CTAs issuing box 0 of B, and no producer tail.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "protocol_model.h"

using protocol::Barrier;
using protocol::Machine;

namespace {

constexpr int CTAS = 2, NUM_WARPS = 6, EPILOGUE_WARPS = 4;  // CTAS: the pair's (Config::ctas: 1 or 2)
constexpr int KERNEL_STAGES = 8;  // 8 at 48 to 96 wide, 7 at 128 (the protocol is generic in the depth)
// bytes of a K tile: A's rows of the CTA (48 .. 128 rows of 128 B; 64 here) and one 64-row box of B
constexpr long A_BYTES = 8192, B_BOX_BYTES = 8192;
constexpr int OPERANDS = 1 + CTAS;  // per stage: A, B's box 0, B's box 1

enum class Mutant { None, CommitNotMulticast, EmptyCountOne, BoxOfRank0, NoProducerTail };

struct Config {
  int ctas;  // 2: the token pair; 1: a CTA alone
  int k_tiles;
  int num_stages;
  int num_clusters;  // clusters run one after another on the same SM pair
  Mutant mutant = Mutant::None;
  uint64_t seed = 1;
  bool lazy     = false;  // deliver an arrival (or TMA bytes) only once some role waits on its barrier
  protocol::Options model;
};

class Model {
 public:
  explicit Model(const Config& c) : c_(c), m_(options(c)), skew_rng_(protocol::mix64(c.seed)) {
    for (int r = 0; r < c.ctas; ++r) {
      for (int s = 0; s < c.num_stages; ++s) {
        full_[r].push_back(&m_.barrier(r, "full_bar[" + std::to_string(s) + "]"));
        empty_[r].push_back(&m_.barrier(r, "empty_bar[" + std::to_string(s) + "]"));
        for (int op = 0; op < OPERANDS; ++op) stage_[r][op].push_back({});
      }
      acc_full_[r] = &m_.barrier(r, "acc_full_bar");
    }
  }

  // Runs the clusters one after another; returns "" or what went wrong.
  std::string run() {
    m_.start_delivery();
    std::vector<int> all_ctas;
    for (int turn = 0; turn < c_.num_clusters; ++turn) {
      std::vector<int> skews, sms;
      for (int r = 0; r < c_.ctas; ++r) {
        skews.push_back(skew_rng_() % 4 == 0 ? 0 : int(skew_rng_() % 300));
        sms.push_back(r);
      }
      cluster_ = m_.launch_cluster(sms, NUM_WARPS, skews);
      for (int r = 0; r < c_.ctas; ++r) all_ctas.push_back(cta_[r] = m_.cta(cluster_, r));
      for (int r = 0; r < c_.ctas; ++r)
        for (int w = 0; w < NUM_WARPS; ++w) m_.spawn(cta_[r], [this, turn, r, w] { warp(turn, r, w); });
      m_.join_threads();  // the next cluster on this SM pair starts once this one has exited
    }
    const std::string error = m_.finish();
    if (!error.empty()) return error;
    for (int cta : all_ctas)
      if (stored_[cta] != EPILOGUE_WARPS) {
        std::ostringstream s;
        s << "CTA " << cta << " stored " << stored_[cta] << " lane quarters, not " << EPILOGUE_WARPS;
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
  // A TMA copy of operand `op` of (turn, k_tile) into stage `s` of CTA `dest`, its bytes on that CTA's
  // full_bar[s] (a multicast box is one such copy per CTA of the mask).
  void tma_locked(int dest, int op, int s, int turn, int k_tile, long bytes) {
    Barrier& full = *full_[dest][size_t(s)];
    Machine::Event e;
    e.fn = [this, dest, op, s, turn, k_tile, bytes, &full] {
      StageContent& st = stage_[dest][op][size_t(s)];
      if (st.reads_pending > 0) return m_.fail_locked("TMA overwrote a box an issued MMA has not read");
      if (!st.read) return m_.fail_locked("TMA overwrote a box whose last load was never read");
      st = {turn, k_tile, false, 0};
      m_.complete_tx_locked(full, bytes);
    };
    e.key         = &full;
    e.target      = &full;
    e.target_cta  = cta_[dest];
    e.smem_cta[0] = cta_[dest];
    e.what        = std::string(op == 0 ? "TMA A" : "TMA B box ") + (op == 0 ? "" : std::to_string(op - 1)) +
             " into CTA " + std::to_string(cta_[dest]);
    m_.post_locked(std::move(e));
  }
  // CTA `rank`'s tensor pipe: its MMAs and commits run in its issue order (tensor_[rank]), each when an
  // event of the pool says so, so that the two CTAs' pipes advance independently.
  void issue_locked(int rank, std::function<void()> op, const std::string& what) {
    tensor_[rank].push_back(std::move(op));
    Machine::Event e;
    e.fn = [this, rank] {
      auto next = std::move(tensor_[rank].front());
      tensor_[rank].pop_front();
      next();
    };
    e.smem_cta[0] = cta_[rank];
    e.what        = what + " of CTA " + std::to_string(cta_[rank]);
    m_.post_locked(std::move(e));
  }
  // The MMAs of (turn, k_tile) of CTA `rank` from its stage `s`: A and both boxes of B (a CTA alone: its one)
  void mma_locked(int rank, int s, int turn, int k_tile) {
    const int operands = 1 + c_.ctas;
    for (int op = 0; op < operands; ++op) ++stage_[rank][op][size_t(s)].reads_pending;
    const int cta = cta_[rank];
    issue_locked(
        rank,
        [this, rank, s, turn, k_tile, cta, operands] {
          for (int op = 0; op < operands; ++op) {
            StageContent& st = stage_[rank][op][size_t(s)];
            --st.reads_pending;
            if (st.turn != turn || st.k_tile != k_tile)
              return m_.fail_locked("an MMA read a box that does not hold its tile and K step");
            st.read = true;
          }
          AccContent& ac = acc_[cta];
          if (k_tile == 0) {
            ac = {turn, 1};
          } else {
            if (ac.turn != turn || ac.k_done != k_tile) return m_.fail_locked("MMA accumulated out of order");
            ++ac.k_done;
          }
        },
        "an MMA");
  }
  // A commit of CTA `rank` behind its MMAs: one arrival on each barrier of `bars` (of the CTAs `dests`)
  void commit_locked(int rank, std::vector<Barrier*> bars, std::vector<int> dests) {
    const int from = cta_[rank];
    issue_locked(
        rank,
        [this, bars, dests, from] {
          for (size_t i = 0; i < bars.size(); ++i) {
            Barrier& b = *bars[i];
            Machine::Event arrival;
            arrival.fn         = [this, &b] { m_.arrive_locked(b); };
            arrival.key        = &b;
            arrival.target     = &b;
            arrival.target_cta = dests[i];
            arrival.what       = "the commit of CTA " + std::to_string(from) + " to " + b.name + " of CTA " +
                           std::to_string(dests[i]);
            m_.post_locked(std::move(arrival));
          }
        },
        "a commit");
  }

  // ---- the roles ----
  void warp(int turn, int rank, int w) {
    const int cta = cta_[rank];
    if (w == 0) {
      std::lock_guard<std::mutex> lock(m_.mu);
      const int empty_count = c_.mutant == Mutant::EmptyCountOne ? 1 : c_.ctas;
      for (int s = 0; s < c_.num_stages; ++s) {
        m_.init_locked(*full_[rank][size_t(s)], cta, 1);
        m_.init_locked(*empty_[rank][size_t(s)], cta, empty_count);
      }
      m_.init_locked(*acc_full_[rank], cta, 1);
    } else if (w == 1) {
      m_.alloc_1cta(cta);
    }
    // the peer's barriers initialised before any multicast or commit reaches them
    if (!m_.cluster_sync(cluster_, "setup")) return;
    if (w == 0 && !producer(turn, rank)) return;
    if (w == 1 && !mma(turn, rank)) return;
    if (w >= 2 && !epilogue(turn, rank)) return;
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
    const int box = c_.mutant == Mutant::BoxOfRank0 ? 0 : rank;
    for (int k_tile = 0; k_tile < c_.k_tiles; ++k_tile) {
      if (!m_.wait(*empty_[rank][size_t(stage)], empty_phase, "empty_bar")) return false;
      std::lock_guard<std::mutex> lock(m_.mu);
      // the pair: its box of B into both CTAs; a CTA alone: one box, all of B's tile, into its own stage
      const long b_bytes = c_.ctas == CTAS ? B_BOX_BYTES : CTAS * B_BOX_BYTES;
      m_.arrive_expect_tx_locked(*full_[rank][size_t(stage)], cta_[rank], A_BYTES + CTAS * B_BOX_BYTES);
      for (int dest = 0; dest < c_.ctas; ++dest) tma_locked(dest, 1 + box, stage, turn, k_tile, b_bytes);
      tma_locked(rank, 0, stage, turn, k_tile, A_BYTES);
      advance();
    }
    if (c_.mutant == Mutant::NoProducerTail) return true;
    for (int i = 0; i < c_.num_stages; ++i) {
      if (!m_.wait(*empty_[rank][size_t(stage)], empty_phase, "empty_bar (tail)")) return false;
      advance();
    }
    return true;
  }

  bool mma(int turn, int rank) {
    int stage = 0, full_phase = 0;
    for (int k_tile = 0; k_tile < c_.k_tiles; ++k_tile) {
      if (!m_.wait(*full_[rank][size_t(stage)], full_phase, "full_bar")) return false;
      std::lock_guard<std::mutex> lock(m_.mu);
      m_.tmem_check_locked(cta_[rank], "the MMA thread");
      mma_locked(rank, stage, turn, k_tile);
      if (c_.ctas == 1 || c_.mutant == Mutant::CommitNotMulticast)
        commit_locked(rank, {empty_[rank][size_t(stage)]}, {cta_[rank]});
      else
        commit_locked(rank, {empty_[0][size_t(stage)], empty_[1][size_t(stage)]}, {cta_[0], cta_[1]});
      if (++stage == c_.num_stages) {
        stage = 0;
        full_phase ^= 1;
      }
    }
    std::lock_guard<std::mutex> lock(m_.mu);
    commit_locked(rank, {acc_full_[rank]}, {cta_[rank]});
    return true;
  }

  bool epilogue(int turn, int rank) {
    if (!m_.wait(*acc_full_[rank], 0, "acc_full_bar")) return false;
    std::lock_guard<std::mutex> lock(m_.mu);
    m_.tmem_check_locked(cta_[rank], "an epilogue warp");
    const AccContent& ac = acc_[cta_[rank]];
    if (ac.turn != turn || ac.k_done != c_.k_tiles) {
      m_.fail_locked("an epilogue read TMEM before all K steps of its tile were in it");
      return false;
    }
    ++stored_[cta_[rank]];
    return m_.ok_locked();
  }

  const Config c_;
  Machine m_;
  std::mt19937_64 skew_rng_;
  int cluster_ = -1, cta_[CTAS] = {-1, -1};  // the cluster running now (set before its threads start)
  std::vector<Barrier*> full_[CTAS], empty_[CTAS];
  Barrier* acc_full_[CTAS] = {nullptr, nullptr};
  std::vector<StageContent> stage_[CTAS][OPERANDS];  // per SM, per operand: shared memory outlives its CTAs
  std::deque<std::function<void()>> tensor_[CTAS];   // per SM: MMAs and commits issued, not yet executed
  std::map<int, AccContent> acc_;                    // per CTA: its TMEM
  std::map<int, int> stored_;                        // per CTA: lane quarters stored
};

std::string describe(const Config& c) {
  std::ostringstream s;
  s << (c.ctas == CTAS ? "token pair: " : "a CTA alone: ") << c.k_tiles << " K tiles, " << c.num_stages
    << " stages, " << c.num_clusters << (c.ctas == CTAS ? " clusters" : " CTAs")
    << " one after another, seed " << c.seed << (c.lazy ? ", lazy" : "");
  return s.str();
}

// Runs `runs` seeds of one configuration; returns how many failed (printing each with VERBOSE).
int failures(const Config& config, int runs, uint64_t salt, const char* name) {
  int failed = 0;
  for (int run = 0; run < runs; ++run) {
    Config c                = config;
    c.seed                  = protocol::run_seed(salt + uint64_t(run));
    c.lazy                  = config.lazy || run % 2 == 1;
    const std::string error = Model(c).run();
    if (std::getenv("V8_PROTOCOL_VERBOSE")) std::printf("%s run %d: %s\n", name, run, error.c_str());
    failed += error.empty() ? 0 : 1;
  }
  return failed;
}

}  // namespace

TEST_CASE("v8 Blackwell decode kernel: every interleaving tried keeps the rings safe (the token pair's both)",
          "[v8][protocol]") {
  int runs = 0;
  for (int ctas : {CTAS, 1})
    for (int stages : {2, 3, KERNEL_STAGES})
      // one K tile; fewer than the stages; as many; one more (the ring wraps); several laps
      for (int k_tiles : {1, stages - 1, stages, stages + 1, 3 * stages + 2})
        for (int seed = 0; seed < 4; ++seed) {
          Config c{ctas, k_tiles, stages, 3};
          c.seed = protocol::run_seed(5000 + uint64_t(runs));
          c.lazy = runs % 2 == 1;
          c.model.expect_tx_in_flight =
              runs % 4 >= 2;  // the bytes of a multicast box before their announcement
          INFO(describe(c));
          const std::string error = Model(c).run();
          INFO(error);
          CHECK(error.empty());
          ++runs;
        }
  CHECK(runs == 120);  // the pair and a CTA alone x 3 ring depths x 5 K lengths x 4 seeds
}

TEST_CASE("v8 Blackwell decode kernel: the model catches broken protocols", "[v8][protocol][negative]") {
  // The token pair: committed to its own empty barrier only, each barrier waits for ever for the peer's
  // arrival (a hang). An empty barrier that counts one arrival completes on the first CTA's commit: its
  // producer refills the stage of both CTAs while the other CTA's MMAs may still read it. Both CTAs issuing
  // box 0: box 1 of B never arrives, and the MMA reads a stale box. Without the producer tail the last
  // commits, from both CTAs (a CTA alone: its own), are still on their way when a CTA exits (the lazy
  // delivery makes that certain).
  struct Case {
    int ctas;
    Mutant mutant;
    const char* name;
  };
  for (const Case& m :
       {Case{CTAS, Mutant::CommitNotMulticast,
             "the token pair, each CTA's commit to its own empty barrier only"},
        Case{CTAS, Mutant::EmptyCountOne, "the token pair, empty barriers that count one arrival"},
        Case{CTAS, Mutant::BoxOfRank0, "the token pair, both CTAs multicast box 0 of B"},
        Case{CTAS, Mutant::NoProducerTail, "the token pair, no producer tail"},
        Case{1, Mutant::NoProducerTail, "a CTA alone, no producer tail"}}) {
    Config c{m.ctas, 9, 3, 3, m.mutant};
    c.lazy = m.mutant == Mutant::NoProducerTail;
    if (m.mutant == Mutant::CommitNotMulticast) c.model.hang_ms = 300;
    const int failed = failures(c, 8, 6000, m.name);
    std::printf("%s: caught in %d of 8 runs\n", m.name, failed);
    INFO(m.name << ": failed " << failed << " of 8 runs");
    CHECK(failed > 0);
  }
}
