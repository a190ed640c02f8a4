// profiler.cuh: the in-kernel profiler. Each role of a kernel (the TMA producer, the MMA issuer, a consumer
// warpgroup, the epilogue warps) records what it is doing, with %globaltimer (ns) and %smid, into a global
// buffer sized from the grid (the format is in common/trace.h). `--trace FILE` on a stage executable runs one
// traced launch and writes a Chrome trace of it, which Perfetto (https://ui.perfetto.dev) opens.
//
// Zero cost when off. A kernel takes `template <bool TRACE>` and holds a Profiler<TRACE>; Profiler<false> is
// an empty class whose calls compile to nothing, so the instantiation that is timed contains no trace code.
// tests/sass_trace_check.cmake checks this on the SASS: no SR_GLOBALTIMER read in the TRACE=false kernel,
// at least one in the TRACE=true one.
//
// Use, one line per event in the stage file:
//   Profiler<TRACE> prof(trace, /*role=*/warpgroup, /*records=*/warp_id % 4 == 0);  // whole warp, converged
//   prof.begin(Ev::WaitFull);
//   ptx::mbarrier_wait(&tma_full_bar[stage], phase, "tma_full_bar");
//   prof.end(Ev::WaitFull);
// Asynchronous work (an MMA group still running while the next is issued) is recorded as a span from a time
// taken earlier: `const uint64_t issued = prof.begin(Ev::IssueMma); ... prof.span(Ev::Mma, issued);`.
//
// Only one lane writes: the lane that elect.sync picks in the constructor, in warps whose `records` is true.
// elect.sync is deterministic for a given member mask (PTX ISA "elect.sync"), so this is the same lane that
// `warp_id == 0 && ptx::elect_one_sync()` picks to run a single-thread role: the writer sees every event of
// its role, whether the whole warp runs the code or only the elected thread. The other lanes' calls do
// nothing. Events past the slot's capacity are counted, not written.
//
// What it costs when on: per event, two %globaltimer reads (about 16 cycles each on the H100, 32 ns steps)
// and two global stores (the record and the count), on one thread per role. The traced kernel is slower than
// the timed one all the same (v4 at 4096^3 on the H100, ncu: 236 -> 316 us; docs/tracing.md): read
// a trace for who waits on whom, and take the kernel's time from the timed runs.
//
// PTX ISA sections: "Special Registers: %globaltimer, %smid" (ptx::globaltimer_ns, ptx::smid), "elect.sync".
#pragma once

#include <cstdint>

#include "common/ptx.cuh"
#include "common/trace.h"

namespace gemm {

template <bool ON>
class Profiler;

// Tracing off: nothing to hold, nothing to do.
template <>
class Profiler<false> {
 public:
  __device__ __forceinline__ Profiler(const TraceBuffer&, int /*role*/, bool /*records*/) {}
  __device__ __forceinline__ uint64_t begin(Ev) { return 0; }
  __device__ __forceinline__ void end(Ev) {}
  __device__ __forceinline__ void span(Ev, uint64_t /*start*/) {}
};

// Tracing on.
template <>
class Profiler<true> {
 public:
  // Called by every lane of a converged warp (it runs elect.sync). `role` < trace.num_roles.
  __device__ __forceinline__ Profiler(const TraceBuffer& trace, int role, bool records) {
    const bool elected  = ptx::elect_one_sync();
    writer_             = records && elected && trace.records != nullptr;
    const uint32_t cta  = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    const uint32_t slot = cta * trace.num_roles + uint32_t(role);
    records_            = trace.records + size_t(slot) * trace.capacity;
    count_ptr_          = trace.counts + slot;
    capacity_           = trace.capacity;
    sm_                 = uint16_t(ptx::smid());
  }

  // The event of kind `e` starts now. Returns the time, for a later span(). Only the writer reads the clock.
  __device__ __forceinline__ uint64_t begin(Ev e) {
    if (!writer_) return 0;
    const uint64_t t = ptx::globaltimer_ns();
    open_[int(e)]    = t;
    return t;
  }
  // The event of kind `e` opened by the last begin(e) ends now.
  __device__ __forceinline__ void end(Ev e) {
    if (writer_) write(e, open_[int(e)], ptx::globaltimer_ns());
  }
  // An event of kind `e` that started at `start` (a time begin() returned) ends now.
  __device__ __forceinline__ void span(Ev e, uint64_t start) {
    if (writer_) write(e, start, ptx::globaltimer_ns());
  }

 private:
  __device__ __forceinline__ void write(Ev e, uint64_t start, uint64_t end) {
    const uint32_t i = count_++;
    if (i < capacity_) {
      const TraceRecord r{start, uint32_t(end - start), uint16_t(e), sm_};
      records_[i] = r;
    }
    *count_ptr_ = count_;  // the overflow is counted too: count_ - capacity_ events were dropped
  }

  TraceRecord* records_;
  uint32_t* count_ptr_;
  uint32_t capacity_;
  uint32_t count_ = 0;
  uint16_t sm_;
  bool writer_;
  uint64_t open_[NUM_EVENT_KINDS] = {};  // start of the open event of each kind (indexed by constants only)
};

}  // namespace gemm
