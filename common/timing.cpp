#include "common/timing.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <thread>

#include "common/check.h"
#include "common/gate.h"
#include "common/gpu.h"

namespace gemm {

Spread summarize(std::vector<double> v) {
  Spread s;
  s.count = int(v.size());
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto quantile = [&](double q) {
    const double pos = q * double(v.size() - 1);
    const size_t lo  = size_t(std::floor(pos));
    const size_t hi  = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - double(lo)) * (v[hi] - v[lo]);
  };
  s.min    = v.front();
  s.max    = v.back();
  s.median = quantile(0.5);
  s.q1     = quantile(0.25);
  s.q3     = quantile(0.75);
  return s;
}

Spread round_ratios(const std::vector<std::vector<double>>& ref_rounds_ms,
                    const std::vector<std::vector<double>>& kernel_rounds_ms) {
  std::vector<double> ratios;
  const size_t n = std::min(ref_rounds_ms.size(), kernel_rounds_ms.size());
  for (size_t r = 0; r < n; ++r) {
    const double ref = summarize(ref_rounds_ms[r]).median, ker = summarize(kernel_rounds_ms[r]).median;
    if (ref > 0 && ker > 0) ratios.push_back(ref / ker);
  }
  return summarize(ratios);
}

namespace {

// One round: `count` launches of one side, with an event before the first and after each launch.
struct Round {
  int side = 0;
  std::vector<cudaEvent_t> events;
  std::vector<double> clock_mhz, power_w;  // NVML samples taken while this round executed
};

struct SideRun {
  std::vector<std::vector<double>> rounds_ms;
  std::vector<double> clock_mhz, power_w;  // every sample of the side
  std::vector<double> round_clock_mhz, round_power_w, round_end_ms;
};

// The engine behind both entry points: `rounds` rounds of every side in turn (side 0, side 1, side 0, ...),
// kept up to three rounds ahead in the stream. Each round is enqueued whole behind a gate (common/gate.h) and
// then released, so its launches run back to back even where the host enqueues a launch more slowly than the
// GPU runs it (the small shapes). Meanwhile the host polls the oldest unfinished round: while its end event
// is pending, that round is the one executing (the stream runs rounds in order and all earlier ones have
// finished), so an NVML sample taken then belongs to its side.
std::vector<SideRun> run_rounds(const std::vector<const std::vector<Launch>*>& sides,
                                const TimingPlan& plan) {
  const int nsides = int(sides.size());
  std::vector<SideRun> out(size_t(nsides), SideRun{});
  std::vector<size_t> next_copy(size_t(nsides), 0);
  auto launch_next = [&](int side) {
    const std::vector<Launch>& l = *sides[size_t(side)];
    l[next_copy[size_t(side)]++ % l.size()](nullptr);
  };

  // Warm-up, timed as a whole per side to size the run: enough rounds for plan.min_seconds of launches. At
  // least one launch per side, ungated: it loads the side's kernels, which must not happen behind a gate
  // (common/gate.h).
  const int warmup          = std::max(plan.warmup, 1);
  double warm_ms_per_launch = 0;
  cudaEvent_t w0, w1;
  CUDA_CHECK(cudaEventCreate(&w0));
  CUDA_CHECK(cudaEventCreate(&w1));
  for (int s = 0; s < nsides; ++s) {
    CUDA_CHECK(cudaEventRecord(w0));
    for (int i = 0; i < warmup; ++i) launch_next(s);
    CUDA_CHECK(cudaEventRecord(w1));
    CUDA_CHECK(cudaEventSynchronize(w1));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, w0, w1));
    warm_ms_per_launch += ms / warmup;
  }
  CUDA_CHECK(cudaEventDestroy(w0));
  CUDA_CHECK(cudaEventDestroy(w1));
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  int rounds = plan.rounds;
  if (warm_ms_per_launch > 0) {
    const double per_round_ms = warm_ms_per_launch * plan.launches_per_round;  // one round of each side
    rounds                    = std::max(rounds, int(std::ceil(plan.min_seconds * 1000.0 / per_round_ms)));
  }

  const int total = rounds * nsides;
  const auto t0   = std::chrono::steady_clock::now();
  std::deque<Round> pending;
  Gate gate;
  int enqueued = 0;
  auto enqueue = [&] {
    Round r;
    r.side = enqueued % nsides;
    r.events.resize(size_t(plan.launches_per_round) + 1);
    for (cudaEvent_t& e : r.events) CUDA_CHECK(cudaEventCreate(&e));
    gate.close(nullptr);
    CUDA_CHECK(cudaEventRecord(r.events[0]));
    for (int i = 0; i < plan.launches_per_round; ++i) {
      launch_next(r.side);
      CUDA_CHECK(cudaEventRecord(r.events[size_t(i) + 1]));
    }
    CUDA_CHECK(cudaGetLastError());
    gate.open();
    pending.push_back(std::move(r));
    ++enqueued;
  };

  while (!pending.empty() || enqueued < total) {
    while (enqueued < total && pending.size() < 3) enqueue();
    Round& r              = pending.front();
    const cudaError_t end = cudaEventQuery(r.events.back());
    if (end == cudaErrorNotReady) {
      // Round r is executing (or about to start, right behind the previous one): sample for its side.
      if (const int mhz = nvml::sm_clock_mhz()) r.clock_mhz.push_back(mhz);
      if (const double w = nvml::power_w(); w > 0) r.power_w.push_back(w);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      continue;
    }
    CUDA_CHECK(end);
    std::vector<double> ms(size_t(plan.launches_per_round));
    for (size_t i = 0; i < ms.size(); ++i) {
      float f = 0;
      CUDA_CHECK(cudaEventElapsedTime(&f, r.events[i], r.events[i + 1]));
      ms[i] = f;
    }
    for (cudaEvent_t e : r.events) CUDA_CHECK(cudaEventDestroy(e));
    SideRun& s = out[size_t(r.side)];
    s.rounds_ms.push_back(std::move(ms));
    s.clock_mhz.insert(s.clock_mhz.end(), r.clock_mhz.begin(), r.clock_mhz.end());
    s.power_w.insert(s.power_w.end(), r.power_w.begin(), r.power_w.end());
    s.round_clock_mhz.push_back(summarize(r.clock_mhz).median);
    s.round_power_w.push_back(summarize(r.power_w).median);
    s.round_end_ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    pending.pop_front();
  }
  if (const uint32_t late = gate.timeouts())
    std::printf(
        "warning: %u of %d rounds waited so long for the host to enqueue them that their gate opened "
        "on its timeout (common/gate.h: a launch that synchronises, or a kernel first loaded in a "
        "round): their launches may not have run back to back\n",
        late, total);
  return out;
}

