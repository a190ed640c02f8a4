// test_hopper_exit_protocol.cpp: how the Hopper kernels' CTA pairs leave (v6-v8's matmul_vN_sm90.cu, and v8's
// token pair in decode_sm90.cuh), executed on the CPU against the model of tests/protocol_model.h.
//
// A cluster of two CTAs shares a ring of stages: each CTA's producer announces a K tile's bytes on its own
// full_bar[s] and multicasts its box of B into the stage of both CTAs (A's tile into its own); each CTA's two
// consumer warpgroups wait on their full_bar[s], read the stage, and release it on empty_bar[s] of both CTAs
// (count 4: two warpgroups of each CTA) with a plain, relaxed arrival, which may still be on its way long
// after (the model's thread_arrivals_in_flight). A CTA must not exit while an arrival of the other's is on
// its way to it: the next CTA on that SM would find it on its barriers. Two ways to leave:
//  - kept: the producer's tail (ptx::producer_tail: after its last load it waits on the ring's next
//    NUM_STAGES empty phases, so every stage's last release by both CTAs' consumers has landed), and a
//    relaxed exit barrier (v6-v8), or none (the token pair). The consumers release every stage, the last too.
//  - before: no tail, a cluster barrier whose .release arrival performs each thread's arrivals in flight.
// Several clusters run one after another on the same SM pair. Checked on every event, besides the model's own
// (an event in flight towards a CTA when it exits, or landing after it did): a TMA copy never overwrites a
// box that the consumers of its CTA have not both read, and a consumer reads, in its CTA, A and both boxes of
// B of its own tile and K tile. Mutants must be caught: the kept exit without the tail (an arrival still on
// its way at the exit), and the tail without the last stage's release (the tail waits for ever: the token
// pair's first form released the last stage nowhere, which only a barrier at the exit made safe).
// The ping-pong tiles in CTA pairs (v8c, pingpong_sm90.cuh) leave as the token pair, but each stage is read by
// one consumer warpgroup per CTA, the one whose tile it holds (empty_bar counts 2), the warpgroups taking the
// cluster's tiles in turn; an order barrier per warpgroup (count 1) lets one start a tile only once the other
// has issued its previous one, so a full_bar wait is never a lap ahead of its phase. Its mutant: no order
// barrier (a warpgroup's parity wait passes on an earlier lap's phase and reads another tile's boxes).
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "protocol_model.h"

using protocol::Barrier;
using protocol::Machine;

namespace {

constexpr int CTAS = 2, CONSUMERS = 2, ROLES = 1 + CONSUMERS;  // role 0: the producer; 1, 2: the consumers
constexpr long A_BYTES = 16384, B_BOX_BYTES = 16384;
constexpr int OPERANDS = 1 + CTAS;  // per stage: A, B's box 0, B's box 1

enum class Exit {
  TailRelaxed,    // the kept exit: the producer tail, relaxed arrivals on the exit barrier
  TailNoBarrier,  // the token pair's: the producer tail, no exit barrier
  Release,        // before: no tail, a .release exit barrier
};
enum class Mutant { None, NoTail, NoLastRelease, NoOrder };

struct Config {
  Exit exit;
  int k_tiles;
  int num_stages;
  int num_clusters;
  Mutant mutant      = Mutant::None;
  uint64_t seed      = 1;
  bool lazy          = false;
  int pingpong_tiles = 0;  // v8c: the cluster's tiles, taken by the two warpgroups in turn (0: v6-v8's pairs)
};

class Model {
 public:
  explicit Model(const Config& c)
      : c_(c), m_(options(c)), skew_rng_(protocol::mix64(c.seed)), readers_(c.pingpong_tiles ? 1 : CONSUMERS) {
    for (int r = 0; r < CTAS; ++r) {
      for (int s = 0; s < c.num_stages; ++s) {
        full_[r].push_back(&m_.barrier(r, "full_bar[" + std::to_string(s) + "]"));
        empty_[r].push_back(&m_.barrier(r, "empty_bar[" + std::to_string(s) + "]"));
        for (int op = 0; op < OPERANDS; ++op) stage_[r][op].push_back({-1, -1, readers_});
      }
      for (int w = 0; w < CONSUMERS; ++w) order_[r][w] = &m_.barrier(r, "order_bar[" + std::to_string(w) + "]");
    }
  }

