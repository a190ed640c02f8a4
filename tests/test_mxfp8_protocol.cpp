// test_mxfp8_protocol.cpp: the synchronisation protocol of the Blackwell MXFP8 kernel
// (mxfp8/matmul_mxfp8.cu), which no GPU here can run, executed on the CPU against the model of
// tests/protocol_model.h. The roles of tests/test_v6_protocol.cpp (v6's protocol, which this kernel keeps,
// setup and teardown included), extended by what this stage adds:
//  - per stage, each CTA's SFA box and the SFB box that CTA 0 multicasts into BOTH CTAs' stage, every copy's
//    bytes on CTA 0's full barrier, announced by the CTA that issues the copy;
//  - tcgen05.cp of the stage's scales into its TMEM slot, issued by the MMA thread before the stage's MMAs.
//    From the ISA's pipelined pairs: a tcgen05.cp executes before the MMAs issued after it (same thread, same
//    cta_group); it may execute BEFORE earlier-issued MMAs (tcgen05.mma -> tcgen05.cp is not a pipelined
//    pair), which the model does at random;
//  - the accumulators overlapping in TMEM: regions X, Y, Z; accumulator 0 = X|Y, 1 = Y|Z; each region with
//    its own "empty" barrier. The epilogue loads the accumulator's half in Y into registers (tcgen05.ld is
//    asynchronous: it reads TMEM when it executes, at some time before the warp's tcgen05.wait::ld returns),
//    waits, releases Y, stores it; then loads, waits for and stores its own region, and releases it.
// Checked on every event, besides v6's checks: a tcgen05.cp never overwrites a scale slot that an issued MMA
// has not read; an MMA reads the scales of its own tile and K step, and scale tiles in shared memory hold
// that tile and K step when copied; an MMA overwrites a TMEM region only after the loads of all 4 epilogue
// warps of each CTA read its previous content, and a load reads a region that holds its whole tile.
// Mutants must be caught: the MMA not waiting for region Y; Y's phase flipping per accumulator (as X/Z's);
// one scale slot shared by all stages (the mma -> cp order relied on); Y released before tcgen05.wait::ld;
// and v6's four.
#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
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

// The kernel's constants (mxfp8/matmul_mxfp8.cu); NUM_STAGES also varies below, the protocol is generic.
constexpr int BLOCK_M = 128, BLOCK_N = 256, BLOCK_K = 128, CLUSTER_SIZE = 2, B_HALF_ROWS = BLOCK_N / 2;
constexpr int NUM_ACCUMULATORS = 2, NUM_EPILOGUE_WARPS = 4, GROUP_M = 16, NUM_WARPS = 6;
constexpr uint32_t A_BYTES = 16384, B_BYTES = 16384, SFA_BYTES = 512, SFB_BYTES = 1024;
constexpr int OP_A = 0, OP_B = 1, OP_SFA = 2, OP_SFB = 3, NUM_OPS = 4;  // what a ring stage holds
constexpr int REGION_Y = 1, NUM_REGIONS = 3;  // X, Y, Z; accumulator a = regions {2a, Y}