SideTiming side_timing(SideRun run) {
  SideTiming t;
  std::vector<double> all;
  for (const auto& r : run.rounds_ms) all.insert(all.end(), r.begin(), r.end());
  t.launch_ms       = summarize(all);
  t.sm_clock_mhz    = summarize(run.clock_mhz);
  t.power_w         = summarize(run.power_w);
  t.rounds_ms       = std::move(run.rounds_ms);
  t.round_clock_mhz = std::move(run.round_clock_mhz);
  t.round_power_w   = std::move(run.round_power_w);
  t.round_end_ms    = std::move(run.round_end_ms);
  return t;
}

}  // namespace

PairedTiming time_paired(const std::vector<Launch>& ref, const std::vector<Launch>& kernel,
                         const TimingPlan& plan, const std::vector<Launch>* best) {
  std::vector<const std::vector<Launch>*> sides{&ref, &kernel};
  if (best) sides.push_back(best);
  std::vector<SideRun> runs = run_rounds(sides, plan);
  PairedTiming t;
  t.ref    = side_timing(std::move(runs[0]));
  t.kernel = side_timing(std::move(runs[1]));
  t.ratio  = round_ratios(t.ref.rounds_ms, t.kernel.rounds_ms);
  if (best) {
    t.has_best   = true;
    t.best       = side_timing(std::move(runs[2]));
    t.ratio_best = round_ratios(t.best.rounds_ms, t.kernel.rounds_ms);
  }
  return t;
}

SideTiming time_alone(const std::vector<Launch>& launches, const TimingPlan& plan) {
  std::vector<SideRun> runs = run_rounds({&launches}, plan);
  return side_timing(std::move(runs[0]));
}

