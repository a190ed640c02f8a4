// clc_handout.cuh: v7clc's work on Blackwell, handed out at run time by Cluster Launch Control. Included by
// matmul_v7.cu, whose kernel takes its pieces from here: the stream-K plan's (v7a-v7d, CLC false) or whole
// units from CLC (v7clc, CLC true). It is a file of its own because it is a second idea beside the stage's
// (stream-K's static plans), and one that v8 does not keep: matmul_v7.cu reads as v6 plus stream-K, and the
// diff to v8 does not show the handout leaving.
//
// One 2-CTA cluster per unit instead of one per SM (the grid: prepare_v7). The producer thread of CTA 0 asks
// clusterlaunchcontrol.try_cancel (common/clc.cuh) for the next unit as soon as it starts loading the current
// one, with the multicast form, so the 16-byte response lands in both CTAs. Its answer, "canceled cluster x"
// (whose unit this cluster now does) or "nothing left" (the loop ends), is read by every role of both CTAs.
// A ring of CLC_SLOTS responses, each with a full barrier in every CTA (this CTA's producer announces the 16
// bytes; the response completes them) and an empty barrier on CTA 0 (every reader of both CTAs arrives after
// reading), lets the producer run ahead of the epilogue.
// Why: the GPU balances whole units at run time (a slow cluster takes fewer), and a cluster that never gets
// an SM costs nothing. What it costs: a 16-byte response and two barrier operations per unit and reader.
//
// PTX ISA sections: "clusterlaunchcontrol" (try_cancel .multicast::cluster::all, query_cancel), "mbarrier"
// (arrive.release.cluster, the wait's acquire at cluster scope), "membar/fence" (fence.proxy.async).
#pragma once

// (Needs common/clc.cuh and common/streamk.h, included by the file that includes this one, before its
// namespace, and the stage's CLUSTER_SIZE and NUM_EPILOGUE_WARPS.)
namespace clc_handout {

// The ring: responses in flight or being read. The producer asks one unit ahead; the epilogue, the last
// reader, trails it by the TMEM ring's two accumulators and the smem ring's stages (at most about 3 units).
constexpr int CLC_SLOTS = 4;
// clc_empty_bar's count: every reader of a response, in both CTAs: the producer thread and the four epilogue
// warps of each CTA, and CTA 0's MMA thread.
constexpr uint32_t CLC_READERS = CLUSTER_SIZE * (1 + NUM_EPILOGUE_WARPS) + 1;
static_assert(CLC_SLOTS >= 2, "the producer asks for the next unit while the others still read this one");

// Which role walks the units: each keeps its own slot and phase (in registers), and reads every response.
enum Role { PRODUCER, MMA, EPILOGUE };

#if defined(GEMM_HAS_TCGEN05)  // the device side: where the kernel has a body (common/clc.cuh has CLC there)
// The ring: the kernel's three arrays in its static shared memory (declared there, as its other barriers).
struct Ring {
  clc::Response* response;  // [CLC_SLOTS] the answers of try_cancel: which unit comes next
  uint64_t* full_bar;       // [CLC_SLOTS] the response in slot i has landed in this CTA
  uint64_t* empty_bar;      // [CLC_SLOTS] (CTA 0's only) every reader of both CTAs has read it

  // by the setup's one thread, with the kernel's other barriers
  __device__ __forceinline__ void init() const {
    for (int i = 0; i < CLC_SLOTS; ++i) {
      ptx::mbarrier_init(&full_bar[i], 1);             // this CTA's producer's expect_tx; + the 16 bytes
      ptx::mbarrier_init(&empty_bar[i], CLC_READERS);  // every reader of both CTAs (CTA 0's)
    }
  }
};

// The work of one role of the stream-K kernels (v7a-v7d): the plan's pieces, fixed before the launch.
template <bool CLC, Role ROLE>
struct Work {
  StreamKWork work;
  __device__ __forceinline__ Work(const StreamKPlan& plan, int cluster_id, const Ring&, int, int)
      : work(plan, cluster_id) {}
  __device__ __forceinline__ bool first(StreamKPiece& piece) { return work.next(piece); }
  __device__ __forceinline__ bool next(StreamKPiece& piece) { return work.next(piece); }
};

// The work of one role of v7clc: whole units, the cluster's own first, then the one each response names,
// until a response says that nothing is left.
template <Role ROLE>
struct Work<true, ROLE> {
  const Ring ring;
  const int cluster_id, num_k_tiles, cta_rank;
  int slot             = 0;  // slot of the next response to read (the producer's: and of the next request)
  uint32_t full_phase  = 0;  // parity of ring.full_bar[slot]: flips when slot wraps
  uint32_t empty_phase = 1;  // (CTA 0's producer) parity of ring.empty_bar[slot]: 1 passes on the first lap

