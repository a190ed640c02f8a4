// test_v7_protocol.cpp: the synchronisation protocol of the Blackwell v7 kernel (v7_streamk/matmul_v7.cu),
// which no GPU here can run, executed on the CPU against the model of tests/protocol_model.h.
//
// v7 is v6's kernel with the work scheduled by Cluster Launch Control: one 2-CTA cluster per unit of work; a
// running cluster asks (clusterlaunchcontrol.try_cancel, multicast) for the unit of a cluster that has not
// started, and every role of both CTAs reads the answer from a ring of CLC_SLOTS responses. Modelled here:
//  - the GPU: `pairs` SM pairs; clusters start in launch order on a free pair, one after another as pairs
//    free up, skipping the clusters that a request has canceled;
//  - try_cancel: an asynchronous event that, when it executes, cancels the first cluster (in launch order)
//    that has not started, or fails when none is left; its response then lands in each CTA separately (any
//    order, any time), writing the CTA's response slot and completing 16 bytes on its clc_full_bar;
//  - every role thread of every cluster runs the kernel's code line for line (as test_v6_protocol.cpp), with
//    the kernel's unit -> tile map (common/scheduler.h) and edge arithmetic (common/edge.h).
// Checked besides the model's own rules and v6's (stages, accumulators, in-flight events at exit):
//  - a response never overwrites one that a reader of its CTA has not read yet; every reader reads the
//    responses of its own cluster, in request order, only after they landed;
//  - no request after a CTA has read a failed response (undefined behaviour in the PTX ISA);
//  - every unit is done by exactly one cluster, and a canceled cluster never runs; every valid tile is stored
//    once by each of the 4 row quarters, padding tiles never.
// Mutants that must be caught: clc_empty counting CTA 0's readers only; CTA 0's producer not waiting for
// clc_empty; a request after the failed response; a response read without waiting for clc_full.
//
// The stream-K variants (v7a-v7d) on the same model: `pairs` workers, all resident, each walking its pieces of
// a plan (common/streamk.h); the fixup per epilogue warp: a partial's flag store is an event that becomes
// visible later (never before the partial it releases); the finisher waits for the later workers' flags,
// reads their partials and lowers the flags. Checked: every K tile of every unit loaded once, a finisher
// reads exactly the later segments, in K order, after they were written, and stores a unit whose K is
// complete; every tile stored once per quarter; every flag 0 after each of two launches that share them.
// Mutants caught: a finisher that does not wait, a flag raised before its partial is written, a finisher that
// leaves the flags raised (the next launch reads stale partials).
// The same plans on v8's CTA alone (unit_ctas 1: v8a, and v8d where it takes it; v8_tile_shapes/matmul_v8.cu,
// which keeps this protocol): one CTA per worker, its own full barrier (count 1) announcing all 256 rows of B,
// 1-CTA commits onto its own barriers, its own TMEM, its epilogue's release counting 4. Mutants caught: half
// of B announced (the pair's count), a finisher that does not wait.
//
// The global work counter (Hopper's v7e, v7_streamk/work_counter_sm90.cuh) on the same model: the pieces
// of a plan over more ranges than clusters, in the dynamic order (common/streamk.h), drawn at run time. CTA 0's
// producer draws (the counter is a shared integer: each draw an atomic step, the clusters' draws interleaving
// as the threads run), one piece ahead of its own reads, and writes each piece into a ring slot of both CTAs
// (an event that lands in each CTA on its own: the remote store and the release arrival on its
// task_full_bar); every role of both CTAs reads every piece and arrives on CTA 0's task_empty_bar, which the
// drawer waits for before it writes the slot again. Cluster c starts with piece c, undrawn; the counter hands
// out the pieces after the grid's. A cluster that draws past the end counts itself done; the
// last one resets both counters. (The roles are this model's Blackwell ones; the Hopper kernel's readers are
// its producer threads and consumer warpgroups: the ring, its counts and the order are the same.) Checked,
// besides the stream-K checks: a slot never overwritten before every reader of its CTA read it, the readers
// read the pieces in draw order, both counters 0 after each of two launches. Mutants caught: the finishers
// ordered first (a hang: a cluster waits for partials still in the list, behind it), the counters not reset
// (the second launch draws nothing).
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "common/edge.h"
#include "common/scheduler.h"
#include "common/streamk.h"
#include "protocol_model.h"

using gemm::ScheduledTile;
using gemm::StreamKPiece;
using gemm::StreamKPlan;
using gemm::StreamKPolicy;
using gemm::StreamKWork;
using gemm::ScheduleKind;
using gemm::TileSchedule;
using protocol::Barrier;
using protocol::Machine;

