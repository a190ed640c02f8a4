// protocol_model.h: the CPU model that the protocol tests (test_*_protocol.cpp) run the Blackwell kernels'
// synchronisation on: their mbarriers, the asynchronous units that signal them, the CTAs that start, exit and
// are followed by the next CTA on the same SM, cluster barriers and the 2-CTA TMEM allocation. No GPU here
// runs tcgen05; each test runs one kernel's roles, line for line, as host threads against this model.
//
// The model, from the PTX ISA ("mbarrier", "cp.async.bulk.tensor", "tcgen05.commit", "tcgen05.alloc",
// "barrier.cluster", "Memory Consistency Model"):
//  - an mbarrier counts pending arrivals and transaction bytes; its phase completes when both reach zero;
//    try_wait.parity(p) succeeds once the phase of parity p has completed (so parity 1 passes at first). The
//    tx-count may go below zero: TMA bytes may land before the arrive.expect_tx that announces them (a phase
//    cannot complete then, its pending arrival is still missing);
//  - a barrier lives at a fixed shared-memory offset of its SM. A CTA that exits leaves it there; the next
//  CTA
//    on that SM initialises the same storage, and an arrival still on its way from the old CTA lands on the
//    new CTA's barrier. Checked: an asynchronous event still in flight towards a CTA when it exits (optional,
//    on by default); an event landing after its CTA exited, or on a barrier its CTA has not initialised yet;
//  - asynchronous events (TMA bytes, commit arrivals, remote arrivals) land in any order, at any later time:
//    a delivery thread performs them at random; "lazy" delivery holds each until some role waits on its
//    barrier (as late as the hardware may; what nobody waits for stays in flight to the end). MMAs and the
//    commits behind them execute in issue order, from a FIFO;
//  - a cluster barrier (barrier.cluster.arrive.release / wait.acquire) completes when every thread of the
//    cluster has arrived; its release performs the arriving thread's earlier plain arrivals, when those are
//    modelled as in flight;
//  - tcgen05.alloc.cta_group::2 is an exchange: the even CTA writes into the odd CTA's shared memory and
//    arrives on a barrier there, then the odd CTA answers. The even CTA's write into a peer that has not
//    started yet is an error. A role that reads the TMEM address before its CTA's allocation is an error.
//  - no wait lasts 2 s (a hang; shorter where a test expects hangs).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace protocol {

inline uint64_t mix64(uint64_t x) {  // splitmix64's finaliser: spreads run indices over the seed space
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The seed of this process: GEMM_TEST_SEED if set, a fresh one otherwise; printed once. It fixes the model's
// random choices (delivery order, sleeps, launch skews); the host threads' timing still varies run to run.
inline uint64_t base_seed() {
  static const uint64_t seed = [] {
    uint64_t s = 0;
    if (const char* e = std::getenv("GEMM_TEST_SEED"))
      s = uint64_t(std::strtoull(e, nullptr, 10));
    else
      s = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) | 1;
    std::printf("protocol model: seed %llu (replay with GEMM_TEST_SEED=%llu)\n", (unsigned long long)s,
                (unsigned long long)s);
    std::fflush(stdout);
    return s;
  }();
  return seed;
}
// The seed of one run of a test: distinct per run index, all derived from the process's seed.
inline uint64_t run_seed(uint64_t run) {
  return mix64(base_seed() ^ mix64(run + 1));
}

struct Barrier {
  std::string name;  // e.g. "mma_done_bar[3] (SM 1)"
  int count = 1, pending = 1;
  long tx   = 0;
  int phase = 0;   // parity of the phase in progress
  int owner = -1;  // the CTA that initialised this storage last; -1: never initialised
};

struct Options {
  uint64_t seed = 1;
  bool lazy     = false;  // hold each event until a role waits on its barrier
  // an event still in flight towards a CTA when that CTA exits is an error
  bool exit_check = true;
  // an event that lands after its CTA exited is an error (otherwise it acts on whatever the storage holds
  // then: the next CTA's barrier, whose consequences the stage's own checks may catch)
  bool late_landing_check = true;
  // arrive.expect_tx as an event in flight, so that the bytes it announces may land first
  bool expect_tx_in_flight = false;
  // a thread's plain (relaxed) mbarrier.arrive as an event in flight ...
  bool thread_arrivals_in_flight = false;
  // ... that the thread's next barrier.cluster.arrive.release performs before it arrives there
  bool release_orders_arrivals = true;
  int hang_ms                  = 2000;  // a wait this long is a hang
};

