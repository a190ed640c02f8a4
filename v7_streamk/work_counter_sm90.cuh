// work_counter_sm90.cuh: v7e's work on Hopper, drawn at run time from a global counter. Included by
// matmul_v7_sm90.cu, whose kernel takes its pieces from here: the stream-K plan's, fixed per worker
// (v7a-v7d, DYNAMIC false), or drawn (v7e, DYNAMIC true). It is a file of its own because it is a second idea
// beside the stage's (stream-K's static plans), and one that v8 does not keep: matmul_v7_sm90.cu reads as v6
// plus stream-K, and the diff to v8 does not show the counter leaving. (Blackwell's handout, Cluster Launch
// Control, is clc_handout.cuh.)
//
// The same pieces as v7d's, taken at run time from a global atomic counter instead of walked from a fixed
// per-worker list, so that a cluster on a faster SM can take more of them. The plan is v7d's, its stream-K
// ranges cut DYNAMIC_SPLIT (2) times shorter (more pieces than clusters), in one global order
// (common/streamk.h, streamk_dynamic_order): every partial, then the whole units, then the finishers, so a
// finisher never waits for a piece that no running cluster holds (the proof: streamk.h; the CPU model hangs
// on the finisher-first order). Cluster c starts with piece c; then CTA 0's producer thread draws
// (atom.add.relaxed.gpu) once it has issued the first load of its current piece, and writes the piece into
// the same slot of a 4-slot task ring in both CTAs (st.shared::cluster, then mbarrier.arrive.release.cluster
// on each CTA's task_full_bar); every role of both CTAs reads every piece (both CTAs must work on the same
// one) and releases the slot on CTA 0's task_empty_bar. A cluster that draws past the end counts itself on a
// second counter (atom.add.acq_rel.gpu); the one that completes the count lowers both to 0. Every cluster
// draws past the end exactly once and draws nothing after it, so that cluster is the last to touch either
// counter; its acquire reads from the release sequence of every earlier "done" increment, each of which
// follows its cluster's last draw, so every draw happens before the reset. The next launch finds both at 0:
// no host work between launches. The grid is sized to the clusters that fit at once (persistent): the first
// pieces are held from the start by clusters that must all be running, and every cluster launched draws at
// least once, so one that starts after the work is gone costs its launch and setup for nothing.
// What Cluster Launch Control (the Blackwell file) adds over a counter: it cancels clusters that have not
// been launched yet, so its grid is one cluster per unit, sized by the problem alone (no occupancy query),
// and a canceled cluster costs nothing; there is no state in global memory to leave reset for the next
// launch (nor to keep two launches in flight on two streams from sharing); and the answer is written by the
// hardware into both CTAs' shared memory with a complete_tx, where the counter costs an atomic round trip to
// L2 per piece and a broadcast in software (remote stores and arrivals).
// Measured slower than v7d at every shape tried (docs/performance/dynamic-scheduling.md): the finer pieces
// cost more in fixups than the balance wins back.
//
// PTX ISA sections: "atom" (.relaxed.gpu, .acq_rel.gpu), "st" (.shared::cluster), "mbarrier"
// (arrive.release.cluster, the wait's acquire at cluster scope), "Memory Consistency Model" (release
// sequences).
#pragma once

// DYNAMIC_SPLIT: v7e cuts the picking rule's stream-K ranges this many times finer, so that a fast cluster can
// draw more pieces than a slow one (docs/performance/dynamic-scheduling.md); -DGEMM_V7_SM90_DYNAMIC_SPLIT=1 or
// 4 builds the others that were measured.
#ifndef GEMM_V7_SM90_DYNAMIC_SPLIT
#define GEMM_V7_SM90_DYNAMIC_SPLIT 2
#endif

// (Needs common/streamk.h and common/persistent_grid.h, included by the file that includes this one, before
// its namespace, and the stage's CLUSTER_SIZE and NUM_CONSUMERS.)
namespace work_counter {

constexpr int DYNAMIC_SPLIT = GEMM_V7_SM90_DYNAMIC_SPLIT;  // ranges this many times shorter than v7d's
constexpr int TASK_SLOTS    = 4;                           // pieces drawn and not yet read by every role
// the readers of each drawn piece, in both CTAs: the producer thread and each consumer warpgroup
constexpr uint32_t TASK_READERS = CLUSTER_SIZE * (1 + NUM_CONSUMERS);
static_assert(DYNAMIC_SPLIT >= 1 && TASK_SLOTS >= 2, "v7e: the drawing thread works one piece ahead");

// The pieces in their dynamic order (common/streamk.h), and two counters, 0 between launches: counters[0]
// the next piece to draw, counters[1] the clusters that drew past the end. (A kernel parameter.)
struct DynamicWork {
  const StreamKTask* tasks = nullptr;
  int count                = 0;
  uint32_t* counters       = nullptr;
};

#if defined(GEMM_HAS_WGMMA)  // the device side: where the kernel has a body
// The task ring: the kernel's three arrays in its static shared memory (declared there, as its other
// barriers).
struct Ring {
  StreamKTask* task;   // [TASK_SLOTS] the pieces drawn for this cluster, in draw order
  uint64_t* full_bar;  // [TASK_SLOTS] the piece in slot i has been written into this CTA
  uint64_t* empty_bar;  // [TASK_SLOTS] (CTA 0's only) every reader of both CTAs has read it