  std::string run() {
    m_.start_delivery();
    for (int turn = 0; turn < c_.num_clusters; ++turn) {
      std::vector<int> skews;
      for (int r = 0; r < CTAS; ++r) skews.push_back(skew_rng_() % 4 == 0 ? 0 : int(skew_rng_() % 300));
      cluster_ = m_.launch_cluster({0, 1}, ROLES, skews);
      for (int r = 0; r < CTAS; ++r) cta_[r] = m_.cta(cluster_, r);
      for (int r = 0; r < CTAS; ++r)
        for (int role = 0; role < ROLES; ++role)
          m_.spawn(cta_[r], [this, turn, r, role] { body(turn, r, role); });
      m_.join_threads();  // the next cluster on this SM pair starts once this one has exited
    }
    return m_.finish();
  }

 private:
  struct StageContent {
    int turn = -1, k_tile = -1;  // what the last TMA copy wrote (-1: nothing yet); v8c: the ring position
    int readers = CONSUMERS;     // consumers of its CTA that have read it since (v8c: one reads it)
  };

  static protocol::Options options(const Config& c) {
    protocol::Options o;
    o.seed                      = c.seed;
    o.lazy                      = c.lazy;
    o.thread_arrivals_in_flight = true;  // a consumer's relaxed release may land long after
    o.release_orders_arrivals   = c.exit == Exit::Release;
    o.hang_ms                   = c.mutant == Mutant::NoLastRelease ? 300 : 2000;
    return o;
  }

  // A TMA copy of operand `op` of (turn, k_tile) into stage `s` of CTA `dest`, its bytes on its full_bar[s]
  void tma_locked(int dest, int op, int s, int turn, int k_tile, long bytes) {
    Barrier& full = *full_[dest][size_t(s)];
    Machine::Event e;
    e.fn = [this, dest, op, s, turn, k_tile, bytes, &full] {
      StageContent& st = stage_[dest][op][size_t(s)];
      if (st.readers != readers_)
        return m_.fail_locked("TMA overwrote a box that the consumers of its CTA have not all read");
      st = {turn, k_tile, 0};
      m_.complete_tx_locked(full, bytes);
    };
    e.key         = &full;
    e.target      = &full;
    e.target_cta  = cta_[dest];
    e.smem_cta[0] = cta_[dest];
    e.what        = "TMA operand " + std::to_string(op) + " into CTA " + std::to_string(cta_[dest]);
    m_.post_locked(std::move(e));
  }

  void body(int turn, int rank, int role) {
    if (role == 0) {
      std::lock_guard<std::mutex> lock(m_.mu);
      for (int s = 0; s < c_.num_stages; ++s) {
        m_.init_locked(*full_[rank][size_t(s)], cta_[rank], 1);
        m_.init_locked(*empty_[rank][size_t(s)], cta_[rank], readers_ * CTAS);
      }
      for (int w = 0; w < CONSUMERS; ++w) m_.init_locked(*order_[rank][w], cta_[rank], 1);
    }
    // the peer's barriers initialised before any multicast or arrival reaches them
    if (!m_.cluster_sync(cluster_, "setup")) return;
    const bool ok = role == 0            ? producer(turn, rank)
                    : c_.pingpong_tiles ? pingpong_consumer(turn, rank, role - 1)
                                        : consumer(turn, rank);
    if (!ok) return;
    if (c_.exit != Exit::TailNoBarrier) m_.cluster_sync(cluster_, "exit");
  }

  bool producer(int turn, int rank) {
    int stage = 0, empty_phase = 1;
    auto advance = [&] {
      if (++stage == c_.num_stages) {
        stage = 0;
        empty_phase ^= 1;
      }
    };
    // v8c: every tile's K tiles in turn order, k_tile the ring position
    const int positions = c_.k_tiles * (c_.pingpong_tiles ? c_.pingpong_tiles : 1);
    for (int k_tile = 0; k_tile < positions; ++k_tile) {
      if (!m_.wait(*empty_[rank][size_t(stage)], empty_phase, "empty_bar")) return false;
      std::lock_guard<std::mutex> lock(m_.mu);
      m_.arrive_expect_tx_locked(*full_[rank][size_t(stage)], cta_[rank], A_BYTES + CTAS * B_BOX_BYTES);
      for (int dest = 0; dest < CTAS; ++dest) tma_locked(dest, 1 + rank, stage, turn, k_tile, B_BOX_BYTES);
      tma_locked(rank, 0, stage, turn, k_tile, A_BYTES);
      advance();
    }
    if (c_.exit == Exit::Release || c_.mutant == Mutant::NoTail) return true;
    for (int i = 0; i < c_.num_stages; ++i) {  // ptx::producer_tail
      if (!m_.wait(*empty_[rank][size_t(stage)], empty_phase, "empty_bar (tail)")) return false;
      advance();
    }
    return true;
  }