class Machine {
 public:
  struct Event {
    std::function<void()> fn;
    const void* key = nullptr;   // lazy delivery: due once a role waits on this key (nullptr: at once)
    Barrier* target = nullptr;   // the barrier it arrives on, if any
    int target_cta  = -1;        // the CTA whose barrier `target` was when the event was issued
    int smem_cta[2] = {-1, -1};  // the CTAs whose shared memory (or TMEM) it writes or reads
    int thread      = -1;        // a thread's own arrival: performed at that thread's next release
    std::string what;
    std::function<bool()> ready;  // FIFO only: may it execute now
  };

  explicit Machine(const Options& o) : opt_(o), rng_(o.seed), jitter_rng_(o.seed * 31 + 7) {}
  ~Machine() {
    join_threads();
    stop_delivery();
  }
  Machine(const Machine&)            = delete;
  Machine& operator=(const Machine&) = delete;

  std::mutex mu;  // guards everything below and the models' own state; events run under it
  const Options& options() const { return opt_; }

  // ---- storage: a barrier at a fixed shared-memory offset of an SM, used by every CTA resident there ----
  Barrier& barrier(int sm, const std::string& name) {
    std::lock_guard<std::mutex> lock(mu);
    auto& slot = storage_[std::make_pair(sm, name)];
    if (!slot) {
      slot       = std::make_unique<Barrier>();
      slot->name = name + " (SM " + std::to_string(sm) + ")";
    }
    return *slot;
  }