  // by the setup's one thread, with the kernel's other barriers
  __device__ __forceinline__ void init() const {
    for (int i = 0; i < TASK_SLOTS; ++i) {
      ptx::mbarrier_init(&full_bar[i], 1);              // CTA 0's drawer, once per piece written
      ptx::mbarrier_init(&empty_bar[i], TASK_READERS);  // every reader of both CTAs (CTA 0's)
    }
  }
};

// The pieces of one role of v7a-v7d: the plan's, fixed before the launch (`owner`, the worker whose fixup
// slot a piece uses, is the role's own worker). The producer's go on from `rest`: the kernel's StreamKWork,
// past the first piece where the kernel took that one early (EARLY_FIRST).
template <bool DYNAMIC>
struct Pieces {
  StreamKWork work;
  __device__ __forceinline__ Pieces(const StreamKPlan& plan, int worker, const DynamicWork&, const Ring&)
      : work(plan, worker) {}
  __device__ __forceinline__ Pieces(const StreamKPlan&, int, const DynamicWork&, const Ring&,
                                    const StreamKWork& rest)
      : work(rest) {}
  __device__ __forceinline__ bool take(StreamKPiece& piece) { return work.next(piece); }
  __device__ __forceinline__ bool read(StreamKPiece& piece, int&) { return work.next(piece); }
  __device__ __forceinline__ void release(bool) {}
  __device__ __forceinline__ void draw() {}
};

// The pieces of one role of v7e: the cluster's own piece first (`worker` of the order, read from global
// memory by every role), then the drawn ones from the task ring. Each role keeps its own slot and parity.
template <>
struct Pieces<true> {
  const StreamKPlan& plan;
  const DynamicWork& dyn;
  const Ring ring;
  const int worker;
  const int clusters    = int(gridDim.x) / CLUSTER_SIZE;
  bool first_task       = true;  // the cluster's own piece (`worker` of the order) comes first, undrawn
  int task_slot         = 0;     // the ring slot this role reads next, and its parity
  uint32_t task_phase   = 0;
  int draw_slot         = 0;  // (CTA 0's producer thread, the drawer) the slot of the next piece drawn
  uint32_t draw_empty_phase = 1;  // parity of ring.empty_bar[draw_slot]: 1 passes on the first lap

  __device__ __forceinline__ Pieces(const StreamKPlan& plan_, int worker_, const DynamicWork& dyn_,
                                    const Ring& ring_)
      : plan(plan_), dyn(dyn_), ring(ring_), worker(worker_) {}
  // the producer's: as every role's (the plan's StreamKWork is not v7e's pieces: none is taken early)
  __device__ __forceinline__ Pieces(const StreamKPlan& plan_, int worker_, const DynamicWork& dyn_,
                                    const Ring& ring_, const StreamKWork&)
      : Pieces(plan_, worker_, dyn_, ring_) {}

