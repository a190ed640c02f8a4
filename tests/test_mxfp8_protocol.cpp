// test_mxfp8_protocol.cpp: the synchronisation protocol of the Blackwell MXFP8 kernel
// (mxfp8/matmul_mxfp8.cu), which no GPU here can run, executed on the CPU against a model of its mbarriers
// and asynchronous units. The model of tests/test_v6_protocol.cpp (v6's protocol, which this kernel keeps),
// extended by what this stage adds:
//  - per stage, each CTA's SFA box and the SFB box that CTA 0 multicasts into BOTH CTAs' stage, every copy's
//    bytes on CTA 0's full barrier, announced by the CTA that issues the copy;
//  - tcgen05.cp of the stage's scales into its TMEM slot, issued by the MMA thread before the stage's MMAs.
//    From the ISA's pipelined pairs: a tcgen05.cp executes before the MMAs issued after it (same thread, same
//    cta_group); it may execute BEFORE earlier-issued MMAs (tcgen05.mma -> tcgen05.cp is not a pipelined
//    pair), which the model does at random;
//  - the accumulators overlapping in TMEM: regions X, Y, Z; accumulator 0 = X|Y, 1 = Y|Z; each region with
//    its own "empty" barrier; the epilogue reads and releases Y first, then its own region.
// Checked on every event, besides v6's checks: a tcgen05.cp never overwrites a scale slot that an issued MMA
// has not read; an MMA reads the scales of its own tile and K step, and scale tiles in shared memory hold
// that tile and K step when copied; an MMA overwrites a TMEM region only after all 4 epilogue warps of each
// CTA read its previous content. Mutants must be caught: the MMA not waiting for region Y; Y's phase flipping
// per accumulator (as X/Z's); one scale slot shared by all stages (the mma -> cp order relied on); and v6's
// three.
#include <catch2/catch.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
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

// The kernel's constants (mxfp8/matmul_mxfp8.cu); NUM_STAGES also varies below, the protocol is generic.
constexpr int BLOCK_M = 128, BLOCK_N = 256, BLOCK_K = 128, CLUSTER_SIZE = 2, B_HALF_ROWS = BLOCK_N / 2;
constexpr int NUM_ACCUMULATORS = 2, NUM_EPILOGUE_WARPS = 4, GROUP_M = 16;
constexpr uint32_t A_BYTES = 16384, B_BYTES = 16384, SFA_BYTES = 512, SFB_BYTES = 1024;
constexpr int OP_A = 0, OP_B = 1, OP_SFA = 2, OP_SFB = 3, NUM_OPS = 4;  // what a ring stage holds
constexpr int REGION_Y = 1, NUM_REGIONS = 3;  // X, Y, Z; accumulator a = regions {2a, Y}