  // ---- CTAs and clusters ----
  // A cluster of one CTA per entry of `sms` (rank = index), each of `threads` role threads; CTA r starts
  // `skew_us[r]` after the launch. Returns the cluster's id; cta(cluster, rank) gives its CTAs' ids, which
  // grow with every launch.
  int launch_cluster(const std::vector<int>& sms, int threads, const std::vector<int>& skew_us) {
    std::lock_guard<std::mutex> lock(mu);
    Cluster cl;
    cl.threads = threads * int(sms.size());
    for (size_t r = 0; r < sms.size(); ++r) {
      Cta c;
      c.sm      = sms[r];
      c.rank    = int(r);
      c.cluster = int(clusters_.size());
      c.threads = threads;
      c.skew_us = r < skew_us.size() ? skew_us[r] : 0;
      cl.ctas.push_back(int(ctas_.size()));
      ctas_.push_back(c);
    }
    clusters_.push_back(cl);
    return int(clusters_.size()) - 1;
  }
  int cta(int cluster, int rank) {
    std::lock_guard<std::mutex> lock(mu);
    return clusters_[size_t(cluster)].ctas[size_t(rank)];
  }
  // One role thread of CTA `cta`: it starts after the CTA's launch skew; the CTA exits with its last thread.
  void spawn(int cta, std::function<void()> body) {
    int skew = 0, id = 0;
    {
      std::lock_guard<std::mutex> lock(mu);
      skew = ctas_[size_t(cta)].skew_us;
      id   = next_thread_++;
    }
    threads_.emplace_back([this, cta, id, skew, body = std::move(body)] {
      self_thread() = id;
      if (skew > 0) std::this_thread::sleep_for(std::chrono::microseconds(skew));
      {
        std::lock_guard<std::mutex> lock(mu);
        ctas_[size_t(cta)].started = true;
        cv_.notify_all();
      }
      body();
      std::lock_guard<std::mutex> lock(mu);
      Cta& c = ctas_[size_t(cta)];
      if (++c.finished == c.threads) exit_locked(cta);
    });
  }
  void join_threads() {
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

  // ---- the delivery of asynchronous events ----
  void start_delivery() {
    delivery_ = std::thread([this] { deliver(); });
  }
  // After the last CTA exited: stops the delivery thread, lets everything still in flight land (after its
  // CTA's exit: the landing checks apply), and returns "" or the first failure.
  std::string finish() {
    stop_delivery();
    std::lock_guard<std::mutex> lock(mu);
    while (error_.empty()) {
      std::vector<size_t> due;
      for (size_t i = 0; i < pool_.size(); ++i) due.push_back(i);
      if (!fifo_.empty() && (!fifo_.front().ready || fifo_.front().ready())) due.push_back(pool_.size());
      if (due.empty()) break;
      take_and_perform_locked(due[std::uniform_int_distribution<size_t>(0, due.size() - 1)(rng_)]);
    }
    return error_;
  }

  // ---- mbarrier operations (callers hold mu) ----
  void init_locked(Barrier& b, int cta, int count) {
    b.count = b.pending = count;
    b.tx                = 0;
    b.phase             = 0;
    b.owner             = cta;
  }
  void arrive_locked(Barrier& b, long expect_tx = 0) {
    if (b.pending == 0) return fail_locked("arrival on " + b.name + " with no arrival pending");
    b.tx += expect_tx;
    --b.pending;
    complete_if_done_locked(b);
  }
  void complete_tx_locked(Barrier& b, long bytes) {
    b.tx -= bytes;
    if (b.tx < 0) {
      ++negative_tx_;
      if (b.pending == 0)
        return fail_locked("more TMA bytes landed on " + b.name + " than its phase's arrivals announced");
    }
    complete_if_done_locked(b);
  }
  // A synchronous arrival of a role of CTA `cta` on a barrier of CTA `dest`.
  void arrive_on_locked(Barrier& b, int dest, long expect_tx = 0) {
    if (!owner_ok_locked(b, dest, "an arrival")) return;
    arrive_locked(b, expect_tx);
  }
  // mbarrier.arrive.expect_tx: at once, or (expect_tx_in_flight) as an event that may land after its bytes
  void arrive_expect_tx_locked(Barrier& b, int dest, long bytes) {
    if (!opt_.expect_tx_in_flight) return arrive_on_locked(b, dest, bytes);
    Event e;
    e.fn         = [this, &b, bytes] { arrive_locked(b, bytes); };
    e.key        = &b;
    e.target     = &b;
    e.target_cta = dest;
    e.what       = "arrive.expect_tx on " + b.name;
    post_locked(std::move(e));
  }
  // A thread's plain mbarrier.arrive (relaxed, possibly on a peer CTA's barrier): at once, or
  // (thread_arrivals_in_flight) in flight until it lands or the thread's next release performs it.
  void thread_arrive_locked(Barrier& b, int dest) {
    if (!opt_.thread_arrivals_in_flight) return arrive_on_locked(b, dest);
    Event e;
    e.fn         = [this, &b] { arrive_locked(b); };
    e.key        = &b;
    e.target     = &b;
    e.target_cta = dest;
    e.thread     = self_thread();
    e.what       = "an epilogue's arrival on " + b.name;
    post_locked(std::move(e));
  }
  void post_locked(Event e) {
    pool_.push_back(std::move(e));
    cv_.notify_all();
  }
  void post_fifo_locked(Event e) {
    fifo_.push_back(std::move(e));
    cv_.notify_all();
  }

  // ---- waiting (callers do not hold mu) ----
  // Blocks until done() (checked under mu); false on a failure anywhere or a hang. `key`: what a lazy event
  // waits for (a barrier, a wait::ld).
  template <typename Done>
  bool wait_until(const void* key, Done done, const std::string& what) {
    jitter();
    std::unique_lock<std::mutex> lock(mu);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(opt_.hang_ms);
    ++waiting_[key];
    cv_.notify_all();  // a lazy delivery may now be due
    while (error_.empty() && !done()) {
      if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && !done()) {
        fail_locked("hang: waiting on " + what);
        break;
      }
    }
    --waiting_[key];
    return error_.empty();
  }
  bool wait(Barrier& b, int parity, const std::string& what = "") {
    return wait_until(
        &b, [&b, parity] { return b.phase != parity; },
        (what.empty() ? b.name : what + " " + b.name) + " parity " + std::to_string(parity));
  }

  // barrier.cluster.arrive.release + barrier.cluster.wait.acquire by one role thread (also __syncthreads()
  // for a cluster of one CTA). The release performs this thread's arrivals still in flight.
  bool cluster_sync(int cluster, const char* what) {
    jitter();
    std::unique_lock<std::mutex> lock(mu);
    if (opt_.release_orders_arrivals) {
      const int me = self_thread();
      for (size_t i = 0; i < pool_.size() && error_.empty();) {
        if (pool_[i].thread == me)
          take_and_perform_locked(i);
        else
          ++i;
      }
    }
    Cluster& cl    = clusters_[size_t(cluster)];
    const long gen = cl.generation;
    if (++cl.arrived == cl.threads) {
      cl.arrived = 0;
      ++cl.generation;
      cv_.notify_all();
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(opt_.hang_ms);
    while (error_.empty() && cl.generation == gen) {
      if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && cl.generation == gen) {
        fail_locked(std::string("hang: cluster barrier (") + what + ")");
        break;
      }
    }
    return error_.empty();
  }