namespace {

// The kernel's constants (v7_streamk/matmul_v7.cu; the CLC ring's: v7_streamk/clc_handout.cuh); NUM_STAGES
// and CLC_SLOTS also vary below.
constexpr int BLOCK_M = 128, BLOCK_N = 256, BLOCK_K = 64, CLUSTER_SIZE = 2, B_HALF_ROWS = BLOCK_N / 2;
constexpr int NUM_ACCUMULATORS = 2, NUM_EPILOGUE_WARPS = 4, GROUP_M = 16, NUM_WARPS = 6;
constexpr uint32_t A_BYTES = 16384, B_BYTES = 16384, RESPONSE_BYTES = 16;
// Readers of a response: CTA 0's producer, MMA thread and 4 epilogue warps; CTA 1's producer and 4 warps.
constexpr int READERS[CLUSTER_SIZE] = {1 + 1 + NUM_EPILOGUE_WARPS, 1 + NUM_EPILOGUE_WARPS};
constexpr int CLC_READERS           = READERS[0] + READERS[1];

enum class Mutant {
  None,
  ClcEmptyCountsCta0, NoClcEmptyWait, RequestAfterFail, ReadBeforeFull,  // CLC (v7clc)
  FinisherNoWait, FlagBeforeData, FlagNotLowered,                         // the stream-K fixup (v7a-v7d)
  FinisherFirst, CounterNotReset,                                         // the work counter (v7e)
  AloneHalfB                                                              // the CTA alone: B's half announced
};

struct Config {
  int m, n, k;
  int pairs;  // SM pairs: clusters that can run at once
  int num_stages, clc_slots;
  Mutant mutant          = Mutant::None;
  uint64_t seed          = 1;
  bool lazy              = false;
  int slow_epilogue_rank = -1;  // the epilogue warps of this rank sleep before each unit
  int slow_epilogue_us   = 300;
  protocol::Options model;
  // Stream-K (v7a-v7d) instead of CLC: `pairs` workers, all resident, walking the plan's pieces, with the
  // fixup's flags (shared by the launches of one test, as the kernel's are: each launch must leave them 0).
  bool streamk          = false;
  StreamKPolicy policy  = StreamKPolicy::StreamK;
  int min_iters         = 4;
  std::vector<int>* flags = nullptr;  // one per (worker, CTA, epilogue warp); required with streamk
  int slow_worker       = -1;         // this worker's epilogue warps sleep slow_epilogue_us before each piece
  // The unit (with streamk, not counter): the CTA pair (2) or a CTA alone (1: v8's cta_group::1 kernel, of
  // v8a, and of v8d where it takes it): one CTA per worker, which loads all 256 rows of B onto its own full
  // barrier, commits onto its own barriers (no multicast), allocates TMEM alone, and whose epilogue warps
  // release tmem_empty (count 4) in their own CTA.
  int unit_ctas = CLUSTER_SIZE;
  // The work counter (with streamk): the plan has plan_workers ranges, drawn by `pairs` clusters; the two
  // counters are shared by the launches of one test, as the kernel's are (each launch must leave them 0).
  bool counter               = false;
  int plan_workers           = 0;
  std::vector<int>* counters = nullptr;  // [0] the next piece, [1] clusters done; required with counter
};

class Model {
 public:
  explicit Model(const Config& c)
      : c_(c),
        m_(options(c)),
        tiles_m_(gemm::num_tiles(c.m, BLOCK_M)),
        tiles_n_(gemm::num_tiles(c.n, BLOCK_N)),
        k_tiles_(gemm::num_k_tiles(c.k, BLOCK_K)),
        ctas_(c.unit_ctas),
        units_(gemm::num_tiles(tiles_m_, ctas_) * tiles_n_),
        state_(size_t(units_), State::Pending),
        done_by_(size_t(units_), -1),
        finished_(size_t(units_ > c.pairs ? units_ : c.pairs), 0) {
    for (size_t i = 0; i < finished_.size(); ++i) clusters_.push_back(std::make_unique<Cluster>());
    if (c.streamk) {
      plan_     = gemm::make_streamk_plan(units_, k_tiles_, c.counter ? c.plan_workers : c.pairs, c.policy,
                                          c.min_iters);
      launched_ = plan_.dp_units > 0 ? plan_.workers : plan_.sk_workers;
      if (c.counter) {
        order_.resize(size_t(gemm::streamk_dynamic_order(plan_, nullptr)));
        gemm::streamk_dynamic_order(plan_, order_.data());
        if (c.mutant == Mutant::FinisherFirst)  // the finishers first, before the partials they wait for
          std::stable_partition(order_.begin(), order_.end(), [this](const gemm::StreamKTask& t) {
            return gemm::piece_of(t, k_tiles_).role == StreamKPiece::Finisher;
          });
        launched_ = int(order_.size()) < c.pairs ? int(order_.size()) : c.pairs;
        if (c.counters->size() < 2) c.counters->resize(2, 0);
      }
      partial_.assign(size_t(c.counter ? plan_.workers : launched_) * ctas_ * NUM_EPILOGUE_WARPS, {});
      if (c.flags->size() < partial_.size()) c.flags->resize(partial_.size(), 0);
    }
    for (int sm = 0; sm < 2 * c.pairs; ++sm) {
      Sm& s = sms_.emplace_back();
      for (int i = 0; i < c.num_stages; ++i) {
        s.full.push_back(&m_.barrier(sm, "tma_full_bar[" + std::to_string(i) + "]"));
        s.mma_done.push_back(&m_.barrier(sm, "mma_done_bar[" + std::to_string(i) + "]"));
        for (int op = 0; op < 2; ++op) s.stage[op].push_back({});
      }
      for (int a = 0; a < NUM_ACCUMULATORS; ++a) {
        s.tmem_full.push_back(&m_.barrier(sm, "tmem_full_bar[" + std::to_string(a) + "]"));
        s.tmem_empty.push_back(&m_.barrier(sm, "tmem_empty_bar[" + std::to_string(a) + "]"));
        s.acc.push_back({});
      }
      for (int i = 0; i < c.clc_slots; ++i) {
        s.clc_full.push_back(&m_.barrier(sm, "clc_full_bar[" + std::to_string(i) + "]"));
        s.clc_empty.push_back(&m_.barrier(sm, "clc_empty_bar[" + std::to_string(i) + "]"));
        s.response.push_back({});
        s.task_full.push_back(&m_.barrier(sm, "task_full_bar[" + std::to_string(i) + "]"));
        s.task_empty.push_back(&m_.barrier(sm, "task_empty_bar[" + std::to_string(i) + "]"));
        s.task.push_back({});
      }
    }
  }

  long canceled() const { return canceled_; }