  __device__ __forceinline__ Work(const StreamKPlan&, int cluster_id_, const Ring& ring_, int num_k_tiles_,
                                  int cta_rank_)
      : ring(ring_), cluster_id(cluster_id_), num_k_tiles(num_k_tiles_), cta_rank(cta_rank_) {}

  __device__ __forceinline__ StreamKPiece whole_unit(int unit) const {
    StreamKPiece p;
    p.unit = unit, p.k_begin = 0, p.k_end = num_k_tiles, p.k_tiles = num_k_tiles, p.role = StreamKPiece::Whole;
    return p;
  }
  // request: ask for the unit after the current one, into `slot`. Each producer announces the 16 bytes of
  // the response on its own CTA's full barrier; CTA 0's then waits until every reader of both CTAs has
  // released the slot's previous response, and asks. (A request after an observed failure would be
  // undefined: the loop ends at the first failed response.)
  __device__ __forceinline__ void request() {
    ptx::mbarrier_arrive_expect_tx(&ring.full_bar[slot], clc::CLC_RESPONSE_BYTES);
    if (cta_rank == 0) {
      ptx::mbarrier_wait</*CLUSTER_SCOPE=*/true>(&ring.empty_bar[slot], empty_phase, "clc_empty_bar");
      clc::try_cancel_multicast(&ring.response[slot], &ring.full_bar[slot]);
    }
  }
  // read_response: wait until the response in `slot` has landed in this CTA and read it. The proxy fence: the
  // next response in this slot is written by the async proxy, after this generic read (PTX ISA example of
  // clusterlaunchcontrol.try_cancel). The reader then releases the slot on CTA 0 (release_response), with
  // release semantics at cluster scope, which CTA 0's producer acquires at cluster scope in its wait on
  // empty_bar: a read in either CTA happens before the next request into the same slot. (A relaxed arrival,
  // or a .cta acquire, orders nothing across CTAs in the PTX memory model.)
  __device__ __forceinline__ clc::Response read_response() {
    ptx::mbarrier_wait(&ring.full_bar[slot], full_phase, "clc_full_bar");
    const clc::Response r = clc::load_response(&ring.response[slot]);
    ptx::fence_proxy_async_shared();
    return r;
  }
  __device__ __forceinline__ void release_response() {
    ptx::mbarrier_arrive_release_cluster(ptx::mapa_shared_cluster(&ring.empty_bar[slot], 0));
  }
  __device__ __forceinline__ void advance() {
    if (++slot == CLC_SLOTS) {
      slot = 0;
      full_phase ^= 1;
      if constexpr (ROLE == PRODUCER) empty_phase ^= 1;
    }
  }
  // The unit a response names (the canceled cluster's: its first CTA's blockIdx.x / 2), or -1: none left.
  __device__ __forceinline__ static int unit_of(const clc::Response& r) {
    return clc::is_canceled(r) ? int(clc::first_ctaid_x(r)) / CLUSTER_SIZE : -1;
  }

  // The cluster's own unit; the producer asks for the next one at once.
  __device__ __forceinline__ bool first(StreamKPiece& piece) {
    piece = whole_unit(cluster_id);
    if constexpr (ROLE == PRODUCER) request();
    return true;
  }
  // The unit after the current one: the response to the request made before the current unit's loads.
  // In an epilogue warp one lane reads the response and releases it (the one arrival of this warp); the
  // others get the unit from it. (Had every lane read it, the other 31 reads would be ordered before lane
  // 0's release only by __syncwarp, which compute-sanitizer's racecheck does not follow:
  // tools/probes/racecheck_mbarrier_ring.cu.)
  __device__ __forceinline__ bool next(StreamKPiece& piece) {
    int unit;
    if constexpr (ROLE == EPILOGUE) {
      int next = -1;
      if (threadIdx.x % 32 == 0) {
        const clc::Response r = read_response();
        release_response();
        next = unit_of(r);
      }
      unit = __shfl_sync(0xffffffffu, next, 0);
      advance();
    } else {
      const clc::Response r = read_response();
      release_response();
      advance();
      unit = unit_of(r);
    }
    const bool more = unit >= 0;
    if (more) {
      piece = whole_unit(unit);
      if constexpr (ROLE == PRODUCER) request();
    }
    return more;
  }
};
#endif  // GEMM_HAS_TCGEN05

// Host side: how many trace events a cluster may record. How many units a cluster takes is decided at run
// time: room for twice the fair share; events past it are counted, not written (common/profiler.cuh).
inline uint32_t trace_events(int units, int max_clusters, int iters) {
  const int turns = 2 * int(ceil_div(int64_t(units), max_clusters > 0 ? max_clusters : 1));
  return uint32_t(2 * turns * (iters + 1));
}

}  // namespace clc_handout