  // ---- TMEM allocation (callers do not hold mu) ----
  // tcgen05.alloc.cta_group::1: this CTA alone.
  void alloc_1cta(int cta) {
    std::lock_guard<std::mutex> lock(mu);
    ctas_[size_t(cta)].tmem_allocated = true;
  }
  // tcgen05.alloc.cta_group::2 by warp 1 of `cta` and of its peer: the even CTA writes into the odd CTA's
  // shared memory and arrives on a barrier there; the odd CTA answers the same way.
  bool alloc_2cta(int cta) {
    int peer  = -1;
    bool even = false;
    {
      std::lock_guard<std::mutex> lock(mu);
      const Cta& c = ctas_[size_t(cta)];
      peer         = clusters_[size_t(c.cluster)].ctas[size_t(c.rank ^ 1)];
      even         = c.rank % 2 == 0;
      if (even) send_alloc_locked(cta, peer);
    }
    if (!wait_until(
            &ctas_[size_t(cta)].alloc_inbox, [this, cta] { return ctas_[size_t(cta)].alloc_inbox; },
            "the peer's half of tcgen05.alloc.cta_group::2"))
      return false;
    std::lock_guard<std::mutex> lock(mu);
    if (!even) send_alloc_locked(cta, peer);
    ctas_[size_t(cta)].tmem_allocated = true;
    return error_.empty();
  }
  // A role uses the TMEM of CTA `cta` (reads the address in tmem_slot, or issues MMAs into it): the
  // allocation must have completed there.
  void tmem_check_locked(int cta, const char* who) {
    if (!ctas_[size_t(cta)].tmem_allocated)
      fail_locked(std::string(who) + " used the TMEM of CTA " + std::to_string(cta) +
                  " before its allocation completed");
  }

  // ---- failures, sleeps, statistics ----
  void fail_locked(const std::string& why) {
    if (error_.empty()) error_ = why;
    cv_.notify_all();
  }
  bool ok_locked() const { return error_.empty(); }
  // A random pause of a role (0-40 us, one call in four), so that each run explores another interleaving.
  void jitter() {
    int us = 0;
    {
      std::lock_guard<std::mutex> lock(jitter_mu_);
      if (std::uniform_int_distribution<int>(0, 3)(jitter_rng_) == 0)
        us = std::uniform_int_distribution<int>(0, 40)(jitter_rng_);
    }
    if (us) std::this_thread::sleep_for(std::chrono::microseconds(us));
  }
  long negative_tx_count() {
    std::lock_guard<std::mutex> lock(mu);
    return negative_tx_;
  }
  long late_landings() {
    std::lock_guard<std::mutex> lock(mu);
    return late_landings_;
  }

 private:
  struct Cta {
    int sm = 0, rank = 0, cluster = 0, threads = 0, skew_us = 0, finished = 0;
    bool started = false, exited = false;
    bool alloc_inbox = false, tmem_allocated = false;
  };
  struct Cluster {
    int threads = 0, arrived = 0;
    long generation = 0;
    std::vector<int> ctas;
  };

  static int& self_thread() {
    static thread_local int id = -1;
    return id;
  }