  // Runs the grid; returns "" or what went wrong.
  std::string run() {
    m_.start_delivery();
    if (c_.streamk) return run_streamk();
    std::vector<int> running(size_t(c_.pairs), -1);  // the cluster on each SM pair
    for (;;) {
      bool busy = false;
      {
        std::lock_guard<std::mutex> lock(m_.mu);
        if (!m_.ok_locked()) break;
        for (int p = 0; p < c_.pairs; ++p) {
          int& r = running[size_t(p)];
          if (r >= 0 && finished_[r] == CLUSTER_SIZE * NUM_WARPS) r = -1;
          if (r < 0) {  // the first cluster in launch order that no request has canceled starts here
            for (int u = 0; u < units_ && r < 0; ++u)
              if (state_[size_t(u)] == State::Pending) {
                state_[size_t(u)] = State::Running;
                r                 = u;
              }
            if (r >= 0) launch_locked(r, p);
          }
          busy = busy || r >= 0;
        }
      }
      if (!busy) break;
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
    m_.join_threads();
    const std::string error = m_.finish();
    if (!error.empty()) return error;
    for (int u = 0; u < units_; ++u) {
      if (state_[size_t(u)] == State::Pending) return "cluster " + std::to_string(u) + " never ran";
      if (done_by_[size_t(u)] < 0) return "unit " + std::to_string(u) + " was never done";
    }
    for (int tm = 0; tm <= tiles_m_; ++tm)
      for (int tn = 0; tn < tiles_n_; ++tn)
        for (int q = 0; q < 4; ++q) {
          const int expect = tm < tiles_m_ ? 1 : 0;
          const auto it    = stored_.find(std::make_tuple(tm, tn, q));
          const int got    = it == stored_.end() ? 0 : it->second;
          if (got != expect) {
            std::ostringstream s;
            s << "tile (" << tm << ", " << tn << ") quarter " << q << " stored " << got << " times, not " << expect;
            return s.str();
          }
        }
    return "";
  }

 private:
  enum class State { Pending, Running, Canceled };
  struct StageContent {
    int unit = -1, k_tile = -1;  // what the last TMA copy wrote (-1: nothing yet)
    bool read         = true;    // an MMA has read it since
    int reads_pending = 0;       // MMAs issued that read it and have not executed yet
  };
  struct AccContent {
    int unit = -1, k_begin = 0, k_next = 0;  // the MMAs of K tiles [k_begin, k_next) of `unit` are in it
    int reads = NUM_EPILOGUE_WARPS;           // epilogue warps that read this piece (fresh TMEM: free)
  };
  struct Partial {  // what a worker's epilogue warp left in its slot of the workspace
    int unit = -1, k_begin = -1, k_end = -1;
  };
  struct Response {
    int cta = -1, seq = -1;  // written for CTA `cta`, the answer to its cluster's request number `seq`
    int unit  = -1;          // the canceled cluster's unit, or -1: the request failed
    int reads = 0;           // readers of this CTA that read it
    int expected = 0;        // readers of this CTA
  };
  struct Sm {  // what lives at fixed offsets of one SM, whichever CTA runs there
    std::vector<Barrier*> full, mma_done, tmem_full, tmem_empty, clc_full, clc_empty, task_full, task_empty;
    std::vector<StageContent> stage[2];
    std::vector<AccContent> acc;
    std::vector<Response> response;
    std::vector<Response> task;  // the work counter's ring: `unit` holds the drawn index (-1: none left)
  };
  struct Cluster {
    int unit = -1, pair = -1;
    int cta[CLUSTER_SIZE] = {-1, -1};
    int mid               = -1;     // the machine's cluster id
    bool failure_read[CLUSTER_SIZE] = {false, false};
  };

  static protocol::Options options(const Config& c) {
    protocol::Options o = c.model;
    o.seed              = c.seed;
    o.lazy              = c.lazy;
    return o;
  }

  ScheduledTile tile_of(int unit, int rank) const {
    return TileSchedule<ScheduleKind::Grouped>(tiles_m_, tiles_n_, units_, unit, ctas_, rank, GROUP_M)
        .tile(0);
  }
  Sm& sm(int id, int rank) { return sms_[size_t(2 * clusters_[size_t(id)]->pair + rank)]; }

  void launch_locked(int id, int pair) {
    Cluster& cl = (*clusters_[size_t(id)]);
    cl.unit     = id;
    cl.pair     = pair;
    m_.mu.unlock();  // the machine's own calls take the lock
    std::mt19937_64 g(protocol::mix64(c_.seed ^ uint64_t(id * 977 + 1)));
    const std::vector<int> skews = {int(g() % 4 == 0 ? g() % 200 : 0), int(g() % 4 == 0 ? g() % 200 : 0)};
    cl.mid = ctas_ == 1 ? m_.launch_cluster({2 * pair}, NUM_WARPS, skews)  // a CTA alone: SM 2p, 2p + 1 idle
                        : m_.launch_cluster({2 * pair, 2 * pair + 1}, NUM_WARPS, skews);
    for (int r = 0; r < ctas_; ++r) cl.cta[r] = m_.cta(cl.mid, r);
    for (int r = 0; r < ctas_; ++r)
      for (int w = 0; w < NUM_WARPS; ++w) m_.spawn(cl.cta[r], [this, id, r, w] { warp(id, r, w); });
    m_.mu.lock();
  }

  // ---- one warp of CTA `rank` of cluster `id`, as in the kernel: setup, its role, teardown ----
  void warp(int id, int rank, int warp_id) {
    if (setup(id, rank, warp_id)) {
      if (warp_id == 0)
        producer(id, rank);
      else if (warp_id == 1 && rank == 0)
        mma(id);
      else if (warp_id >= 2)
        epilogue(id, rank, warp_id);
      m_.cluster_sync((*clusters_[size_t(id)]).mid, "teardown");
    }
    std::lock_guard<std::mutex> lock(m_.mu);
    ++finished_[id];
  }

  bool setup(int id, int rank, int warp_id) {
    Cluster& cl = (*clusters_[size_t(id)]);
    if (warp_id == 0) {  // barrier init by one thread
      std::lock_guard<std::mutex> lock(m_.mu);
      Sm& s = sm(id, rank);
      for (int i = 0; i < c_.num_stages; ++i) {
        m_.init_locked(*s.full[size_t(i)], cl.cta[rank], ctas_);
        m_.init_locked(*s.mma_done[size_t(i)], cl.cta[rank], 1);
      }
      for (int a = 0; a < NUM_ACCUMULATORS; ++a) {
        m_.init_locked(*s.tmem_full[size_t(a)], cl.cta[rank], 1);
        m_.init_locked(*s.tmem_empty[size_t(a)], cl.cta[rank], NUM_EPILOGUE_WARPS * ctas_);
      }
      const int empty_count = c_.mutant == Mutant::ClcEmptyCountsCta0 ? READERS[0] : CLC_READERS;
      for (int i = 0; i < c_.clc_slots; ++i) {
        m_.init_locked(*s.clc_full[size_t(i)], cl.cta[rank], 1);
        m_.init_locked(*s.clc_empty[size_t(i)], cl.cta[rank], empty_count);
        s.response[size_t(i)] = {cl.cta[rank], -1, -1, READERS[rank], READERS[rank]};  // a free slot
        m_.init_locked(*s.task_full[size_t(i)], cl.cta[rank], 1);  // the drawer's release arrival
        m_.init_locked(*s.task_empty[size_t(i)], cl.cta[rank], CLC_READERS);
        s.task[size_t(i)] = {cl.cta[rank], -1, -1, READERS[rank], READERS[rank]};
      }
    }
    if (!m_.cluster_sync(cl.mid, "setup 1")) return false;
    if (warp_id == 1) {
      if (ctas_ == 1)
        m_.alloc_1cta(cl.cta[rank]);
      else if (!m_.alloc_2cta(cl.cta[rank]))
        return false;
      std::lock_guard<std::mutex> lock(m_.mu);
      for (AccContent& a : sm(id, rank).acc) a = {};  // this CTA's fresh TMEM
    }
    return m_.cluster_sync(cl.mid, "setup 2");
  }

  // try_cancel.multicast by CTA 0's producer: request `seq` of cluster `id`, into `slot` of both CTAs.
  void post_try_cancel_locked(int id, int seq, int slot) {
    Machine::Event e;
    e.fn = [this, id, seq, slot] {
      int unit = -1;  // the first cluster in launch order that has not started: canceled, its unit ours
      for (int u = 0; u < units_ && unit < 0; ++u)
        if (state_[size_t(u)] == State::Pending) {
          state_[size_t(u)] = State::Canceled;
          unit              = u;
          ++canceled_;
        }
      const Cluster& cl = (*clusters_[size_t(id)]);
      for (int r = 0; r < CLUSTER_SIZE; ++r) {  // the response lands in each CTA on its own
        Barrier& full = *sm(id, r).clc_full[size_t(slot)];
        Machine::Event land;
        land.fn = [this, id, r, seq, slot, unit, &full] {
          const Cluster& c = (*clusters_[size_t(id)]);
          Response& resp   = sm(id, r).response[size_t(slot)];
          if (resp.cta == c.cta[r] && resp.reads < resp.expected)
            return m_.fail_locked("a CLC response overwrote one that a reader of its CTA had not read");
          resp = {c.cta[r], seq, unit, 0, READERS[r]};
          m_.complete_tx_locked(full, RESPONSE_BYTES);
        };
        land.key         = &full;
        land.target      = &full;
        land.target_cta  = cl.cta[r];
        land.smem_cta[0] = cl.cta[r];
        land.what        = "a CLC response to CTA " + std::to_string(cl.cta[r]);
        m_.post_locked(std::move(land));
      }
    };
    e.smem_cta[0] = (*clusters_[size_t(id)]).cta[0];
    e.what        = "a try_cancel of cluster " + std::to_string(id);
    m_.post_locked(std::move(e));
  }

  // A reader's view of the CLC ring (each role keeps its own, as in the kernel).
  struct Reader {
    int slot = 0, full_phase = 0, seq = 0;
  };
  // Waits for and reads the next response; releases it on CTA 0; returns its unit, -1 (none left), or -2 (a
  // failure). An epilogue warp is one reader (its lanes read, then one lane arrives).
  int read_next(int id, int rank, Reader& rd) {
    Sm& s = sm(id, rank);
    if (c_.mutant != Mutant::ReadBeforeFull &&
        !m_.wait(*s.clc_full[size_t(rd.slot)], rd.full_phase, "clc_full_bar"))
      return -2;
    std::lock_guard<std::mutex> lock(m_.mu);
    const Cluster& cl = (*clusters_[size_t(id)]);
    Response& resp    = s.response[size_t(rd.slot)];
    if (resp.cta != cl.cta[rank] || resp.seq != rd.seq) {
      m_.fail_locked("a reader read a CLC slot that does not hold its cluster's response " +
                     std::to_string(rd.seq) + " (not landed yet, or another's)");
      return -2;
    }
    ++resp.reads;
    const int unit = resp.unit;
    if (unit < 0) (*clusters_[size_t(id)]).failure_read[rank] = true;
    // release.cluster on CTA 0's barrier (the mutant's count leaves CTA 1's readers out)
    if (!(c_.mutant == Mutant::ClcEmptyCountsCta0 && rank == 1))
      m_.arrive_on_locked(*sm(id, 0).clc_empty[size_t(rd.slot)], cl.cta[0]);
    if (++rd.slot == c_.clc_slots) {
      rd.slot = 0;
      rd.full_phase ^= 1;
    }
    ++rd.seq;
    return unit;
  }

  // ---- the work counter (v7e) ----
  struct Drawer {  // CTA 0's producer: the slot of its next draw, the parity of its empty barrier
    int slot = 0, empty_phase = 1, seq = 0;
  };
  // Draws the next index (or past the end: counts the cluster done, and the last one resets both counters),
  // waits until every reader has read the slot's previous piece, and writes the piece into both CTAs.
  bool draw(int id, Drawer& d) {
    std::vector<int>& ctr = *c_.counters;
    int index             = -1;
    {
      std::lock_guard<std::mutex> lock(m_.mu);
      const int i = launched_ + ctr[0]++;  // cluster c took piece c at its start: the counter hands out the rest
      if (i < int(order_.size())) {
        index = i;
      } else if (++ctr[1] == launched_ && c_.mutant != Mutant::CounterNotReset) {
        ctr[0] = 0;  // every cluster of the grid has drawn its last
        ctr[1] = 0;
      }
    }
    if (!m_.wait(*sm(id, 0).task_empty[size_t(d.slot)], d.empty_phase, "task_empty_bar")) return false;
    std::lock_guard<std::mutex> lock(m_.mu);
    const Cluster& cl = (*clusters_[size_t(id)]);
    for (int r = 0; r < CLUSTER_SIZE; ++r) {  // st.shared::cluster + arrive.release.cluster: one event each
      Barrier& full = *sm(id, r).task_full[size_t(d.slot)];
      Machine::Event land;
      land.fn = [this, id, r, seq = d.seq, slot = d.slot, index, &full] {
        const Cluster& c = (*clusters_[size_t(id)]);
        Response& t      = sm(id, r).task[size_t(slot)];
        if (t.cta == c.cta[r] && t.reads < t.expected)
          return m_.fail_locked("a drawn piece overwrote one that a reader of its CTA had not read");
        t = {c.cta[r], seq, index, 0, READERS[r]};
        m_.arrive_locked(full);
      };
      land.key         = &full;
      land.target      = &full;
      land.target_cta  = cl.cta[r];
      land.smem_cta[0] = cl.cta[r];
      land.what        = "a drawn piece to CTA " + std::to_string(cl.cta[r]);
      m_.post_locked(std::move(land));
    }
    ++d.seq;
    if (++d.slot == c_.clc_slots) {
      d.slot = 0;
      d.empty_phase ^= 1;
    }
    return true;
  }
  // A reader: waits for the next drawn piece and reads it; releases the slot on CTA 0. False: none left or a
  // failure. owner: the plan's worker of the piece (its fixup slot).
  bool read_task(int id, int rank, Reader& rd, StreamKPiece& piece, int& owner) {
    Sm& s = sm(id, rank);
    if (!m_.wait(*s.task_full[size_t(rd.slot)], rd.full_phase, "task_full_bar")) return false;
    std::lock_guard<std::mutex> lock(m_.mu);
    const Cluster& cl = (*clusters_[size_t(id)]);
    Response& t       = s.task[size_t(rd.slot)];
    if (t.cta != cl.cta[rank] || t.seq != rd.seq) {
      m_.fail_locked("a reader read a task slot that does not hold its cluster's piece " + std::to_string(rd.seq));
      return false;
    }
    ++t.reads;
    const int index = t.unit;
    m_.arrive_on_locked(*sm(id, 0).task_empty[size_t(rd.slot)], cl.cta[0]);
    if (++rd.slot == c_.clc_slots) {
      rd.slot = 0;
      rd.full_phase ^= 1;
    }
    ++rd.seq;
    if (index < 0) return false;
    piece = gemm::piece_of(order_[size_t(index)], k_tiles_);
    owner = order_[size_t(index)].worker;
    return true;
  }

  // The first piece of a role: the cluster's own unit, whole (CLC), the worker's first piece of the plan, or
  // (the counter) piece `id` of the order. owner: the plan's worker of the piece (stream-K: the cluster).
  bool first_piece(int id, int rank, StreamKWork& work, Reader& rd, StreamKPiece& piece, int& owner) {
    owner = id;
    if (c_.counter) {
      (void)rank, (void)rd;
      piece = gemm::piece_of(order_[size_t(id)], k_tiles_);
      owner = order_[size_t(id)].worker;
      return true;
    }
    if (c_.streamk) return work.next(piece);
    piece = whole(clusters_[size_t(id)]->unit);
    return true;
  }
  StreamKPiece whole(int unit) const {
    StreamKPiece p;
    p.unit = unit, p.k_begin = 0, p.k_end = k_tiles_, p.k_tiles = k_tiles_, p.role = StreamKPiece::Whole;
    return p;
  }
  // The next piece: the plan's, or the unit the next CLC response names (false: none left, or a failure).
  bool next_piece(int id, int rank, StreamKWork& work, Reader& rd, StreamKPiece& piece, int& owner) {
    if (c_.counter) return read_task(id, rank, rd, piece, owner);
    if (c_.streamk) return work.next(piece);
    const int unit = read_next(id, rank, rd);
    if (unit < 0) return false;
    piece = whole(unit);
    return true;
  }

  void producer(int id, int rank) {
    Cluster& cl = (*clusters_[size_t(id)]);
    Sm& s       = sm(id, rank);
    int stage = 0, empty_phase = 1;
    Reader rd;
    int request_slot = 0, clc_empty_phase = 1, requests = 0;
    auto request = [&]() -> bool {
      {
        std::lock_guard<std::mutex> lock(m_.mu);
        if (cl.failure_read[rank])
          m_.fail_locked("a try_cancel after the CTA read a failed response (undefined behaviour)");
        m_.arrive_expect_tx_locked(*s.clc_full[size_t(request_slot)], cl.cta[rank], RESPONSE_BYTES);
      }
      if (rank == 0) {
        if (c_.mutant != Mutant::NoClcEmptyWait &&
            !m_.wait(*s.clc_empty[size_t(request_slot)], clc_empty_phase, "clc_empty_bar"))
          return false;
        std::lock_guard<std::mutex> lock(m_.mu);
        post_try_cancel_locked(id, requests, request_slot);
      }
      ++requests;
      if (++request_slot == c_.clc_slots) {
        request_slot = 0;
        clc_empty_phase ^= 1;
      }
      return true;
    };
    StreamKWork work(plan_, id);
    StreamKPiece piece;
    int owner = id;
    Drawer drawer;
    const bool drawer_here = c_.counter && rank == 0;  // CTA 0's producer draws, one piece ahead of its reads
    bool more              = first_piece(id, rank, work, rd, piece, owner);
    if (!c_.streamk && !request()) return;
    while (more) {
      const int unit = piece.unit;
      {
        std::lock_guard<std::mutex> lock(m_.mu);
        if (rank == 0) {
          if (!c_.streamk) {
            if (done_by_[size_t(unit)] >= 0) return m_.fail_locked("unit " + std::to_string(unit) + " done twice");
            done_by_[size_t(unit)] = id;
          }
          for (int kt = piece.k_begin; kt < piece.k_end; ++kt) ++k_done_[std::make_pair(unit, kt)];
        }
      }
      const ScheduledTile t = tile_of(unit, rank);
      const int m0 = t.m * BLOCK_M, b_row0 = t.n * BLOCK_N + rank * B_HALF_ROWS;
      // this CTA's B bytes: its half (the pair) or all of B (alone; the mutant announces only half)
      const uint32_t b_bytes     = ctas_ == 1 ? 2 * B_BYTES : B_BYTES;
      const uint32_t b_announced = c_.mutant == Mutant::AloneHalfB ? B_BYTES : b_bytes;
      for (int k_tile = piece.k_begin; k_tile < piece.k_end; ++k_tile) {
        if (!m_.wait(*s.mma_done[size_t(stage)], empty_phase, "mma_done_bar")) return;
        const bool load_a = m0 < c_.m, load_b = b_row0 < c_.n;
        std::lock_guard<std::mutex> lock(m_.mu);
        Barrier& full = *sm(id, 0).full[size_t(stage)];
        m_.arrive_expect_tx_locked(full, cl.cta[0], (load_a ? A_BYTES : 0) + (load_b ? b_announced : 0));
        for (int op = 0; op < 2; ++op) {
          if (!(op == 0 ? load_a : load_b)) continue;
          const int st = stage;
          Machine::Event e;
          e.fn = [this, id, rank, op, st, unit, k_tile, b_bytes, &full] {
            StageContent& sc = sm(id, rank).stage[op][size_t(st)];
            if (sc.reads_pending > 0) return m_.fail_locked("TMA overwrote a stage an issued MMA has not read");
            if (!sc.read) return m_.fail_locked("TMA overwrote a stage whose last load was never read");
            sc = {unit, k_tile, false, 0};
            m_.complete_tx_locked(full, op == 0 ? A_BYTES : b_bytes);
          };
          e.key         = &full;
          e.target      = &full;
          e.target_cta  = cl.cta[0];
          e.smem_cta[0] = cl.cta[rank];
          e.what        = std::string("TMA ") + (op == 0 ? "A" : "B") + " of CTA " + std::to_string(cl.cta[rank]);
          m_.post_locked(std::move(e));
        }
        if (++stage == c_.num_stages) {
          stage       = 0;
          empty_phase ^= 1;
        }
      }
      if (c_.streamk) {
        // the counter: the next piece is drawn once this one's loads are issued (the kernel: after the first)
        if (drawer_here && !draw(id, drawer)) return;
        more = next_piece(id, rank, work, rd, piece, owner);
        continue;
      }
      const int next = read_next(id, rank, rd);
      if (next == -2) return;
      if (next < 0) {
        if (c_.mutant == Mutant::RequestAfterFail) request();
        break;
      }
      piece = whole(next);
      if (!request()) return;
    }
    for (int i = 0; i < c_.num_stages; ++i) {  // the tail: the last stages' releases have landed
      if (!m_.wait(*s.mma_done[size_t(stage)], empty_phase, "mma_done_bar (tail)")) return;
      if (++stage == c_.num_stages) {
        stage       = 0;
        empty_phase ^= 1;
      }
    }
  }

  void mma(int id) {
    const Cluster& cl = (*clusters_[size_t(id)]);
    int stage = 0, full_phase = 0, acc = 0, acc_empty_phase = 1;
    Reader rd;
    {
      std::lock_guard<std::mutex> lock(m_.mu);
      for (int r = 0; r < ctas_; ++r) m_.tmem_check_locked(cl.cta[r], "the MMA thread");
    }
    StreamKWork work(plan_, id);
    StreamKPiece piece;
    int owner = id;
    for (bool more = first_piece(id, 0, work, rd, piece, owner); more;
         more      = next_piece(id, 0, work, rd, piece, owner)) {
      const int unit = piece.unit, k_begin = piece.k_begin;
      if (!m_.wait(*sm(id, 0).tmem_empty[size_t(acc)], acc_empty_phase, "tmem_empty_bar")) return;
      const ScheduledTile tiles[CLUSTER_SIZE] = {tile_of(unit, 0),
                                                 ctas_ > 1 ? tile_of(unit, 1) : ScheduledTile{}};
      for (int k_tile = piece.k_begin; k_tile < piece.k_end; ++k_tile) {
        if (!m_.wait(*sm(id, 0).full[size_t(stage)], full_phase, "tma_full_bar")) return;
        std::lock_guard<std::mutex> lock(m_.mu);
        for (int r = 0; r < ctas_; ++r)
          for (int op = 0; op < 2; ++op) ++sm(id, r).stage[op][size_t(stage)].reads_pending;
        const int s = stage, a = acc;
        Machine::Event mma;  // the MMAs of this K tile execute
        mma.fn = [this, id, s, a, unit, k_begin, k_tile, tiles] {
          for (int r = 0; r < ctas_; ++r) {
            const bool need[2] = {tiles[r].valid, tiles[r].n * BLOCK_N + r * B_HALF_ROWS < c_.n};
            for (int op = 0; op < 2; ++op) {
              StageContent& sc = sm(id, r).stage[op][size_t(s)];
              --sc.reads_pending;
              if (need[op] && (sc.unit != unit || sc.k_tile != k_tile))
                return m_.fail_locked("an MMA read a stage that does not hold its unit and K step");
              sc.read = true;
            }
            AccContent& ac = sm(id, r).acc[size_t(a)];
            if (k_tile == k_begin) {  // the piece's first K step overwrites
              if (ac.reads != NUM_EPILOGUE_WARPS)
                return m_.fail_locked("an MMA overwrote an accumulator before the epilogue of a CTA read it");
              ac = {unit, k_begin, k_begin + 1, 0};
            } else {
              if (ac.unit != unit || ac.k_next != k_tile) return m_.fail_locked("MMA accumulated out of order");
              ++ac.k_next;
            }
          }
        };
        mma.smem_cta[0] = cl.cta[0];
        mma.smem_cta[1] = cl.cta[1];
        mma.what        = "an MMA";
        m_.post_fifo_locked(std::move(mma));
        m_.post_fifo_locked(commit(id, &Sm::mma_done, s, "mma_done_bar"));
        if (++stage == c_.num_stages) {
          stage      = 0;
          full_phase ^= 1;
        }
      }
      {
        std::lock_guard<std::mutex> lock(m_.mu);
        m_.post_fifo_locked(commit(id, &Sm::tmem_full, acc, "tmem_full_bar"));
      }
      if (++acc == NUM_ACCUMULATORS) {
        acc             = 0;
        acc_empty_phase ^= 1;
      }
    }
  }
  // tcgen05.commit multicast to both CTAs: once every earlier MMA has executed, one arrival in each CTA (a CTA
  // alone: the 1-CTA commit, one arrival in its own)
  Machine::Event commit(int id, std::vector<Barrier*> Sm::*bars, int i, const std::string& name) {
    Machine::Event e;
    e.fn = [this, id, bars, i] {
      for (int r = 0; r < ctas_; ++r) {
        Barrier& b = *(sm(id, r).*bars)[size_t(i)];
        Machine::Event arrival;
        arrival.fn         = [this, &b] { m_.arrive_locked(b); };
        arrival.key        = &b;
        arrival.target     = &b;
        arrival.target_cta = (*clusters_[size_t(id)]).cta[r];
        arrival.what       = "the commit to " + b.name;
        m_.post_locked(std::move(arrival));
      }
    };
    e.smem_cta[0] = (*clusters_[size_t(id)]).cta[0];
    e.what        = "a commit to " + name + "[" + std::to_string(i) + "]";
    return e;
  }

  // The fixup's slot of worker w's epilogue warp `quarter` in CTA `rank` (the kernel's slot_of).
  int slot_of(int w, int rank, int quarter) const { return (w * ctas_ + rank) * NUM_EPILOGUE_WARPS + quarter; }

  void epilogue(int id, int rank, int warp_id) {
    const Cluster& cl = (*clusters_[size_t(id)]);
    const int quarter = warp_id % 4;
    int acc = 0, acc_full_phase = 0;
    Reader rd;
    std::vector<int>& flags = c_.streamk ? *c_.flags : no_flags_;
    {
      std::lock_guard<std::mutex> lock(m_.mu);
      m_.tmem_check_locked(cl.cta[rank], "an epilogue warp");
    }
    StreamKWork work(plan_, id);
    StreamKPiece piece;
    int owner = id;  // the plan's worker of the piece: the fixup slot it writes, the partials it adds
    for (bool more = first_piece(id, rank, work, rd, piece, owner); more;
         more      = next_piece(id, rank, work, rd, piece, owner)) {
      const int unit = piece.unit;
      if (rank == c_.slow_epilogue_rank || id == c_.slow_worker)
        std::this_thread::sleep_for(std::chrono::microseconds(c_.slow_epilogue_us));
      if (!m_.wait(*sm(id, rank).tmem_full[size_t(acc)], acc_full_phase, "tmem_full_bar")) return;
      const ScheduledTile t = tile_of(unit, rank);
      const bool finisher   = c_.streamk && piece.role == StreamKPiece::Finisher && t.valid;
      const bool partial    = c_.streamk && piece.role == StreamKPiece::Partial && t.valid;
      const int last        = finisher ? plan_.last_worker(unit) : owner;
      // the finisher: its lanes acquire the later workers' flags, one each (a padding tile takes no part)
      for (int w = owner + 1; w <= last && c_.mutant != Mutant::FinisherNoWait; ++w) {
        const int f = slot_of(w, rank, quarter);
        if (!m_.wait_until(&flags[size_t(f)], [&flags, f] { return flags[size_t(f)] != 0; },
                           "the fixup flag of worker " + std::to_string(w)))
          return;
      }
      std::unique_lock<std::mutex> lock(m_.mu);
      AccContent& ac = sm(id, rank).acc[size_t(acc)];
      if (ac.unit != unit || ac.k_begin != piece.k_begin || ac.k_next != piece.k_end)
        return m_.fail_locked("an epilogue read an accumulator that does not hold its whole piece");
      ++ac.reads;
      if (partial) {
        const int f = slot_of(owner, rank, quarter);
        if (flags[size_t(f)] != 0)
          return m_.fail_locked("a fixup flag was still raised when its worker wrote the next partial "
                                "(not lowered by the last launch's finisher?)");
        // st.release.gpu after __syncwarp: the flag becomes visible to the finisher's SM at some later time,
        // and (release) never before the partial it publishes
        const auto raise = [this, &flags, f] {
          Machine::Event e;
          e.fn   = [&flags, f] { flags[size_t(f)] = 1; };
          e.key  = &flags[size_t(f)];
          e.what = "the store of a fixup flag";
          m_.post_locked(std::move(e));
        };
        if (c_.mutant == Mutant::FlagBeforeData) {  // the flag raised before the partial is written
          raise();
          lock.unlock();
          std::this_thread::sleep_for(std::chrono::microseconds(3000));
          lock.lock();
        }
        partial_[size_t(f)] = {unit, piece.k_begin, piece.k_end};
        if (c_.mutant != Mutant::FlagBeforeData) raise();
      } else {
        int k_next = piece.k_end;  // the finisher's own segment is [0, k_end): the later ones follow in K order
        for (int w = owner + 1; w <= last; ++w) {
          const int f       = slot_of(w, rank, quarter);
          const Partial& pt = partial_[size_t(f)];
          if (pt.unit != unit || pt.k_begin != plan_.segment_k_begin(unit, w) ||
              pt.k_end != plan_.segment_k_end(unit, w) || flags[size_t(f)] == 0)
            return m_.fail_locked("a finisher read a partial that is not its unit's segment of worker " +
                                  std::to_string(w) + " (not written yet, or stale)");
          if (pt.k_begin != k_next) return m_.fail_locked("a finisher added the partials out of K order");
          k_next = pt.k_end;
          if (c_.mutant != Mutant::FlagNotLowered) flags[size_t(f)] = 0;  // lowered for the next launch
        }
        if (finisher && k_next != piece.k_tiles)
          return m_.fail_locked("a finisher stored a unit whose K is not complete");
        if (gemm::tile_extent(c_.m, BLOCK_M, t.m) > 0) ++stored_[std::make_tuple(t.m, t.n, quarter)];
      }
      m_.thread_arrive_locked(*sm(id, 0).tmem_empty[size_t(acc)], cl.cta[0]);
      lock.unlock();
      if (++acc == NUM_ACCUMULATORS) {
        acc            = 0;
        acc_full_phase ^= 1;
      }
    }
  }

  std::string run_streamk() {
    {
      std::lock_guard<std::mutex> lock(m_.mu);
      for (int w = 0; w < launched_; ++w) launch_locked(w, w);  // every worker resident at once
    }
    m_.join_threads();
    const std::string error = m_.finish();
    if (!error.empty()) return error;
    for (int u = 0; u < units_; ++u)
      for (int kt = 0; kt < k_tiles_; ++kt) {
        const auto it = k_done_.find(std::make_pair(u, kt));
        if (it == k_done_.end() || it->second != 1)
          return "unit " + std::to_string(u) + " K tile " + std::to_string(kt) + " done " +
                 std::to_string(it == k_done_.end() ? 0 : it->second) + " times";
      }
    for (int tm = 0; tm <= tiles_m_; ++tm)
      for (int tn = 0; tn < tiles_n_; ++tn)
        for (int q = 0; q < 4; ++q) {
          const int expect = tm < tiles_m_ ? 1 : 0;
          const auto it    = stored_.find(std::make_tuple(tm, tn, q));
          const int got    = it == stored_.end() ? 0 : it->second;
          if (got != expect)
            return "tile (" + std::to_string(tm) + ", " + std::to_string(tn) + ") quarter " + std::to_string(q) +
                   " stored " + std::to_string(got) + " times";
        }
    if (c_.mutant != Mutant::FlagNotLowered)
      for (int f : *c_.flags)
        if (f != 0) return "a fixup flag is still raised after the launch";
    if (c_.counter && c_.mutant != Mutant::CounterNotReset && ((*c_.counters)[0] != 0 || (*c_.counters)[1] != 0))
      return "the work counters are not 0 after the launch";
    return "";
  }

  const Config c_;
  Machine m_;
  const int tiles_m_, tiles_n_, k_tiles_, ctas_, units_;
  std::vector<Sm> sms_;
  std::vector<State> state_;    // per cluster of the grid (= per unit); under m_.mu
  std::vector<int> done_by_;    // per unit: the cluster that did it; under m_.mu
  std::vector<int> finished_;   // per cluster: role threads done; under m_.mu
  std::vector<std::unique_ptr<Cluster>> clusters_;  // per cluster, made up front: stable, never resized
  std::map<std::tuple<int, int, int>, int> stored_;
  long canceled_ = 0;
  // stream-K
  StreamKPlan plan_;
  int launched_ = 0;
  std::vector<Partial> partial_;               // per slot: the partial its worker's warp left
  std::vector<int> no_flags_;                  // (CLC: no fixup)
  std::map<std::pair<int, int>, int> k_done_;  // (unit, K tile): times loaded (rank 0's producer)
  std::vector<gemm::StreamKTask> order_;       // the work counter: the pieces in draw order
};

std::string describe(const Config& c) {
  std::ostringstream s;
  s << "M=" << c.m << " N=" << c.n << " K=" << c.k << ", " << c.pairs << " SM pairs, " << c.num_stages
    << " stages, " << c.clc_slots << " CLC slots, seed " << c.seed << (c.lazy ? ", lazy" : "");
  return s.str();
}

}  // namespace

TEST_CASE("v7 Blackwell protocol: clusters take units through CLC, and every interleaving tried is safe",
          "[v7][protocol]") {
  // shapes: one unit; a padding tile (odd tiles_m) with N inside the first B half; fewer K tiles than stages;
  // more units than SM pairs by several times; a ragged everything
  const int shapes[][3] = {{1, 1, 8}, {129, 100, 72}, {1000, 600, 64}, {640, 1024, 256}, {300, 513, 520}};
  int runs = 0;
  long canceled = 0;
  for (const auto& sh : shapes)
    for (int pairs : {1, 2, 3})
      for (int stages : {2, 7})
        for (int slots : {2, 4}) {
          Config c{sh[0], sh[1], sh[2], pairs, stages, slots};
          c.seed               = protocol::run_seed(uint64_t(runs));
          c.lazy               = runs % 2 == 1;
          c.slow_epilogue_rank = runs % 3 - 1;  // none, CTA 0's, CTA 1's
          INFO(describe(c));
          Model model(c);
          const std::string error = model.run();
          INFO(error);
          CHECK(error.empty());
          canceled += model.canceled();
          ++runs;
        }
  std::printf("v7: %d runs, %ld clusters canceled and their units taken over, all passed\n", runs, canceled);
  CHECK(runs == 60);
  CHECK(canceled > 0);
}

TEST_CASE("v7 Blackwell protocol: responses land before their expect_tx, arrivals in flight",
          "[v7][protocol][exploration]") {
  int runs = 0;
  for (int pairs : {1, 3})
    for (int lazy = 0; lazy < 2; ++lazy) {
      Config c{1000, 1000, 128, pairs, 3, 2};
      c.seed                            = protocol::run_seed(2000 + uint64_t(runs));
      c.lazy                            = lazy == 1;
      c.model.expect_tx_in_flight       = true;
      c.model.thread_arrivals_in_flight = true;
      INFO(describe(c));
      const std::string error = Model(c).run();
      INFO(error);
      CHECK(error.empty());
      ++runs;
    }
}

TEST_CASE("v7 Blackwell protocol: the model catches broken CLC protocols", "[v7][protocol][negative]") {
  struct Case {
    Mutant mutant;
    const char* name;
  };
  for (const Case& m : {Case{Mutant::ClcEmptyCountsCta0, "clc_empty counts CTA 0's readers only"},
                        Case{Mutant::NoClcEmptyWait, "CTA 0's producer does not wait for clc_empty"},
                        Case{Mutant::RequestAfterFail, "a request after the failed response"},
                        Case{Mutant::ReadBeforeFull, "a response read without waiting for clc_full"}}) {
    int failures = 0;
    for (uint64_t run = 1; run <= 8; ++run) {
      Config c{1000, 1000, 64, 2, 2, 2, m.mutant, protocol::run_seed(1000 + run)};
      c.lazy               = run % 2 == 0;
      c.slow_epilogue_rank = 1;  // CTA 1's readers far behind
      c.slow_epilogue_us   = 3000;
      const std::string error = Model(c).run();
      if (std::getenv("V7_PROTOCOL_VERBOSE")) std::printf("%s run %d: %s\n", m.name, int(run), error.c_str());
      failures += error.empty() ? 0 : 1;
    }
    INFO(m.name << ": failed " << failures << " of 8 runs");
    CHECK(failures > 0);
  }
}

TEST_CASE("v7 Blackwell protocol: stream-K plans and their fixup flags, two launches each", "[v7][protocol][streamk]") {
  // shapes: one unit of many K tiles (split between every worker); a padding tile with N inside the first B
  // half; units that do not fill the workers; a ragged everything; fewer K tiles than a range's minimum
  const int shapes[][3] = {{256, 256, 64 * 24}, {129, 100, 72 * 8}, {1000, 600, 640}, {300, 513, 520}, {1, 1, 8}};
  int runs = 0, split = 0;
  for (const auto& sh : shapes)
    for (StreamKPolicy policy : {StreamKPolicy::StreamK, StreamKPolicy::Hybrid, StreamKPolicy::DataParallel})
      for (int workers : {1, 3, 5})
        for (int min_iters : {1, 4}) {
          std::vector<int> flags;  // the kernel's flags: zeroed once, then left 0 by every launch
          Config c{sh[0], sh[1], sh[2], workers, runs % 2 == 0 ? 2 : 7, 2};
          c.streamk     = true;
          c.policy      = policy;
          c.min_iters   = min_iters;
          c.flags       = &flags;
          c.slow_worker = runs % 4 - 1;  // none, or worker 0, 1 or 2 far behind
          for (int launch = 0; launch < 2; ++launch) {
            c.seed = protocol::run_seed(5000 + uint64_t(runs));
            c.lazy = (runs + launch) % 2 == 1;
            INFO(describe(c) << ", policy " << int(policy) << ", min_iters " << min_iters << ", launch " << launch);
            const gemm::StreamKPlan plan = gemm::make_streamk_plan(
                int(gemm::num_tiles(gemm::num_tiles(c.m, BLOCK_M), CLUSTER_SIZE) * gemm::num_tiles(c.n, BLOCK_N)),
                gemm::num_k_tiles(c.k, BLOCK_K), workers, policy, min_iters);
            for (int u = plan.dp_units; u < plan.units; ++u) split += plan.last_worker(u) > plan.first_worker(u);
            const std::string error = Model(c).run();
            INFO(error);
            CHECK(error.empty());
          }
          ++runs;
        }
  std::printf("v7 stream-K: %d configurations, two launches each, %d split units fixed up, all passed\n", runs,
              split);
  CHECK(runs == 90);
  CHECK(split > 0);
}

// A mutant of the stream-K fixup, run 6 times (two launches each) on one unit in three segments (worker 0
// finishes, workers 1 and 2 write partials; worker 1 slow, its epilogue late): how many runs the model failed.
// unit_ctas: the pair (2, a 256-row unit) or a CTA alone (1, 128 rows).
static int streamk_mutant_failures(Mutant mutant, const char* name, int unit_ctas, uint64_t seed0) {
  int failures = 0;
  for (uint64_t run = 1; run <= 6; ++run) {
    std::vector<int> flags;
    Config c{128 * unit_ctas, 256, 64 * 12, 3, 2, 2, mutant, protocol::run_seed(seed0 + run)};
    c.streamk          = true;
    c.unit_ctas        = unit_ctas;
    c.policy           = StreamKPolicy::StreamK;
    c.min_iters        = 1;
    c.flags            = &flags;
    c.slow_worker      = 1;
    c.slow_epilogue_us = 3000;
    c.lazy             = run % 2 == 0;
    std::string error;
    for (int launch = 0; launch < 2 && error.empty(); ++launch) error = Model(c).run();
    if (std::getenv("V7_PROTOCOL_VERBOSE")) std::printf("%s run %d: %s\n", name, int(run), error.c_str());
    failures += error.empty() ? 0 : 1;
  }
  return failures;
}

TEST_CASE("v7 Blackwell protocol: the model catches broken fixups", "[v7][protocol][streamk][negative]") {
  struct Case {
    Mutant mutant;
    const char* name;
  };
  for (const Case& m : {Case{Mutant::FinisherNoWait, "the finisher reads the partials without waiting for the flags"},
                        Case{Mutant::FlagBeforeData, "the flag raised before the partial is written"},
                        Case{Mutant::FlagNotLowered, "the finisher leaves the flags raised"}}) {
    const int failures = streamk_mutant_failures(m.mutant, m.name, 2, 6000);
    INFO(m.name << ": failed " << failures << " of 6 runs");
    CHECK(failures > 0);
  }
}

// The CTA alone (v8a; v8d where it takes it): the same plans on 1-CTA workers, each a 128 x 256 unit (M = 128
// MMA, cta_group::1): its own full barrier (count 1) with all of B's bytes, its own commits, its own TMEM, its
// epilogue's release counting 4.
TEST_CASE("v8 Blackwell protocol, a CTA alone: stream-K plans and their fixup flags, two launches each",
          "[v7][protocol][streamk][unit]") {
  const int shapes[][3] = {{128, 256, 64 * 24}, {129, 100, 72 * 8}, {1000, 600, 640}, {300, 513, 520}, {1, 1, 8}};
  int runs = 0, split = 0;
  for (const auto& sh : shapes)
    for (StreamKPolicy policy : {StreamKPolicy::StreamK, StreamKPolicy::Hybrid, StreamKPolicy::DataParallel})
      for (int workers : {1, 3, 5}) {
        std::vector<int> flags;
        Config c{sh[0], sh[1], sh[2], workers, runs % 2 == 0 ? 2 : 4, 2};
        c.streamk     = true;
        c.unit_ctas   = 1;
        c.policy      = policy;
        c.min_iters   = 1 + 3 * (runs % 2);
        c.flags       = &flags;
        c.slow_worker = runs % 4 - 1;
        for (int launch = 0; launch < 2; ++launch) {
          c.seed = protocol::run_seed(7000 + uint64_t(runs));
          c.lazy = (runs + launch) % 2 == 1;
          INFO(describe(c) << ", a CTA alone, policy " << int(policy) << ", launch " << launch);
          const gemm::StreamKPlan plan =
              gemm::make_streamk_plan(int(gemm::num_tiles(c.m, BLOCK_M) * gemm::num_tiles(c.n, BLOCK_N)),
                                      gemm::num_k_tiles(c.k, BLOCK_K), workers, policy, c.min_iters);
          for (int u = plan.dp_units; u < plan.units; ++u) split += plan.last_worker(u) > plan.first_worker(u);
          const std::string error = Model(c).run();
          INFO(error);
          CHECK(error.empty());
        }
        ++runs;
      }
  std::printf("v8 stream-K, a CTA alone: %d configurations, two launches each, %d split units fixed up, all "
              "passed\n",
              runs, split);
  CHECK(runs == 45);
  CHECK(split > 0);
}

TEST_CASE("v8 Blackwell protocol, a CTA alone: the model catches half of B announced, and a finisher that does "
          "not wait",
          "[v7][protocol][streamk][unit][negative]") {
  struct Case {
    Mutant mutant;
    const char* name;
  };
  for (const Case& m :
       {Case{Mutant::AloneHalfB, "the CTA alone announces the pair's half of B's bytes"},
        Case{Mutant::FinisherNoWait, "the finisher reads the partials without waiting for the flags"}}) {
    const int failures = streamk_mutant_failures(m.mutant, m.name, 1, 8000);
    INFO(m.name << ": failed " << failures << " of 6 runs");
    CHECK(failures > 0);
  }
}

TEST_CASE("v7 protocol, the work counter (v7e): pieces drawn at run time, two launches each",
          "[v7][protocol][counter]") {
  // shapes: one unit of many K tiles (split into more pieces than clusters); a padding tile; units that do
  // not fill the clusters; a ragged everything; one K tile
  const int shapes[][3] = {{256, 256, 64 * 24}, {129, 100, 72 * 8}, {1000, 600, 640}, {300, 513, 520}, {1, 1, 8}};
  int runs = 0, split = 0, drawn = 0;
  for (const auto& sh : shapes)
    for (StreamKPolicy policy : {StreamKPolicy::StreamK, StreamKPolicy::DataParallel})
      for (int pairs : {1, 2, 3}) {
        std::vector<int> flags, counters;  // zeroed once, then left 0 by every launch
        Config c{sh[0], sh[1], sh[2], pairs, runs % 2 == 0 ? 2 : 7, runs % 3 == 0 ? 2 : 4};
        c.streamk      = true;
        c.counter      = true;
        c.policy       = policy;
        c.min_iters    = 1;
        c.plan_workers = policy == StreamKPolicy::StreamK ? 2 * pairs + 1 : pairs;  // more ranges than clusters
        c.flags        = &flags;
        c.counters     = &counters;
        c.slow_worker  = runs % 4 - 1;  // none, or cluster 0, 1 or 2 far behind
        for (int launch = 0; launch < 2; ++launch) {
          c.seed = protocol::run_seed(7000 + uint64_t(runs));
          c.lazy = (runs + launch) % 2 == 1;
          INFO(describe(c) << ", policy " << int(policy) << ", " << c.plan_workers << " ranges, launch " << launch);
          const gemm::StreamKPlan plan = gemm::make_streamk_plan(
              int(gemm::num_tiles(gemm::num_tiles(c.m, BLOCK_M), CLUSTER_SIZE) * gemm::num_tiles(c.n, BLOCK_N)),
              gemm::num_k_tiles(c.k, BLOCK_K), c.plan_workers, policy, c.min_iters);
          for (int u = plan.dp_units; u < plan.units; ++u) split += plan.last_worker(u) > plan.first_worker(u);
          drawn += gemm::streamk_dynamic_order(plan, nullptr);
          const std::string error = Model(c).run();
          INFO(error);
          CHECK(error.empty());
        }
        ++runs;
      }
  std::printf("v7 work counter: %d configurations, two launches each, %d pieces drawn, %d split units, all passed\n",
              runs, drawn, split);
  CHECK(runs == 30);
  CHECK(split > 0);
}

TEST_CASE("v7 protocol, the work counter: the model catches a finisher drawn first and counters left up",
          "[v7][protocol][counter][negative]") {
  struct Case {
    Mutant mutant;
    const char* name;
  };
  for (const Case& m : {Case{Mutant::FinisherFirst, "the finishers ordered before the partials"},
                        Case{Mutant::CounterNotReset, "the last cluster does not reset the counters"}}) {
    int failures = 0;
    for (uint64_t run = 1; run <= 4; ++run) {
      std::vector<int> flags, counters;
      // one unit of 12 K tiles in 3 pieces, taken by 1 cluster (it must hang) or 2 (it may)
      Config c{256, 256, 64 * 12, int(1 + run % 2), 2, 2, m.mutant, protocol::run_seed(8000 + run)};
      c.streamk       = true;
      c.counter       = true;
      c.policy        = StreamKPolicy::StreamK;
      c.min_iters     = 1;
      c.plan_workers  = 3;
      c.flags         = &flags;
      c.counters      = &counters;
      c.lazy          = run % 2 == 0;
      c.model.hang_ms = 500;
      std::string error;
      for (int launch = 0; launch < 2 && error.empty(); ++launch) error = Model(c).run();
      if (std::getenv("V7_PROTOCOL_VERBOSE")) std::printf("%s run %d: %s\n", m.name, int(run), error.c_str());
      failures += error.empty() ? 0 : 1;
      if (m.mutant == Mutant::FinisherFirst && !error.empty()) CHECK(error.find("hang") != std::string::npos);
    }
    INFO(m.name << ": failed " << failures << " of 4 runs");
    CHECK(failures > 0);
  }
}
