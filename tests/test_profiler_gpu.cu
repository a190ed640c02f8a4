// GPU test of the in-kernel profiler (common/profiler.cuh) on a small kernel of its own, independent of the
// stages: the slots a traced launch fills, the single writer per role (whole warp or elected thread), the
// durations against a known busy-wait, overlapping spans, the overflow count, %smid, and that the untraced
// instantiation writes nothing. Skipped (GEMM_SKIP_CODE) without an sm_90 / sm_100 GPU.
// tests/sass_trace_check.cmake reads this binary's SASS too: globaltimer in toy_kernel<true> only.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "common/check.h"
#include "common/profiler.cuh"
#include "common/trace.h"
#include "tests/mini_json.h"

using namespace gemm;

namespace {

constexpr int TOY_THREADS       = 64;    // warp 0: a single-thread role; warp 1: a whole-warp role
constexpr long long BUSY_CYCLES = 8000;  // each "wait full" spins this many SM clock cycles,
constexpr uint64_t BUSY_NS      = 2000;  // so lasts at least this long on any GPU clocked under 4 GHz
constexpr int EVENTS_PER_ITER   = 3;  // wait full, issue MMA, and (from the second iteration) MMA in flight

// Spins on clock64, not on %globaltimer: the untraced kernel must not read the profiler's clock at all.
__device__ void busy_wait_cycles(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

// Role 0 is run by the elected thread of warp 0 only (like a TMA producer); role 1 by all of warp 1 (like a
// consumer). Each records: setup, then per iteration wait full (a busy-wait of BUSY_CYCLES), issue MMA, and
// an "MMA in flight" span from the previous iteration's issue to now, which overlaps this iteration's events.
template <bool TRACE>
__global__ void toy_kernel(TraceBuffer trace, int iters, uint32_t* sink) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const int warp_id = threadIdx.x / 32;
  Profiler<TRACE> prof(trace, /*role=*/warp_id, /*records=*/true);
  prof.begin(Ev::Setup);
  __syncthreads();
  prof.end(Ev::Setup);
  if (warp_id == 0 && !ptx::elect_one_sync()) return;  // role 0: one thread from here on
  uint64_t prev_issue = 0;
  uint32_t acc        = threadIdx.x;
  for (int i = 0; i < iters; ++i) {
    prof.begin(Ev::WaitFull);
    busy_wait_cycles(BUSY_CYCLES);
    prof.end(Ev::WaitFull);
    const uint64_t issued = prof.begin(Ev::IssueMma);
    acc                   = acc * 1664525u + 1013904223u;
    prof.end(Ev::IssueMma);
    if (i > 0) prof.span(Ev::Mma, prev_issue);
    prev_issue = issued;
  }
  sink[blockIdx.x * TOY_THREADS + threadIdx.x] = acc;
#endif
}

struct ToyRun {
  std::vector<TraceEvent> events;
  uint64_t dropped = 0;
  std::vector<uint32_t> counts;
};

template <bool TRACE>
ToyRun run_toy(int ctas, int iters, uint32_t capacity) {
  DeviceTrace trace;
  const TraceBuffer buf = trace.allocate(uint32_t(ctas), {"single thread", "whole warp"}, capacity);
  uint32_t* sink        = nullptr;
  CUDA_CHECK(cudaMalloc(&sink, size_t(ctas) * TOY_THREADS * sizeof(uint32_t)));
  toy_kernel<TRACE><<<ctas, TOY_THREADS>>>(buf, iters, sink);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaFree(sink));
  ToyRun run;
  const std::string err = trace.download(run.events, run.dropped);
  REQUIRE(err.empty());
  run.counts.resize(size_t(ctas) * 2);
  CUDA_CHECK(cudaMemcpy(run.counts.data(), buf.counts, run.counts.size() * 4, cudaMemcpyDeviceToHost));
  return run;
}

int g_sm_count = 0;

}  // namespace