enum class Mutant {
  None,
  EmptyCountOneCta,
  RingRestartsPerTile,
  NoProducerTail,
  NoYWait,               // the MMA waits only for its accumulator's own region
  YPhasePerAccumulator,  // Y's phase flips when the accumulator index wraps, as X/Z's
  SharedScaleSlot        // one TMEM scale slot for every stage
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
        for (int op = 0; op < NUM_OPS; ++op) stage_[r][op].push_back({});
        slot_[r].push_back({});
      }
      for (int a = 0; a < NUM_ACCUMULATORS; ++a) tmem_full_[r].push_back(make_bar(1));
      for (int g = 0; g < NUM_REGIONS; ++g) {
        const int empty_count =
            c.mutant == Mutant::EmptyCountOneCta ? NUM_EPILOGUE_WARPS : NUM_EPILOGUE_WARPS * CLUSTER_SIZE;
        tmem_empty_[r].push_back(make_bar(empty_count));
        region_[r].push_back({});
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
  struct AccContent {  // one TMEM region X, Y or Z of one CTA
    int turn = -1, k_done = 0;
    int reads = NUM_EPILOGUE_WARPS;  // epilogue warps that read this turn's result (fresh TMEM: free)
  };
  struct ScaleSlot {  // the TMEM scale slot of one stage in one CTA
    int turn = -1, k_tile = -1;
    long issued = 0, executed = 0;  // MMAs issued that read it / of those, executed
  };
  struct Event {
    std::function<void()> fn;
    const Barrier* target;        // the barrier it arrives on (pool events); nullptr: due at once / the FIFO
    std::function<bool()> ready;  // FIFO only: may it execute now (an MMA after its tcgen05.cp)
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
  void async_pool(const Barrier* target, std::function<void()> fn) {
    pool_.push_back({std::move(fn), target, nullptr});
    cv_.notify_all();
  }
  void async_pool(const Barrier& target, std::function<void()> fn) { async_pool(&target, std::move(fn)); }
  void async_fifo(std::function<void()> fn, std::function<bool()> ready = nullptr) {
    fifo_.push_back({std::move(fn), nullptr, std::move(ready)});
    cv_.notify_all();
  }
  void deliver() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      if (!error_.empty()) return;
      if (roles_done_) return;
      std::vector<size_t> due;  // pool events that may be delivered now; pool_.size() stands for the FIFO
      for (size_t i = 0; i < pool_.size(); ++i)
        if (!c_.lazy || !pool_[i].target || waiting_[pool_[i].target] > 0) due.push_back(i);
      if (!fifo_.empty() && (!fifo_.front().ready || fifo_.front().ready())) due.push_back(pool_.size());
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
        // as the kernel: each CTA announces the copies it issues; CTA 0 the SFB multicast twice
        arrive_locked(full_[0][stage], (load_a ? A_BYTES + SFA_BYTES : 0) + (load_b ? B_BYTES : 0) +
                                           (rank == 0 ? CLUSTER_SIZE * SFB_BYTES : 0));
        const int s = stage;
        auto copy   = [&](int dst_rank, int op, uint32_t bytes) {
          async_pool(full_[0][s], [this, dst_rank, op, s, turn, k_tile, bytes] {
            StageContent& st = stage_[dst_rank][op][s];
            if (st.reads_pending > 0)
              return fail_locked("TMA overwrote a stage an issued MMA/cp has not read");
            if (!st.read) return fail_locked("TMA overwrote a stage whose last load was never read");
            st = {turn, k_tile, false, 0};
            complete_tx_locked(full_[0][s], bytes);
          });
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
      if (!wait(mma_done_[rank][stage], empty_phase, "mma_done_bar (tail)")) return;
      advance();
    }
  }

  void mma() {
    int stage = 0, full_phase = 0, acc = 0, acc_empty_phase = 1, y_empty_phase = 1;
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
      if (c_.mutant != Mutant::NoYWait && !wait(tmem_empty_[0][REGION_Y], y_empty_phase, "tmem_empty_bar Y"))
        return false;
      if (!wait(tmem_empty_[0][2 * acc], acc_empty_phase, "tmem_empty_bar X/Z")) return false;
      const ScheduledTile tiles[CLUSTER_SIZE] = {t0, rank1[size_t(turn)]};
      for (int k_tile = 0; k_tile < k_tiles_; ++k_tile) {
        if (!wait(full_[0][stage], full_phase, "tma_full_bar")) return false;
        std::lock_guard<std::mutex> lock(mu_);
        const int s = stage, a = acc, sl = c_.mutant == Mutant::SharedScaleSlot ? 0 : stage;
        // tcgen05.cp of both CTAs' scale tiles into slot `sl`: may run before earlier MMAs, never after the
        // MMAs issued after it
        auto cp_done = std::make_shared<bool>(false);
        std::array<long, CLUSTER_SIZE> issued_before{};  // the MMAs issued before this cp that read the slot
        for (int r = 0; r < CLUSTER_SIZE; ++r) {
          for (int op : {OP_SFA, OP_SFB}) ++stage_[r][op][s].reads_pending;
          issued_before[size_t(r)] = slot_[r][sl].issued;
        }
        async_pool(nullptr, [this, s, sl, turn, k_tile, tiles, cp_done, issued_before] {
          for (int r = 0; r < CLUSTER_SIZE; ++r) {
            ScaleSlot& slot = slot_[r][sl];
            if (slot.executed < issued_before[size_t(r)])
              return fail_locked("a tcgen05.cp overwrote a scale slot that an issued MMA has not read");
            for (int op : {OP_SFA, OP_SFB}) {
              StageContent& st = stage_[r][op][s];
              --st.reads_pending;
              if ((op == OP_SFB || tiles[r].valid) && (st.turn != turn || st.k_tile != k_tile))
                return fail_locked("a tcgen05.cp copied scales that are not its tile's and K step's");
              st.read = true;
            }
            slot.turn   = turn;
            slot.k_tile = k_tile;
          }
          *cp_done = true;
        });
        for (int r = 0; r < CLUSTER_SIZE; ++r) {
          for (int op : {OP_A, OP_B}) ++stage_[r][op][stage].reads_pending;
          ++slot_[r][sl].issued;
        }
        async_fifo(
            [this, s, sl, a, turn, k_tile, tiles] {  // the MMAs of this K tile execute
              for (int r = 0; r < CLUSTER_SIZE; ++r) {
                const bool need[2] = {tiles[r].valid, tiles[r].n * BLOCK_N + r * B_HALF_ROWS < c_.n};
                for (int op : {OP_A, OP_B}) {
                  StageContent& st = stage_[r][op][s];
                  --st.reads_pending;
                  if (need[op] && (st.turn != turn || st.k_tile != k_tile))
                    return fail_locked("an MMA read a stage that does not hold its tile and K step");
                  st.read = true;
                }
                ScaleSlot& slot = slot_[r][sl];
                ++slot.executed;
                if (slot.turn != turn || slot.k_tile != k_tile)
                  return fail_locked("an MMA read scales in TMEM that are not its tile's and K step's");
                for (int g : {REGION_Y, 2 * a}) {
                  AccContent& ac = region_[r][size_t(g)];
                  if (k_tile == 0) {
                    if (ac.reads != NUM_EPILOGUE_WARPS)
                      return fail_locked(
                          "an MMA overwrote a TMEM region before the epilogue of a CTA read it");
                    ac = {turn, 1, 0};
                  } else {
                    if (ac.turn != turn || ac.k_done != k_tile)
                      return fail_locked("MMA accumulated out of order");
                    ++ac.k_done;
                  }
                }
              }
            },
            [cp_done] { return *cp_done; });
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
      if (c_.mutant != Mutant::YPhasePerAccumulator) y_empty_phase ^= 1;
      if (++acc == NUM_ACCUMULATORS) {
        acc = 0;
        acc_empty_phase ^= 1;
        if (c_.mutant == Mutant::YPhasePerAccumulator) y_empty_phase ^= 1;
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
      // the accumulator's half in Y first, released at once; then its own region X or Z
      for (int g : {REGION_Y, 2 * acc}) {
        if (g != REGION_Y) jitter();
        std::lock_guard<std::mutex> lock(mu_);
        AccContent& ac = region_[rank][size_t(g)];
        if (ac.turn != turn || ac.k_done != k_tiles_) {
          fail_locked("an epilogue read a TMEM region that does not hold its whole tile");
          return false;
        }
        ++ac.reads;
        if (g != REGION_Y && gemm::tile_extent(c_.m, BLOCK_M, t.m) > 0)
          ++stored_[std::make_tuple(t.m, t.n, quarter)];
        if (c_.mutant != Mutant::EmptyCountOneCta || rank == 0) arrive_locked(tmem_empty_[0][size_t(g)]);
      }
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
  std::vector<StageContent> stage_[CLUSTER_SIZE][NUM_OPS];
  std::vector<ScaleSlot> slot_[CLUSTER_SIZE];
  std::vector<AccContent> region_[CLUSTER_SIZE];
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
          c.seed               = uint64_t(runs) * 7919 + 29;
          c.lazy               = runs % 2 == 1;
          c.slow_epilogue_rank = runs % 3 - 1;  // none, CTA 0's, CTA 1's
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
  for (const Case& m : {Case{Mutant::NoYWait, "the MMA does not wait for region Y"},
                        Case{Mutant::YPhasePerAccumulator, "Y's phase flips per accumulator"},
                        Case{Mutant::SharedScaleSlot, "one TMEM scale slot for all stages"},
                        Case{Mutant::EmptyCountOneCta, "tmem_empty counts one CTA's epilogue warps"},
                        Case{Mutant::RingRestartsPerTile, "the ring restarts at stage 0 for each tile"},
                        Case{Mutant::NoProducerTail, "no producer tail before the exit barrier"}}) {
    int failures = 0;
    for (uint64_t seed = 1; seed <= 12; ++seed) {
      Config c{1000, 1000, 128 * 5, 1, 0, ScheduleKind::Static, 3, m.mutant, seed};
      c.lazy                  = m.mutant == Mutant::NoProducerTail || seed % 2 == 0;
      c.slow_epilogue_rank    = m.mutant == Mutant::EmptyCountOneCta ? 1
                                : (m.mutant == Mutant::NoYWait || m.mutant == Mutant::YPhasePerAccumulator)
                                    ? int(seed % 2)
                                    : -1;
      c.slow_epilogue_us      = 20000;
      const std::string error = Model(c).run();
      if (std::getenv("MXFP8_PROTOCOL_VERBOSE"))
        std::printf("%s seed %d: %s\n", m.name, int(seed), error.c_str());
      failures += error.empty() ? 0 : 1;
    }
    INFO(m.name << ": failed " << failures << " of 12 runs");
    CHECK(failures > 0);
  }
}