std::optional<EnergyPerGemm> energy_per_gemm(std::optional<double> start_mj, std::optional<double> end_mj,
                                             long launches, double window_ms, std::string& why) {
  why.clear();
  if (!start_mj || !end_mj)
    why = std::string("the NVML total-energy counter could not be read ") +
          (!start_mj ? "before the window" : "after the window") + " (no NVML, or no counter on this GPU)";
  else if (*end_mj < *start_mj)
    why = "the energy counter went backwards (the driver reloaded during the window)";
  else if (*end_mj == *start_mj)
    why = "the energy counter did not move over the window";
  else if (launches <= 0 || window_ms <= 0)
    why = "no launch ran in the window";
  if (!why.empty()) return std::nullopt;
  const double mj = *end_mj - *start_mj;
  return EnergyPerGemm{mj / 1000.0 / double(launches), mj / window_ms};
}

EnergyWindow measure_energy(const std::vector<Launch>& launches, double seconds) {
  EnergyWindow w;
  size_t next = 0;
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  // One launch timed alone (after an untimed one) sizes the batches: ~25 ms of work each, two in flight.
  launches[next++ % launches.size()](nullptr);
  CUDA_CHECK(cudaEventRecord(start));
  launches[next++ % launches.size()](nullptr);
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float one_ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&one_ms, start, stop));
  const long batch = std::clamp(long(25.0 / std::max(one_ms, 1e-3f)), 1L, 10000L);

  // Launches back to back for `ms` of host time: a batch is enqueued, with an event after it, whenever
  // fewer than two are pending, so the GPU never runs dry and never has more than ~50 ms queued. `last`
  // (if given) is recorded right behind the final batch, before the queue drains.
  auto keep_busy = [&](double ms, cudaEvent_t last) {
    long count = 0;
    std::deque<cudaEvent_t> pending;
    const auto t0 = std::chrono::steady_clock::now();
    auto elapsed  = [&] {
      return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    };
    do {
      while (pending.size() < 2) {
        for (long i = 0; i < batch; ++i) launches[next++ % launches.size()](nullptr);
        count += batch;
        CUDA_CHECK(cudaGetLastError());
        cudaEvent_t done;
        CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
        CUDA_CHECK(cudaEventRecord(done));
        pending.push_back(done);
      }
      const cudaError_t q = cudaEventQuery(pending.front());
      if (q == cudaErrorNotReady) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        continue;
      }
      CUDA_CHECK(q);
      CUDA_CHECK(cudaEventDestroy(pending.front()));
      pending.pop_front();
    } while (elapsed() < ms);
    if (last) CUDA_CHECK(cudaEventRecord(last));
    for (cudaEvent_t e : pending) {
      CUDA_CHECK(cudaEventSynchronize(e));
      CUDA_CHECK(cudaEventDestroy(e));
    }
    return count;
  };

  keep_busy(200.0, nullptr);  // warm-up: the clocks settle at this side's load
  CUDA_CHECK(cudaDeviceSynchronize());
  w.start_mj = nvml::total_energy_mj();
  if (w.start_mj) {  // without a first read there is nothing to measure: skip the window
    CUDA_CHECK(cudaEventRecord(start));
    w.launches = keep_busy(seconds * 1000.0, stop);
    CUDA_CHECK(cudaDeviceSynchronize());
    w.end_mj = nvml::total_energy_mj();
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    w.window_ms = ms;
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  w.per_gemm = energy_per_gemm(w.start_mj, w.end_mj, w.launches, w.window_ms, w.why_not);
  return w;
}

bool write_rounds_csv(const char* path, const char* label, const PairedTiming& t, bool append) {
  FILE* f = std::fopen(path, append ? "a" : "w");
  if (!f) return false;
  if (!append) std::fprintf(f, "label,side,round,end_ms,median_ms,sm_clock_mhz,power_w,pair_ratio\n");
  for (int side = 0; side < 2; ++side) {
    const SideTiming& s = side == 0 ? t.ref : t.kernel;
    for (size_t r = 0; r < s.rounds_ms.size(); ++r) {
      const double ref = summarize(t.ref.rounds_ms[r]).median;
      const double ker = r < t.kernel.rounds_ms.size() ? summarize(t.kernel.rounds_ms[r]).median : 0;
      std::fprintf(f, "%s,%s,%zu,%.3f,%.5f,%.0f,%.1f,%.4f\n", label, side == 0 ? "ref" : "kernel", r,
                   s.round_end_ms[r], summarize(s.rounds_ms[r]).median, s.round_clock_mhz[r],
                   s.round_power_w[r], ker > 0 ? ref / ker : 0.0);
    }
  }
  return std::fclose(f) == 0;
}

}  // namespace gemm