  // One read of CTA rank's stage by a consumer: each box must hold (turn, k_id), the ring position the
  // consumer reads; then the release to both CTAs, since both multicast into the stage (the last read's
  // too, but in the NoLastRelease mutant).
  bool read_and_release(int turn, int rank, int stage, int k_id, bool last) {
    std::lock_guard<std::mutex> lock(m_.mu);
    for (int op = 0; op < OPERANDS; ++op) {
      StageContent& st = stage_[rank][op][size_t(stage)];
      if (st.turn != turn || st.k_tile != k_id) {
        m_.fail_locked("a consumer read a box that does not hold its tile and K tile");
        return false;
      }
      ++st.readers;
    }
    if (!(c_.mutant == Mutant::NoLastRelease && last))
      for (int peer = 0; peer < CTAS; ++peer)
        m_.thread_arrive_locked(*empty_[peer][size_t(stage)], cta_[peer]);
    return true;
  }

  bool consumer(int turn, int rank) {
    int stage = 0, full_phase = 0;
    for (int k_tile = 0; k_tile < c_.k_tiles; ++k_tile) {
      if (!m_.wait(*full_[rank][size_t(stage)], full_phase, "full_bar")) return false;
      m_.jitter();  // the wgmmas read the stage
      if (!read_and_release(turn, rank, stage, k_tile, k_tile == c_.k_tiles - 1)) return false;
      if (++stage == c_.num_stages) {
        stage = 0;
        full_phase ^= 1;
      }
    }
    return true;
  }

  // v8c's consumer warpgroup w: the cluster's tiles w, w + 2, ...; tile t's K tile kt at ring position
  // t * k_tiles + kt. Before a tile, the order barrier: w = 1 waits for phase j before its j-th tile, w = 0
  // for phase j - 1 (the other issued its previous tile); after it, an arrival on the other's.
  bool pingpong_consumer(int turn, int rank, int w) {
    const int positions = c_.k_tiles * c_.pingpong_tiles;
    for (int t = w, j = 0; t < c_.pingpong_tiles; t += CONSUMERS, ++j) {
      if (c_.mutant != Mutant::NoOrder) {
        if (w == 1 && !m_.wait(*order_[rank][1], j & 1, "order_bar")) return false;
        if (w == 0 && j > 0 && !m_.wait(*order_[rank][0], (j - 1) & 1, "order_bar")) return false;
      }
      for (int kt = 0; kt < c_.k_tiles; ++kt) {
        const int pos = t * c_.k_tiles + kt, stage = pos % c_.num_stages;
        if (!m_.wait(*full_[rank][size_t(stage)], (pos / c_.num_stages) & 1, "full_bar")) return false;
        m_.jitter();  // the wgmmas read the stage
        if (!read_and_release(turn, rank, stage, pos, pos == positions - 1)) return false;
      }
      std::lock_guard<std::mutex> lock(m_.mu);
      m_.arrive_on_locked(*order_[rank][1 - w], cta_[rank]);  // every wgmma of tile t issued
    }
    return true;
  }

  const Config c_;
  Machine m_;
  std::mt19937_64 skew_rng_;
  const int readers_;  // consumer warpgroups of a CTA that read each stage: 2, or (v8c) 1
  Barrier* order_[CTAS][CONSUMERS] = {};
  int cluster_ = -1, cta_[CTAS] = {-1, -1};  // the cluster running now (set before its threads start)
  std::vector<Barrier*> full_[CTAS], empty_[CTAS];
  std::vector<StageContent> stage_[CTAS][OPERANDS];  // per SM, per operand: shared memory outlives its CTAs
};

const char* exit_name(Exit e) {
  return e == Exit::TailRelaxed     ? "producer tail, relaxed exit barrier"
         : e == Exit::TailNoBarrier ? "producer tail, no exit barrier"
                                    : "release exit barrier, no tail";
}

std::string describe(const Config& c) {
  std::ostringstream s;
  s << exit_name(c.exit) << ": " << c.k_tiles << " K tiles";
  if (c.pingpong_tiles) s << " in each of " << c.pingpong_tiles << " ping-pong tiles";
  s << ", " << c.num_stages << " stages, " << c.num_clusters << " clusters one after another, seed " << c.seed
    << (c.lazy ? ", lazy" : "");
  return s.str();
}

// A mutant's configuration run 4 times (lazy delivery, seeds from seed_base): how many runs failed.
int mutant_failures(Config c, uint64_t seed_base, const char* name) {
  int failed = 0;
  for (int run = 0; run < 4; ++run) {
    c.seed                  = protocol::run_seed(seed_base + uint64_t(run));
    c.lazy                  = true;
    const std::string error = Model(c).run();
    if (std::getenv("HOPPER_EXIT_PROTOCOL_VERBOSE")) std::printf("%s run %d: %s\n", name, run, error.c_str());
    failed += error.empty() ? 0 : 1;
  }
  std::printf("%s: caught in %d of 4 runs\n", name, failed);
  return failed;
}

}  // namespace