  void complete_if_done_locked(Barrier& b) {
    if (b.pending == 0 && b.tx == 0) {
      b.phase ^= 1;
      b.pending = b.count;
      cv_.notify_all();
    }
  }
  // `dest` must be the CTA that initialised `b` last, and still be running
  bool owner_ok_locked(const Barrier& b, int dest, const std::string& what) {
    if (dest < 0) return true;
    if (b.owner < dest) {
      fail_locked(what + " reached " + b.name + " before CTA " + std::to_string(dest) + " initialised it");
      return false;
    }
    return true;
  }
  void send_alloc_locked(int from, int to) {
    if (!ctas_[size_t(to)].started)
      return fail_locked("tcgen05.alloc.cta_group::2 of CTA " + std::to_string(from) +
                         " wrote into the shared memory of CTA " + std::to_string(to) +
                         ", which has not started yet (no cluster barrier before the allocation)");
    ctas_[size_t(to)].alloc_inbox = true;
    cv_.notify_all();
  }
  void exit_locked(int cta) {
    Cta& c   = ctas_[size_t(cta)];
    c.exited = true;
    cv_.notify_all();
    if (!opt_.exit_check || !error_.empty()) return;
    auto touches = [cta](const Event& e) {
      return e.target_cta == cta || e.smem_cta[0] == cta || e.smem_cta[1] == cta;
    };
    for (const auto* q : {&pool_, &fifo_})
      for (const Event& e : *q)
        if (touches(e))
          return fail_locked("an asynchronous event (" + e.what + ") is still in flight when CTA " +
                             std::to_string(cta) + " exits");
  }
  // Performs pool_[i] (or the FIFO's front, for i == pool_.size()) with the landing checks.
  void take_and_perform_locked(size_t i) {
    Event e;
    if (i < pool_.size()) {
      e = std::move(pool_[i]);
      pool_.erase(pool_.begin() + long(i));
    } else {
      e = std::move(fifo_.front());
      fifo_.erase(fifo_.begin());
    }
    bool late = false;
    std::string where;
    for (int cta : {e.target_cta, e.smem_cta[0], e.smem_cta[1]})
      if (cta >= 0 && ctas_[size_t(cta)].exited && !late) {
        late  = true;
        where = "CTA " + std::to_string(cta) + " exited";
      }
    if (e.target && e.target_cta >= 0 && e.target->owner > e.target_cta) {
      late  = true;
      where = "CTA " + std::to_string(e.target_cta) + " exited, on " + e.target->name +
              " as re-initialised by CTA " + std::to_string(e.target->owner);
    }
    if (late) {
      ++late_landings_;
      if (opt_.late_landing_check) return fail_locked(e.what + " landed after " + where);
    } else if (e.target && !owner_ok_locked(*e.target, e.target_cta, e.what)) {
      return;
    }
    e.fn();
    cv_.notify_all();  // a role may wait for what it changed (not only for a barrier's phase)
  }
  void deliver() {
    std::unique_lock<std::mutex> lock(mu);
    while (true) {
      if (!error_.empty() || stop_) return;
      std::vector<size_t> due;  // events that may be delivered now; pool_.size() stands for the FIFO
      for (size_t i = 0; i < pool_.size(); ++i)
        if (!opt_.lazy || !pool_[i].key || waiting_[pool_[i].key] > 0) due.push_back(i);
      if (!fifo_.empty() && (!fifo_.front().ready || fifo_.front().ready())) due.push_back(pool_.size());
      if (due.empty()) {
        cv_.wait_for(lock, std::chrono::milliseconds(1));
        continue;
      }
      take_and_perform_locked(due[std::uniform_int_distribution<size_t>(0, due.size() - 1)(rng_)]);
      if (std::uniform_int_distribution<int>(0, 3)(rng_) == 0) {
        lock.unlock();
        std::this_thread::sleep_for(std::chrono::microseconds(20));
        lock.lock();
      }
    }
  }
  void stop_delivery() {
    {
      std::lock_guard<std::mutex> lock(mu);
      stop_ = true;
      cv_.notify_all();
    }
    if (delivery_.joinable()) delivery_.join();
  }

  const Options opt_;
  std::mt19937_64 rng_;         // the delivery order (under mu)
  std::mt19937_64 jitter_rng_;  // the roles' sleeps (under jitter_mu_)
  std::mutex jitter_mu_;
  std::condition_variable cv_;
  std::map<std::pair<int, std::string>, std::unique_ptr<Barrier>> storage_;
  std::deque<Cta> ctas_;  // a deque: references stay valid as CTAs are launched
  std::deque<Cluster> clusters_;
  std::vector<Event> pool_, fifo_;
  std::map<const void*, int> waiting_;  // roles blocked on each key now
  std::vector<std::thread> threads_;
  std::thread delivery_;
  int next_thread_    = 0;
  bool stop_          = false;
  long negative_tx_   = 0;
  long late_landings_ = 0;
  std::string error_;
};

}  // namespace protocol