enum class Mutant {
  None,
  EmptyCountOneCta,
  RingRestartsPerTile,
  NoProducerTail,
  AllocBeforeClusterBarrier,
  NoYWait,               // the MMA waits only for its accumulator's own region
  YPhasePerAccumulator,  // Y's phase flips when the accumulator index wraps, as X/Z's
  SharedScaleSlot,       // one TMEM scale slot for every stage
  ReleaseYBeforeWaitLd   // the epilogue releases Y before tcgen05.wait::ld of its loads
};

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
        for (int op = 0; op < NUM_OPS; ++op) stage_[r][op].push_back({});
        slot_[r].push_back({});
      }
      for (int a = 0; a < NUM_ACCUMULATORS; ++a)
        tmem_full_[r].push_back(&m_.barrier(r, "tmem_full_bar[" + std::to_string(a) + "]"));
      for (int g = 0; g < NUM_REGIONS; ++g) {
        tmem_empty_[r].push_back(&m_.barrier(r, "tmem_empty_bar[" + std::to_string(g) + "]"));
        region_[r].push_back({});
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
  struct AccContent {  // one TMEM region X, Y or Z of one CTA
    int turn = -1, k_done = 0;
    int reads = NUM_EPILOGUE_WARPS;  // epilogue warps whose loads read this turn's result (fresh TMEM: free)
  };
  struct ScaleSlot {  // the TMEM scale slot of one stage in one CTA
    int turn = -1, k_tile = -1;
    long issued = 0, executed = 0;  // MMAs issued that read it / of those, executed
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
    m_.cluster_sync(cluster_, "teardown");
  }

  bool setup(int rank, int warp_id) {
    if (warp_id == 0) {
      std::lock_guard<std::mutex> lock(m_.mu);
      const int empty_count =
          c_.mutant == Mutant::EmptyCountOneCta ? NUM_EPILOGUE_WARPS : NUM_EPILOGUE_WARPS * CLUSTER_SIZE;
      for (int s = 0; s < c_.num_stages; ++s) {
        m_.init_locked(*full_[rank][size_t(s)], cta_[rank], CLUSTER_SIZE);
        m_.init_locked(*mma_done_[rank][size_t(s)], cta_[rank], 1);
      }
      for (int a = 0; a < NUM_ACCUMULATORS; ++a) m_.init_locked(*tmem_full_[rank][size_t(a)], cta_[rank], 1);
      for (int g = 0; g < NUM_REGIONS; ++g)
        m_.init_locked(*tmem_empty_[rank][size_t(g)], cta_[rank], empty_count);
    }
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
        // as the kernel: each CTA announces the copies it issues; CTA 0 the SFB multicast twice
        m_.arrive_expect_tx_locked(full, cta_[0],
                                   (load_a ? A_BYTES + SFA_BYTES : 0) + (load_b ? B_BYTES : 0) +
                                       (rank == 0 ? CLUSTER_SIZE * SFB_BYTES : 0));
        const int s = stage;
        auto copy   = [&](int dst_rank, int op, uint32_t bytes) {
          Machine::Event e;
          e.fn = [this, dst_rank, op, s, turn, k_tile, bytes, &full] {
            StageContent& st = stage_[dst_rank][op][size_t(s)];
            if (st.reads_pending > 0)
              return m_.fail_locked("TMA overwrote a stage an issued MMA/cp has not read");
            if (!st.read) return m_.fail_locked("TMA overwrote a stage whose last load was never read");
            st = {turn, k_tile, false, 0};
            m_.complete_tx_locked(full, bytes);
          };
          e.key         = &full;
          e.target      = &full;
          e.target_cta  = cta_[0];
          e.smem_cta[0] = cta_[dst_rank];
          e.what        = "TMA op " + std::to_string(op) + " of CTA " + std::to_string(rank) + " into CTA " +
                   std::to_string(dst_rank);
          m_.post_locked(std::move(e));
        };
        if (load_a) copy(rank, OP_A, A_BYTES), copy(rank, OP_SFA, SFA_BYTES);
        if (load_b) copy(rank, OP_B, B_BYTES);
        if (rank == 0)
          for (int r = 0; r < CLUSTER_SIZE; ++r) copy(r, OP_SFB, SFB_BYTES);  // the multicast: both CTAs
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
    int stage = 0, full_phase = 0, acc = 0, acc_empty_phase = 1, y_empty_phase = 1;
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
      if (c_.mutant != Mutant::NoYWait &&
          !m_.wait(*tmem_empty_[0][REGION_Y], y_empty_phase, "tmem_empty_bar Y"))
        return false;
      if (!m_.wait(*tmem_empty_[0][size_t(2 * acc)], acc_empty_phase, "tmem_empty_bar X/Z")) return false;
      const ScheduledTile tiles[CLUSTER_SIZE] = {t0, rank1[size_t(turn)]};
      for (int k_tile = 0; k_tile < k_tiles_; ++k_tile) {
        if (!m_.wait(*full_[0][size_t(stage)], full_phase, "tma_full_bar")) return false;
        std::lock_guard<std::mutex> lock(m_.mu);
        const int s = stage, a = acc, sl = c_.mutant == Mutant::SharedScaleSlot ? 0 : stage;
        // tcgen05.cp of both CTAs' scale tiles into slot `sl`: may run before earlier MMAs, never after the
        // MMAs issued after it
        auto cp_done = std::make_shared<bool>(false);
        std::array<long, CLUSTER_SIZE> issued_before{};  // the MMAs issued before this cp that read the slot
        for (int r = 0; r < CLUSTER_SIZE; ++r) {
          for (int op : {OP_SFA, OP_SFB}) ++stage_[r][op][size_t(s)].reads_pending;
          issued_before[size_t(r)] = slot_[r][size_t(sl)].issued;
        }
        Machine::Event cp;
        cp.fn = [this, s, sl, turn, k_tile, tiles, cp_done, issued_before] {
          for (int r = 0; r < CLUSTER_SIZE; ++r) {
            ScaleSlot& slot = slot_[r][size_t(sl)];
            if (slot.executed < issued_before[size_t(r)])
              return m_.fail_locked("a tcgen05.cp overwrote a scale slot that an issued MMA has not read");
            for (int op : {OP_SFA, OP_SFB}) {
              StageContent& st = stage_[r][op][size_t(s)];
              --st.reads_pending;
              if ((op == OP_SFB || tiles[r].valid) && (st.turn != turn || st.k_tile != k_tile))
                return m_.fail_locked("a tcgen05.cp copied scales that are not its tile's and K step's");
              st.read = true;
            }
            slot.turn   = turn;
            slot.k_tile = k_tile;
          }
          *cp_done = true;
        };
        cp.smem_cta[0] = cta_[0];
        cp.smem_cta[1] = cta_[1];
        cp.what        = "a tcgen05.cp";
        m_.post_locked(std::move(cp));
        for (int r = 0; r < CLUSTER_SIZE; ++r) {
          for (int op : {OP_A, OP_B}) ++stage_[r][op][size_t(stage)].reads_pending;
          ++slot_[r][size_t(sl)].issued;
        }
        Machine::Event mma;  // the MMAs of this K tile execute
        mma.fn = [this, s, sl, a, turn, k_tile, tiles] {
          for (int r = 0; r < CLUSTER_SIZE; ++r) {
            const bool need[2] = {tiles[r].valid, tiles[r].n * BLOCK_N + r * B_HALF_ROWS < c_.n};
            for (int op : {OP_A, OP_B}) {
              StageContent& st = stage_[r][op][size_t(s)];
              --st.reads_pending;
              if (need[op] && (st.turn != turn || st.k_tile != k_tile))
                return m_.fail_locked("an MMA read a stage that does not hold its tile and K step");
              st.read = true;
            }
            ScaleSlot& slot = slot_[r][size_t(sl)];
            ++slot.executed;
            if (slot.turn != turn || slot.k_tile != k_tile)
              return m_.fail_locked("an MMA read scales in TMEM that are not its tile's and K step's");
            for (int g : {REGION_Y, 2 * a}) {
              AccContent& ac = region_[r][size_t(g)];
              if (k_tile == 0) {
                if (ac.reads != NUM_EPILOGUE_WARPS)
                  return m_.fail_locked(
                      "an MMA overwrote a TMEM region before the epilogue of a CTA read it");
                ac = {turn, 1, 0};
              } else {
                if (ac.turn != turn || ac.k_done != k_tile)
                  return m_.fail_locked("MMA accumulated out of order");
                ++ac.k_done;
              }
            }
          }
        };
        mma.ready       = [cp_done] { return *cp_done; };
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
      if (c_.mutant != Mutant::YPhasePerAccumulator) y_empty_phase ^= 1;
      if (++acc == NUM_ACCUMULATORS) {
        acc = 0;
        acc_empty_phase ^= 1;
        if (c_.mutant == Mutant::YPhasePerAccumulator) y_empty_phase ^= 1;
      }
      return true;
    });
  }
  // tcgen05.commit multicast to both CTAs: once every earlier MMA has executed, one arrival in each CTA,
  // each landing on its own
  Machine::Event commit(std::vector<Barrier*> (&bars)[CLUSTER_SIZE], int i, const std::string& name) {
    Machine::Event e;
    e.fn = [this, &bars, i] {
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

  // tcgen05.ld of region `g` by one epilogue warp: reads TMEM when it executes
  void load_locked(int rank, int warp_id, int g, int turn) {
    ++lds_pending_[rank][warp_id];
    Machine::Event ld;
    ld.fn = [this, rank, warp_id, g, turn] {
      --lds_pending_[rank][warp_id];
      AccContent& ac = region_[rank][size_t(g)];
      if (ac.turn != turn || ac.k_done != k_tiles_)
        return m_.fail_locked(
            "an epilogue's tcgen05.ld read a TMEM region that does not hold its whole tile");
      ++ac.reads;
    };
    ld.key         = &lds_pending_[rank][warp_id];
    ld.smem_cta[0] = cta_[rank];
    ld.what        = "a tcgen05.ld";
    m_.post_locked(std::move(ld));
  }
  bool wait_ld(int rank, int warp_id) {
    return m_.wait_until(
        &lds_pending_[rank][warp_id], [this, rank, warp_id] { return lds_pending_[rank][warp_id] == 0; },
        "tcgen05.wait::ld");
  }
  void epilogue(int rank, int warp_id) {
    const int quarter = warp_id % 4;  // gemm::tmem_warp_lane_base(warp_id) / 32
    int acc = 0, acc_full_phase = 0;
    {
      std::lock_guard<std::mutex> lock(m_.mu);
      m_.tmem_check_locked(cta_[rank], "an epilogue warp");
    }
    auto release = [&](int g) {  // one relaxed cluster arrival per warp on CTA 0's tmem_empty_bar[g]
      std::lock_guard<std::mutex> lock(m_.mu);
      if (c_.mutant != Mutant::EmptyCountOneCta || rank == 0)
        m_.thread_arrive_locked(*tmem_empty_[0][size_t(g)], cta_[0]);
    };
    for_each_tile(rank, [&](int turn, const ScheduledTile& t) {
      if (rank == c_.slow_epilogue_rank)
        std::this_thread::sleep_for(std::chrono::microseconds(c_.slow_epilogue_us));
      if (!m_.wait(*tmem_full_[rank][size_t(acc)], acc_full_phase, "tmem_full_bar")) return false;
      // the accumulator's half in Y: loaded into registers, waited for, released, then stored
      {
        std::lock_guard<std::mutex> lock(m_.mu);
        load_locked(rank, warp_id, REGION_Y, turn);
      }
      if (c_.mutant == Mutant::ReleaseYBeforeWaitLd) release(REGION_Y);
      if (!wait_ld(rank, warp_id)) return false;
      if (c_.mutant != Mutant::ReleaseYBeforeWaitLd) release(REGION_Y);
      m_.jitter();  // the stores of Y
      // then its own region (X or Z): loaded, waited for and stored chunk by chunk, released at the end
      {
        std::lock_guard<std::mutex> lock(m_.mu);
        load_locked(rank, warp_id, 2 * acc, turn);
      }
      if (!wait_ld(rank, warp_id)) return false;
      {
        std::lock_guard<std::mutex> lock(m_.mu);
        if (gemm::tile_extent(c_.m, BLOCK_M, t.m) > 0) ++stored_[std::make_tuple(t.m, t.n, quarter)];
      }
      release(2 * acc);
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
  std::vector<StageContent> stage_[CLUSTER_SIZE][NUM_OPS];  // under m_.mu, as everything the roles share
  std::vector<ScaleSlot> slot_[CLUSTER_SIZE];
  std::vector<AccContent> region_[CLUSTER_SIZE];
  int lds_pending_[CLUSTER_SIZE][NUM_WARPS] = {};  // per epilogue warp: tcgen05.ld issued, not executed
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

TEST_CASE(
    "mxfp8 Blackwell protocol: every interleaving tried keeps the rings, scale slots and TMEM regions "
    "safe and ends cleanly",
    "[mxfp8][protocol]") {
  // shapes: one tile; odd tiles_m (padding tile) with N inside the first B half; fewer K tiles than stages;
  // a last K tile with one MX block; several turns per cluster (both accumulators, Y reused); ragged
  const int shapes[][3] = {{1, 1, 32},        {129, 100, 96},   {300, 513, 544},
                           {1000, 1000, 128}, {257, 257, 1056}, {640, 1024, 512}};
  int runs              = 0;
  for (const auto& sh : shapes)
    for (int stages : {2, 3, 6})
      for (ScheduleKind kind : {ScheduleKind::Static, ScheduleKind::Hilbert})
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
  CHECK(runs == 72);
}

TEST_CASE("mxfp8 Blackwell protocol: the model catches broken protocols", "[mxfp8][protocol][negative]") {
  struct Case {
    Mutant mutant;
    const char* name;
  };
  for (const Case& m :
       {Case{Mutant::NoYWait, "the MMA does not wait for region Y"},
        Case{Mutant::YPhasePerAccumulator, "Y's phase flips per accumulator"},
        Case{Mutant::SharedScaleSlot, "one TMEM scale slot for all stages"},
        Case{Mutant::ReleaseYBeforeWaitLd, "Y released before tcgen05.wait::ld"},
        Case{Mutant::EmptyCountOneCta, "tmem_empty counts one CTA's epilogue warps"},
        Case{Mutant::RingRestartsPerTile, "the ring restarts at stage 0 for each tile"},
        Case{Mutant::NoProducerTail, "no producer tail before the exit barrier"},
        Case{Mutant::AllocBeforeClusterBarrier, "TMEM allocation before the cluster barrier"}}) {
    int failures = 0;
    for (uint64_t run = 1; run <= 12; ++run) {
      Config c{1000, 1000, 128 * 5, 1, 0, ScheduleKind::Static, 3, m.mutant, protocol::run_seed(1000 + run)};
      c.lazy               = m.mutant == Mutant::NoProducerTail || run % 2 == 0;
      c.slow_epilogue_rank = m.mutant == Mutant::EmptyCountOneCta ? 1
                             : (m.mutant == Mutant::NoYWait || m.mutant == Mutant::YPhasePerAccumulator)
                                 ? int(run % 2)
                                 : -1;
      c.slow_epilogue_us   = 20000;
      if (m.mutant == Mutant::AllocBeforeClusterBarrier) c.skew_us[1] = 3000;
      const std::string error = Model(c).run();
      if (std::getenv("MXFP8_PROTOCOL_VERBOSE"))
        std::printf("%s run %d: %s\n", m.name, int(run), error.c_str());
      failures += error.empty() ? 0 : 1;
    }
    INFO(m.name << ": failed " << failures << " of 12 runs");
    CHECK(failures > 0);
  }
}

TEST_CASE("mxfp8 Blackwell protocol: TMA bytes before their arrive.expect_tx, epilogue arrivals in flight",
          "[mxfp8][protocol][exploration]") {
  // As v6's: the SFB multicast's bytes too may land before CTA 0's expect_tx; the three regions' releases
  // are relaxed arrivals in flight until the teardown's barrier.cluster.arrive.release.
  long negative = 0;
  int runs      = 0;
  for (int stages : {2, 6})
    for (int clusters : {1, 3})
      for (int lazy = 0; lazy < 2; ++lazy) {
        Config c{640, 1024, 512, clusters, clusters - 1, ScheduleKind::Static, stages};
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
  std::printf("mxfp8: TMA bytes landed before their arrive.expect_tx %ld times in %d runs, all passed\n",
              negative, runs);
  CHECK(negative > 0);
}