TEST_CASE("Hopper pairs' exit: every interleaving tried leaves no arrival on its way to a CTA that exits",
          "[hopper][protocol]") {
  int runs = 0;
  for (Exit exit : {Exit::TailRelaxed, Exit::TailNoBarrier, Exit::Release})
    for (int stages : {2, 4})
      // one K tile; fewer than the stages; as many; several laps
      for (int k_tiles : {1, stages - 1, stages, 3 * stages + 1})
        for (int seed = 0; seed < 3; ++seed) {
          if (k_tiles < 1) continue;
          Config c{exit, k_tiles, stages, 3};
          c.seed = protocol::run_seed(7000 + uint64_t(runs));
          c.lazy = runs % 2 == 1;
          INFO(describe(c));
          const std::string error = Model(c).run();
          INFO(error);
          CHECK(error.empty());
          ++runs;
        }
  CHECK(runs == 72);  // 3 exits x 2 ring depths x 4 K lengths x 3 seeds
}

TEST_CASE(
    "Hopper pairs' exit: the model catches an exit without the tail, and a tail without the last release",
    "[hopper][protocol][negative]") {
  // Without the tail, a relaxed exit lets a CTA leave while the other's last releases are on their way to it
  // (lazy delivery holds them until someone waits, which nobody does: certain). With the tail but the last
  // stage never released, the tail waits for a phase that cannot complete (a hang).
  struct Case {
    Exit exit;
    Mutant mutant;
    const char* name;
  };
  for (const Case& m :
       {Case{Exit::TailRelaxed, Mutant::NoTail, "a relaxed exit barrier without the tail"},
        Case{Exit::TailNoBarrier, Mutant::NoTail, "no exit barrier and no tail"},
        Case{Exit::TailRelaxed, Mutant::NoLastRelease, "the tail, the last stage not released"},
        Case{Exit::TailNoBarrier, Mutant::NoLastRelease,
             "the tail, no exit barrier, the last stage not released"}}) {
    const int failed = mutant_failures(Config{m.exit, 7, 3, 2, m.mutant}, 8000, m.name);
    INFO(m.name << ": failed " << failed << " of 4 runs");
    CHECK(failed == 4);
  }
}

TEST_CASE("Hopper ping-pong pairs' exit and turns (v8c): every interleaving tried reads the right boxes and "
          "leaves no arrival on its way",
          "[hopper][protocol]") {
  int runs = 0;
  for (int stages : {2, 5})
    for (int tiles : {1, 2, 3, 5})
      // one K tile; fewer than the stages; as many; more than a lap
      for (int k_tiles : {1, stages - 1, stages, 2 * stages + 1})
        for (int seed = 0; seed < 2; ++seed) {
          Config c{Exit::TailNoBarrier, k_tiles, stages, 3};
          c.pingpong_tiles = tiles;
          c.seed           = protocol::run_seed(9000 + uint64_t(runs));
          c.lazy           = runs % 2 == 1;
          INFO(describe(c));
          const std::string error = Model(c).run();
          INFO(error);
          CHECK(error.empty());
          ++runs;
        }
  CHECK(runs == 64);  // 2 ring depths x 4 tile counts x 4 K lengths x 2 seeds
}

TEST_CASE("Hopper ping-pong pairs (v8c): the model catches no tail, no last release and no order barrier",
          "[hopper][protocol][negative]") {
  struct Case {
    Mutant mutant;
    const char* name;
  };
  for (const Case& m : {Case{Mutant::NoTail, "ping-pong pair: no exit barrier and no tail"},
                        Case{Mutant::NoLastRelease, "ping-pong pair: the tail, the last stage not released"},
                        Case{Mutant::NoOrder, "ping-pong pair: no order barrier between the warpgroups"}}) {
    Config c{Exit::TailNoBarrier, 7, 3, 2, m.mutant};
    c.pingpong_tiles = 4;
    const int failed = mutant_failures(c, 9500, m.name);
    INFO(m.name << ": failed " << failed << " of 4 runs");
    CHECK(failed == 4);
  }
}