  // read: wait until the next piece is in this CTA's slot (acquire at cluster scope: CTA 1's was written
  // from CTA 0) and read it; false at "none". owner: the plan's worker of the piece, its slot in the fixup.
  __device__ __forceinline__ bool read(StreamKPiece& piece, int& owner) {
    if (first_task) {
      const StreamKTask t = dyn.tasks[worker];
      piece               = piece_of(t, plan.iters);
      owner               = t.worker;
      return true;
    }
    ptx::mbarrier_wait</*CLUSTER_SCOPE=*/true>(&ring.full_bar[task_slot], task_phase, "task_full_bar");
    const StreamKTask t = ring.task[task_slot];
    piece               = piece_of(t, plan.iters);
    owner               = t.worker;
    return t.unit >= 0;
  }
  // release: once every thread of the role has read the slot, one (`arrives`) releases it on CTA 0.
  __device__ __forceinline__ void release(bool arrives) {
    if (first_task) {
      first_task = false;
      return;
    }
    if (arrives) ptx::mbarrier_arrive_release_cluster(ptx::mapa_shared_cluster(&ring.empty_bar[task_slot], 0));
    if (++task_slot == TASK_SLOTS) {
      task_slot = 0;
      task_phase ^= 1;
    }
  }
  // take: read and release at once, for a role of one thread (the producer)
  __device__ __forceinline__ bool take(StreamKPiece& piece) {
    int owner       = worker;
    const bool more = read(piece, owner);
    release(true);
    return more;
  }
  // draw (CTA 0's producer thread): take the next piece from the counter (or "none", past the end: then count
  // this cluster done, and the last cluster of the grid lowers both counters; the acq_rel increments order
  // every cluster's draws before that reset), wait until every reader has read the slot's previous piece,
  // and write the piece into the slot in both CTAs.
  __device__ __forceinline__ void draw() {
    const int i = clusters + int(ptx::atom_add_relaxed_gpu(&dyn.counters[0], 1));
    StreamKTask t{-1, 0, 0, 0};
    if (i < dyn.count) {
      t = dyn.tasks[i];
    } else if (ptx::atom_add_acq_rel_gpu(&dyn.counters[1], 1) == uint32_t(clusters - 1)) {
      dyn.counters[0] = 0;  // every cluster has drawn its last: nobody touches them again in this launch
      dyn.counters[1] = 0;
    }
    ptx::mbarrier_wait</*CLUSTER_SCOPE=*/true>(&ring.empty_bar[draw_slot], draw_empty_phase, "task_empty_bar");
    for (int peer = 0; peer < CLUSTER_SIZE; ++peer) {
      ptx::st_shared_cluster_v4(ptx::mapa_shared_cluster(&ring.task[draw_slot], uint32_t(peer)), t.unit,
                                t.k_begin, t.k_end, t.worker);
      ptx::mbarrier_arrive_release_cluster(ptx::mapa_shared_cluster(&ring.full_bar[draw_slot], uint32_t(peer)));
    }
    if (++draw_slot == TASK_SLOTS) {
      draw_slot = 0;
      draw_empty_phase ^= 1;
    }
  }
};
#endif  // GEMM_HAS_WGMMA

// ---- host side ----
// v7e's plan: the picking rule's, its stream-K ranges DYNAMIC_SPLIT times shorter (more pieces than clusters).
inline void split_finer(StreamKPolicy policy, int max_clusters, int& workers, int& min_iters) {
  if (policy != StreamKPolicy::DataParallel) {
    workers   = DYNAMIC_SPLIT * max_clusters;
    min_iters = min_iters / DYNAMIC_SPLIT > 1 ? min_iters / DYNAMIC_SPLIT : 1;
  }
}

// v7e's work, allocated once per prepared launch: the pieces in their dynamic order, uploaded once, and the
// two counters, zeroed once. The kernel's last cluster to draw past the end lowers them again (see draw), so
// launches back to back need nothing from the host in between, as the fixup's flags.
struct CounterMemory {
  DynamicWork work;
  explicit CounterMemory(const std::vector<StreamKTask>& tasks) {
    StreamKTask* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, tasks.size() * sizeof(StreamKTask)));
    CUDA_CHECK(cudaMemcpy(d, tasks.data(), tasks.size() * sizeof(StreamKTask), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMalloc(&work.counters, 2 * sizeof(uint32_t)));
    CUDA_CHECK(cudaMemset(work.counters, 0, 2 * sizeof(uint32_t)));
    work.tasks = d;
    work.count = int(tasks.size());
  }
  ~CounterMemory() {
    cudaFree(const_cast<StreamKTask*>(work.tasks));
    cudaFree(work.counters);
  }
  CounterMemory(const CounterMemory&)            = delete;
  CounterMemory& operator=(const CounterMemory&) = delete;
};

// What a launch holds (and the kernel reads): with `dynamic`, the plan's pieces in the dynamic order, and
// the grid resized: every resident cluster draws, or one per piece where there are fewer pieces. Without,
// nothing (v7a-v7d).
struct Counter {
  std::shared_ptr<CounterMemory> memory;  // held by the launch: lives as long as any copy of it
  DynamicWork work;
  Counter(bool dynamic, const StreamKPlan& plan, PersistentGrid& grid) {
    if (!dynamic) return;
    std::vector<StreamKTask> tasks(size_t(streamk_dynamic_order(plan, nullptr)));
    streamk_dynamic_order(plan, tasks.data());
    grid.resize(int(tasks.size()) < grid.max_clusters ? int(tasks.size()) : grid.max_clusters);
    memory = std::make_shared<CounterMemory>(tasks);
    work   = memory->work;
  }
};

}  // namespace work_counter
