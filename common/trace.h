// trace.h: the in-kernel profiler's record format, shared by the device (common/profiler.cuh writes it) and
// the host (this file's functions read it back and write a Chrome trace that Perfetto opens).
//
// The buffer, sized from the grid: for every CTA and every role of the kernel (a role is a warp or a
// warpgroup with one job: "producer", "consumer 0"...) one slot of `capacity` records and one counter.
//   records[(cta * num_roles + role) * capacity + i]   the i-th event of that role in that CTA
//   counts[cta * num_roles + role]                     events recorded so far, including those that did
//                                                      not fit (the overflow is counted, never written)
// Times are %globaltimer nanoseconds. The host turns them into microseconds from the first event.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gemm {

// What a role was doing. The names are the trace's event names (EVENT_NAMES, same order).
enum class Ev : uint16_t {
  Setup,      // barrier init, TMEM allocation, up to the CTA barrier that ends the setup
  WaitEmpty,  // producer: waiting for the consumers to release a ring stage ("empty" barrier)
  IssueTma,   // producer: expect_tx and the TMA copies of one K tile
  WaitFull,   // MMA issuer / consumer: waiting for the TMA bytes of a stage ("full" barrier)
  IssueMma,   // MMA issuer / consumer: the MMA instructions of one K tile, and their commit
  WaitMma,    // waiting for issued MMAs to finish (wgmma.wait_group, the mainloop-done barrier)
  Mma,        // asynchronous MMAs in flight: from their issue to the wait that saw them done. They overlap
              // the next tile's issue, so the Chrome trace puts them on a track of their own.
  Epilogue,   // accumulators to global memory
  Teardown,   // after the epilogue: TMEM deallocation, the last barrier
  Promote,    // MXFP8 on Hopper: a consumer adds one MX block's partial into its fp32 accumulator, scaled
  Decode,     // MXFP8 on Hopper: the scale decoders turn a stage's e8m0 scales into fp32
  Partial,    // stream-K (v7, v8): a split unit's later segment writes its fp32 partial and raises its flag
  Fixup,      // stream-K (v7, v8): a split unit's finisher waits for its later segments' partials, adds them
  Count
};
constexpr int NUM_EVENT_KINDS       = int(Ev::Count);
constexpr const char* EVENT_NAMES[] = {"setup",     "wait empty", "issue TMA",     "wait full",
                                       "issue MMA", "wait MMA",   "MMA in flight", "epilogue",
                                       "teardown",  "promote",    "decode scales", "write partial",
                                       "fixup"};
static_assert(sizeof(EVENT_NAMES) / sizeof(EVENT_NAMES[0]) == NUM_EVENT_KINDS, "one name per event kind");
// Asynchronous kinds overlap the role's other events by nature; the trace shows them on tracks of their own.
constexpr bool is_async(Ev e) {
  return e == Ev::Mma;
}

// One event, 16 bytes: the profiler writes it with a single vector store.
struct alignas(16) TraceRecord {
  uint64_t start_ns;  // %globaltimer when the event began
  uint32_t dur_ns;    // end - start
  uint16_t kind;      // an Ev
  uint16_t sm;        // %smid of the SM the CTA ran on
};
static_assert(sizeof(TraceRecord) == 16, "a record is one 16-byte store");

// What a traced kernel gets as a parameter (plain pointers: the same struct on host and device).
struct TraceBuffer {
  TraceRecord* records = nullptr;  // num_ctas * num_roles * capacity
  uint32_t* counts     = nullptr;  // num_ctas * num_roles, zeroed before the launch
  uint32_t num_roles   = 0;
  uint32_t capacity    = 0;  // records per (CTA, role) slot
};

// ---- host side ----

// One decoded event.
struct TraceEvent {
  uint32_t sm, cta, role;
  Ev kind;
  uint64_t start_ns, dur_ns;
};

// The events of every slot that the device wrote (counts clipped to the capacity); `dropped` gets the number
// of events that did not fit. Fails (returns a message) if a record is malformed: an unknown kind, or a slot
// whose records name different SMs.
std::string decode_trace(const std::vector<TraceRecord>& records, const std::vector<uint32_t>& counts,
                         uint32_t num_roles, uint32_t capacity, std::vector<TraceEvent>& events,
                         uint64_t& dropped);

// The Chrome trace ("JSON Object Format", the `traceEvents` array) of `events`:
//  - pid = SM ("SM 12"), tid = one track of a CTA's role ("CTA 37 producer"), each named by metadata events;
//  - "ts" and "dur" in microseconds (doubles, ns resolution) from the earliest event of the trace;
//  - events of one role that overlap in time (asynchronous MMAs in flight while the next ones are issued)
//    go to extra tracks of that role ("CTA 37 consumer 0 #2"): Chrome JSON cannot nest overlapping events
//    on one thread. The role's synchronous events keep its first track, asynchronous kinds (is_async) go to
//    the others. Within a track, events are in time order and never overlap.
// `title` goes to otherData.
std::string chrome_trace_json(const std::vector<TraceEvent>& events, const std::vector<std::string>& roles,
                              const std::string& title);

// Per event kind that occurs: how many, and the median, min and max duration (ns).
struct EventStats {
  Ev kind;
  size_t count;
  double median_ns, min_ns, max_ns;
};
std::vector<EventStats> event_stats(const std::vector<TraceEvent>& events);
// The stats as a few lines of text for stdout (durations in microseconds).
std::string format_event_stats(const std::vector<EventStats>& stats);

// The device buffer of one traced launch: allocated for a grid of `num_ctas` CTAs, each with `roles.size()`
// roles of up to `capacity` events; counts zeroed. Read back with download().
class DeviceTrace {
 public:
  DeviceTrace() = default;
  ~DeviceTrace();
  DeviceTrace(const DeviceTrace&)            = delete;
  DeviceTrace& operator=(const DeviceTrace&) = delete;

  // Allocates (or re-allocates) and zeroes the counts; returns what the kernel takes.
  TraceBuffer allocate(uint32_t num_ctas, std::vector<std::string> roles, uint32_t capacity);
  // Copies the buffer back (after the launch has finished) and decodes it; exits on a CUDA error.
  std::string download(std::vector<TraceEvent>& events, uint64_t& dropped) const;

  const std::vector<std::string>& roles() const { return roles_; }
  uint32_t num_ctas() const { return num_ctas_; }
  const TraceBuffer& buffer() const { return buf_; }

 private:
  void release();
  TraceBuffer buf_;
  uint32_t num_ctas_ = 0;
  std::vector<std::string> roles_;
};

// --trace FILE, before anything runs: "" if FILE can be written (its folder exists and is writable), else
// why.
std::string check_trace_path(const std::string& path);

// --trace FILE, after the traced launch has finished: reads `trace` back, writes the Chrome trace to `path`,
// prints to stdout a summary (events, drops, the traced kernel's span next to the untraced median) and the
// median duration of each event kind. Returns "" or what went wrong.
std::string save_trace(const DeviceTrace& trace, const std::string& path, const std::string& title,
                       double untraced_median_ms);

}  // namespace gemm