TEST_CASE("a traced launch fills one slot per CTA and role, written by one lane") {
  const int ctas = 2 * g_sm_count, iters = 8;
  const uint32_t expected = 1 + EVENTS_PER_ITER * iters - 1;  // setup; 3 per iteration but the first span
  const ToyRun run        = run_toy<true>(ctas, iters, /*capacity=*/64);
  CHECK(run.dropped == 0);
  for (size_t slot = 0; slot < run.counts.size(); ++slot) {
    INFO("slot " << slot);
    CHECK(run.counts[slot] == expected);  // not 32x: only the elected lane of warp 1 writes
  }
  REQUIRE(run.events.size() == size_t(ctas) * 2 * expected);
  std::map<std::pair<uint32_t, uint32_t>, std::vector<const TraceEvent*>> slots;
  std::map<uint32_t, std::set<uint32_t>> sms_of_cta;
  for (const TraceEvent& e : run.events) {
    slots[{e.cta, e.role}].push_back(&e);
    sms_of_cta[e.cta].insert(e.sm);
    CHECK(e.sm < 1024u);  // %smid need not be contiguous (PTX ISA), but it is an SM number
    CHECK(e.dur_ns < 1'000'000'000ull);
    if (e.kind == Ev::WaitFull) CHECK(e.dur_ns >= BUSY_NS);
  }
  std::set<uint32_t> sms;
  for (const auto& kv : sms_of_cta) {
    CHECK(kv.second.size() == 1);  // both roles of a CTA on one SM
    sms.insert(*kv.second.begin());
  }
  CHECK(sms.size() > 1);  // 2 CTAs per SM were launched: they did not all land on one SM
  for (const auto& [key, evs] : slots) {
    INFO("CTA " << key.first << " role " << key.second);
    REQUIRE(evs.size() == expected);
    CHECK(evs[0]->kind == Ev::Setup);
    // The synchronous events are recorded in time order and do not overlap.
    const TraceEvent* prev = nullptr;
    for (const TraceEvent* e : evs) {
      if (is_async(e->kind)) continue;
      if (prev) CHECK(e->start_ns >= prev->start_ns + prev->dur_ns);
      prev = e;
    }
    // The in-flight span of iteration i - 1 covers the issue of iteration i: overlapping events.
    const TraceEvent* span = nullptr;
    for (const TraceEvent* e : evs)
      if (e->kind == Ev::Mma) span = span ? span : e;
    REQUIRE(span != nullptr);
    CHECK(span->dur_ns >= BUSY_NS);
  }
  // The Chrome trace of a real device buffer is valid JSON, and the overlapping spans got tracks of their
  // own.
  const std::string json     = chrome_trace_json(run.events, {"single thread", "whole warp"}, "toy");
  const mini_json::Value doc = mini_json::parse(json);
  std::map<std::pair<int, int>, std::set<std::string>> kinds_per_track;
  for (const mini_json::Value& e : doc["traceEvents"].array)
    if (e["ph"].string == "X")
      kinds_per_track[{int(e["pid"].number), int(e["tid"].number)}].insert(e["name"].string);
  for (const auto& kv : kinds_per_track)
    if (kv.second.count("MMA in flight")) CHECK(kv.second.size() == 1);
}

TEST_CASE("events past the capacity are counted, not written") {
  const int iters         = 8;
  const uint32_t capacity = 5, expected = 1 + EVENTS_PER_ITER * iters - 1;
  const ToyRun run = run_toy<true>(3, iters, capacity);
  for (const uint32_t c : run.counts) CHECK(c == expected);
  CHECK(run.events.size() == 3 * 2 * capacity);
  CHECK(run.dropped == 3 * 2 * (expected - capacity));
}

TEST_CASE("the untraced instantiation writes nothing") {
  const ToyRun run = run_toy<false>(4, 8, 64);
  CHECK(run.events.empty());
  for (const uint32_t c : run.counts) CHECK(c == 0);
}

// Not a property of the profiler but of the clock it reads: how finely %globaltimer ticks on this GPU.
__global__ void globaltimer_steps(uint64_t* out, int n) {
  // What one read costs: 64 reads back to back, each feeding the next (SM clock cycles per read).
  const long long c0 = clock64();
  uint64_t chain     = 0;
  for (int i = 0; i < 64; ++i) chain += ptx::globaltimer_ns() & (chain | 1);
  out[1]        = uint64_t(clock64() - c0) / 64 + (chain == 12345 ? 1 : 0);
  uint64_t last = ptx::globaltimer_ns(), smallest = ~0ull;
  for (int i = 0, seen = 0; seen < n && i < (1 << 24); ++i) {
    const uint64_t t = ptx::globaltimer_ns();
    if (t != last) {
      smallest = t - last < smallest ? t - last : smallest;
      last     = t;
      ++seen;
    }
  }
  out[0] = smallest;
}

TEST_CASE("globaltimer advances, and its step is printed") {
  uint64_t* d = nullptr;
  CUDA_CHECK(cudaMalloc(&d, 2 * sizeof(uint64_t)));
  globaltimer_steps<<<1, 1>>>(d, 1000);
  CUDA_CHECK(cudaGetLastError());
  uint64_t h[2] = {};
  CUDA_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d));
  const uint64_t step = h[0];
  std::printf("%%globaltimer: smallest step seen %llu ns; a dependent read costs about %llu SM cycles\n",
              (unsigned long long)step, (unsigned long long)h[1]);
  CHECK(step > 0);
  CHECK(step < 1'000'000ull);
}

int main(int argc, char** argv) {
  bool listing = false;
  for (int i = 1; i < argc; ++i) listing = listing || std::strncmp(argv[i], "--list", 6) == 0;
  if (!listing) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
      std::printf("Skipped: no CUDA GPU\n");
      return GEMM_SKIP_CODE;
    }
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    if (!(prop.major == 9 && prop.minor == 0) &&
        !(prop.major == 10 && (prop.minor == 0 || prop.minor == 3))) {
      std::printf("Skipped: %s (sm_%d%d) is not sm_90 / sm_100 / sm_103\n", prop.name, prop.major,
                  prop.minor);
      return GEMM_SKIP_CODE;
    }
    g_sm_count = prop.multiProcessorCount;
    std::printf("%s, %d SMs\n", prop.name, g_sm_count);
  }
  return Catch::Session().run(argc, argv);
}
