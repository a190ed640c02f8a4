#include "common/harness.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <random>

#include "common/check.h"
#include "common/report.h"
#include "common/tcgen05_emu.h"

namespace gemm {

Launch untraced_pick(Launch (*prepare)(const GemmArgs&), const GemmArgs& g, const DeviceTrace* trace,
                     const std::string& kernel_and_where) {
  if (trace) {
    std::fprintf(stderr, "error: v8d runs %s, which has no traced build\n", kernel_and_where.c_str());
    std::exit(EXIT_BAD_INPUT);
  }
  return prepare(g);
}

CompareResult check_launch(const Launch& launch, const GemmArgs& args, const std::vector<uint16_t>& ref_host,
                           std::vector<uint16_t>* out_host) {
  const size_t count = size_t(args.m) * size_t(args.n);
  // Poison: every bf16 of C becomes 0xFFFF, a NaN. Whatever the kernel does not write fails the check.
  CUDA_CHECK(cudaMemset(args.c, 0xFF, count * sizeof(uint16_t)));
  launch(nullptr);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<uint16_t> local;
  std::vector<uint16_t>& out = out_host ? *out_host : local;
  out.resize(count);
  CUDA_CHECK(cudaMemcpy(out.data(), args.c, count * sizeof(uint16_t), cudaMemcpyDeviceToHost));
  return compare_bf16(out.data(), ref_host.data(), count);
}

namespace {

uint64_t fresh_seed() {
  std::random_device rd;
  const uint64_t s =
      (uint64_t(rd()) << 32 | rd()) ^ uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
  return (s & 0x7FFFFFFFFFFFFFFFull) | 1;
}

// The reference result on the host. Its buffer is poisoned first and must come back with no NaN left: that
// proves cuBLAS wrote every element (and gives compute-sanitizer's initcheck a defined buffer: it does not
// see the TMA stores cuBLAS's Hopper kernels write their output with; docs/sanitizers.md).
std::vector<uint16_t> reference_output(const CublasLtGemm& cublas, GemmArgs args, const char* prog) {
  const size_t count = size_t(args.m) * size_t(args.n);
  void* ref          = nullptr;
  CUDA_CHECK(cudaMalloc(&ref, count * 2));
  CUDA_CHECK(cudaMemset(ref, 0xFF, count * 2));
  args.c = ref;
  cublas.run(args, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<uint16_t> host(count);
  CUDA_CHECK(cudaMemcpy(host.data(), ref, count * 2, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(ref));
  const CompareResult self = compare_bf16(host.data(), host.data(), count);
  if (self.nonfinite != 0) {
    std::fprintf(stderr, "%s: the cuBLAS reference left %zu of %zu outputs unwritten or non-finite\n", prog,
                 self.nonfinite, count);
    std::exit(EXIT_FAIL);
  }
  return host;
}

}  // namespace

int run_stage(int argc, char** argv, const char* stage, const std::vector<Variant>& sm100,
              const std::vector<Variant>& sm90, const std::vector<Variant>& sm100_emulated) {
  const std::string prog = std::string("matmul_") + stage;
  Options opt;
  const std::string bad = parse_options(argc, argv, opt);
  if (!bad.empty()) {
    std::fprintf(stderr, "%s: %s\n", prog.c_str(), bad.c_str());
    return EXIT_BAD_INPUT;
  }
  if (opt.help) {
    std::printf("%s", usage(prog.c_str()).c_str());
    return EXIT_PASS;
  }

  // --trace: refused before anything runs where this stage has no traced kernel (v1 and v2).
  if (!opt.trace.empty()) {
    bool traced = false;
    for (const auto* list : {&sm100, &sm90})
      for (const Variant& v : *list) traced = traced || v.prepare_traced != nullptr;
    std::string why = traced ? check_trace_path(opt.trace) : "";
    if (!traced)
      why = std::string("--trace: stage ") + stage +
            " has no traced kernel (the in-kernel profiler is compiled into the stages from v3 on)";
    if (!why.empty()) {
      std::fprintf(stderr, "%s: %s\n", prog.c_str(), why.c_str());
      return EXIT_BAD_INPUT;
    }
  }

  GpuInfo gpu;
  Arch arch        = Arch::Sm90;
  std::string none = detect_gpu(gpu, arch);
  if (!none.empty()) {
    std::fprintf(stderr, "%s: %s\n", prog.c_str(), none.c_str());
    return EXIT_NO_GPU_HERE;
  }
  if (opt.emulate) {
    if (arch != Arch::Sm90) {
      std::fprintf(stderr,
                   "%s: --emulate runs the sm_100a kernels through the tcgen05 emulator on a Hopper GPU (sm_90a: "
                   "H100/H200); this GPU runs them natively: drop --emulate\n",
                   prog.c_str());
      return EXIT_NO_GPU_HERE;
    }
    if (sm100_emulated.empty()) {
      std::fprintf(stderr, "%s: this binary holds no emulated sm_100a kernels\n", prog.c_str());
      return EXIT_BAD_INPUT;
    }
    opt.iters = 0;  // emulation verifies; nothing it does says anything about speed
  }
  const std::vector<Variant>& all = opt.emulate ? sm100_emulated : arch == Arch::Sm100 ? sm100 : sm90;
  if (all.empty()) {
    // A stage built without a kernel for this architecture: say so, run nothing.
    const bool numbered = stage[0] == 'v' && std::isdigit(static_cast<unsigned char>(stage[1]));
    const std::string before =
        numbered ? "matmul_v" + std::to_string(std::atoi(stage + 1) - 1) : "an earlier stage";
    std::fprintf(stderr,
                 "%s: the %s %s kernel is not written yet (this binary holds only the %s one); run %s\n",
                 prog.c_str(), stage, arch == Arch::Sm100 ? "Blackwell (sm_100a)" : "Hopper (sm_90a)",
                 arch == Arch::Sm100 ? "Hopper (sm_90a)" : "Blackwell (sm_100a)", before.c_str());
    return EXIT_NO_GPU_HERE;
  }

  // Which variants, and do they accept this shape? Nothing is allocated or launched before this passes.
  std::vector<const Variant*> chosen;
  if (opt.variant == "all") {
    // Every variant that takes the shape: one with a narrower rule (v8s, the decode kernel: M <= 16) is left
    // out with a note; named with --variant, it refuses the shape instead.
    for (const Variant& v : all) {
      const bool narrower = v.shape.m_max > 0 && opt.m > v.shape.m_max;
      if (!narrower) chosen.push_back(&v);
      else std::printf("(%s not run: M=%lld is above its %lld)\n", v.name, (long long)opt.m, (long long)v.shape.m_max);
    }
  } else if (opt.variant != "cublas") {
    // one name, or several separated by commas (timed one after the other against the same cuBLAS)
    for (size_t at = 0; at <= opt.variant.size();) {
      const size_t end       = std::min(opt.variant.find(',', at), opt.variant.size());
      const std::string name = opt.variant.substr(at, end - at);
      const size_t before    = chosen.size();
      for (const Variant& v : all)
        if (name == v.name) chosen.push_back(&v);
      if (chosen.size() == before) {
        std::string names;
        for (const Variant& v : all) names += std::string(names.empty() ? "" : ", ") + v.name;
        std::fprintf(stderr, "%s: unknown variant '%s' (this stage has: %s, all, cublas)\n", prog.c_str(),
                     name.c_str(), names.c_str());
        return EXIT_BAD_INPUT;
      }
      at = end + 1;
    }
  }
  for (const Variant* v : chosen) {
    const std::string why = check_shape(v->shape, v->name, opt.m, opt.n, opt.k);
    if (!why.empty()) {
      std::fprintf(stderr, "%s: %s\n", prog.c_str(), why.c_str());
      return EXIT_BAD_INPUT;
    }
  }
  if (!opt.trace.empty() && (chosen.size() != 1 || !chosen.front()->prepare_traced)) {
    std::fprintf(stderr, "%s: --trace records one variant that has a traced kernel: %s\n", prog.c_str(),
                 chosen.size() != 1 ? "name it with --variant NAME" : "this one has none");
    return EXIT_BAD_INPUT;
  }
  if (!opt.seed_given) opt.seed = fresh_seed();

  // The HBM bandwidth for the limit of the shape (limit.h), measured once, before the inputs take the memory;
  // only where something is timed.
  const CopyBandwidth bandwidth = opt.iters > 0 ? measure_copy_bandwidth() : CopyBandwidth{};
  std::printf("%s | driver %s | power limit %d W%s\n", describe_gpu(gpu).c_str(), nvml::driver().c_str(),
              nvml::power_limit_w(), opt.iters > 0 ? (" | " + describe_copy_bandwidth(bandwidth)).c_str() : "");
  std::printf(
      "%s: C[%lld,%lld] = A[%lld,%lld] * B[%lld,%lld]^T, bf16 in and out, fp32 accumulate | seed %llu "
      "(replay with --seed %llu)\n",
      prog.c_str(), (long long)opt.m, (long long)opt.n, (long long)opt.m, (long long)opt.k, (long long)opt.n,
      (long long)opt.k, (unsigned long long)opt.seed, (unsigned long long)opt.seed);
  if (!chosen.empty())
    std::printf("kernels: %s%s\n", chosen.front()->kernel,
                opt.emulate ? ", through the tcgen05 emulator on this Hopper GPU (common/tcgen05_emu.h): "
                              "correctness only, no timing"
                            : "");

  // Input copies: enough that the set rotated through is well over the L2 (2x), so a timed launch cannot
  // find its operands left in L2 by the previous one.
  const size_t a_bytes = size_t(opt.m) * size_t(opt.k) * 2, b_bytes = size_t(opt.n) * size_t(opt.k) * 2;
  const size_t c_bytes = size_t(opt.m) * size_t(opt.n) * 2, set_bytes = a_bytes + b_bytes + c_bytes;
  int copies = 1;
  if (opt.iters > 0)
    copies = int(std::clamp<size_t>((2 * gpu.l2_bytes + set_bytes - 1) / set_bytes + 1, 2, 32));
  size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const size_t reserve = (size_t(256) << 20) + c_bytes;  // reference output, cuBLAS workspace
  while (copies > 1 && copies * set_bytes + reserve > free_bytes) --copies;
  if (set_bytes + reserve > free_bytes) {
    std::fprintf(stderr, "%s: the problem needs %.1f GB of GPU memory; %.1f GB are free\n", prog.c_str(),
                 double(set_bytes + reserve) / 1e9, double(free_bytes) / 1e9);
    return EXIT_FAIL;
  }

  std::vector<GemmArgs> sets(static_cast<size_t>(copies));
  for (int i = 0; i < copies; ++i) {
    void *a, *b, *c;
    CUDA_CHECK(cudaMalloc(&a, a_bytes));
    CUDA_CHECK(cudaMalloc(&b, b_bytes));
    CUDA_CHECK(cudaMalloc(&c, c_bytes));
    fill_random_bf16(a, a_bytes / 2, opt.seed * 2 + uint64_t(i) * 1000003, nullptr);
    fill_random_bf16(b, b_bytes / 2, opt.seed * 2 + 1 + uint64_t(i) * 1000003, nullptr);
    CUDA_CHECK(cudaMemset(c, 0, c_bytes));
    sets[size_t(i)] = GemmArgs{a, b, c, opt.m, opt.n, opt.k};
  }
  CUDA_CHECK(cudaDeviceSynchronize());

  CublasLtGemm cublas(opt.m, opt.n, opt.k, opt.cublas_best > 0 ? opt.cublas_best : 1);
  std::vector<uint16_t> ref_host;
  if (opt.check && !chosen.empty()) ref_host = reference_output(cublas, sets[0], prog.c_str());
  std::vector<Launch> cublas_launches;
  for (const GemmArgs& s : sets)
    cublas_launches.push_back([&cublas, s](cudaStream_t st) { cublas.run(s, st); });

  const TimingPlan plan{(opt.iters + opt.round - 1) / opt.round, opt.round, opt.warmup, opt.seconds};
  auto tflops = [&](double ms) { return ms > 0 ? gemm_tflops(opt.m, opt.n, opt.k, ms) : 0.0; };
  if (opt.iters > 0) {
    std::printf(
        "timing: paired rounds, cuBLAS and the kernel alternating (common/timing.h): rounds of %d launches "
        "per side, each enqueued whole behind a gate and then run back to back (common/gate.h), at least %d "
        "rounds and %.1f s per pairing, after %d warm-up launches each; inputs rotated "
        "through %d copies (%.0f MB, L2 %zu MB); NVML power: %s\n",
        plan.launches_per_round, plan.rounds, plan.min_seconds, plan.warmup, copies,
        double(copies * set_bytes) / 1e6, gpu.l2_bytes >> 20, nvml::power_source());
  }

  // --cublas-best: cuBLAS at its best. Each of the heuristic's first N algorithms is timed once, alone (a
  // short run of the same method), and the fastest becomes a second reference, timed in the same cycle of
  // rounds as the first pick and the kernel: every kernel gets both ratios, from the same rounds.
  std::vector<Launch> best_launches;
  std::string best_algo;
  if (opt.cublas_best > 0 && opt.iters > 0 && !chosen.empty()) {
    const TimingPlan probe{5, plan.launches_per_round, plan.warmup, 0.2};
    double best_ms = 0;
    int best       = 0;
    for (int i = 0; i < cublas.candidates(); ++i) {
      std::vector<Launch> candidate;
      for (const GemmArgs& s : sets)
        candidate.push_back([&cublas, s, i](cudaStream_t st) { cublas.run(s, st, i); });
      const double ms = time_alone(candidate, probe).launch_ms.median;
      std::printf("cuBLAS %s: %.4f ms\n", cublas.describe(i).c_str(), ms);
      if (i == 0 || ms < best_ms) {
        best_ms = ms;
        best    = i;
      }
    }
    for (const GemmArgs& s : sets)
      best_launches.push_back([&cublas, s, best](cudaStream_t st) { cublas.run(s, st, best); });
    best_algo = "pick " + std::to_string(best + 1) + " of " + std::to_string(cublas.candidates());
    std::printf("cuBLAS at its best: heuristic %s (of the %d timed)\n", best_algo.c_str(),
                cublas.candidates());
  }

  // The reference row: cuBLAS's side of the first pairing (or cuBLAS alone when no kernel is chosen).
  std::vector<ReportRow> rows(1);
  ReportRow& ref_row = rows[0];
  ref_row.variant    = "cublas";
  ref_row.what       = "cuBLASLt bf16 TN, fp32 accumulate (reference)";
  auto fill_ref_side = [&](ReportRow& r, const SideTiming& t) {
    r.ref_tflops       = tflops(t.launch_ms.median);
    r.ref_ms           = t.launch_ms.median;
    r.ref_sm_clock_mhz = t.sm_clock_mhz;
    r.ref_power_w      = t.power_w;
  };
  if (opt.iters > 0 && chosen.empty()) {
    const SideTiming t   = time_alone(cublas_launches, plan);
    ref_row.timed        = true;
    ref_row.launch_ms    = t.launch_ms;
    ref_row.tflops       = tflops(t.launch_ms.median);
    ref_row.sm_clock_mhz = t.sm_clock_mhz;
    ref_row.power_w      = t.power_w;
    fill_ref_side(ref_row, t);
    ref_row.ratio = summarize({1.0});
  }

  bool all_pass = true;
  std::vector<std::vector<Launch>> energy_launches;  // --energy: each variant's launches, kept for its window
  if (opt.emulate) {
    std::vector<tc5emu::Schedule> schedules;
    for (const tc5emu::Schedule each :
         {tc5emu::Schedule::Eager, tc5emu::Schedule::Late, tc5emu::Schedule::Strict})
      if (schedule_selected(opt.schedule, tc5emu::schedule_name(each))) schedules.push_back(each);
    for (const Variant* v : chosen)
      for (const tc5emu::Schedule schedule : schedules) {
        const std::string bad_setup = tc5emu::enable(schedule);
        if (!bad_setup.empty()) {
          std::fprintf(stderr, "%s: %s\n", prog.c_str(), bad_setup.c_str());
          return EXIT_FAIL;
        }
        const Launch launch = v->prepare(sets[0]);
        std::vector<uint16_t> out_host;
        CompareResult check     = check_launch(launch, sets[0], ref_host, &out_host);
        const std::string held  = tc5emu::check_all_freed();
        std::printf("check %-5s emulated, %-6s schedule: %s", v->name, tc5emu::schedule_name(schedule),
                    check.summary().c_str());
        if (!check.pass && check.first_bad != SIZE_MAX)
          std::printf("  (first bad element: row %zu, col %zu)", check.first_bad / size_t(opt.n),
                      check.first_bad % size_t(opt.n));
        std::printf("\n");
        if (!check.pass && check.nonfinite == 0 && check.bad > 0) {
          // As below: where kernel and cuBLAS disagree, the exact dot product settles each element.
          std::vector<uint16_t> a_host(size_t(opt.m * opt.k)), b_host(size_t(opt.n * opt.k));
          CUDA_CHECK(cudaMemcpy(a_host.data(), sets[0].a, a_host.size() * 2, cudaMemcpyDeviceToHost));
          CUDA_CHECK(cudaMemcpy(b_host.data(), sets[0].b, b_host.size() * 2, cudaMemcpyDeviceToHost));
          const Recheck rc = recheck_exact(a_host.data(), b_host.data(), opt.m, opt.n, opt.k, out_host.data(),
                                           ref_host.data());
          check.pass = rc.checked == check.bad && rc.settled();
          std::printf("check %-5s %s: %s\n", v->name, rc.summary(opt.n).c_str(), check.pass ? "PASS" : "FAIL");
        }
        if (!held.empty()) std::printf("check %-5s FAIL: %s\n", v->name, held.c_str());
        all_pass = all_pass && check.pass && held.empty();
      }
    std::printf("emulated: %s (verification only; emulation says nothing about speed)\n",
                all_pass ? "PASS" : "FAIL");
    return all_pass ? EXIT_PASS : EXIT_FAIL;
  }
  for (const Variant* v : chosen) {
    ReportRow row;
    row.variant = v->name;
    row.what    = v->what;
    std::vector<Launch> launches;
    for (const GemmArgs& s : sets) launches.push_back(v->prepare(s));
    if (opt.check) {
      std::vector<uint16_t> out_host;
      row.check   = check_launch(launches[0], sets[0], ref_host, &out_host);
      row.checked = true;
      std::printf("check %-5s %s", v->name, row.check.summary().c_str());
      if (!row.check.pass && row.check.first_bad != SIZE_MAX)
        std::printf("  (first bad element: row %zu, col %zu)", row.check.first_bad / size_t(opt.n),
                    row.check.first_bad % size_t(opt.n));
      std::printf("\n");
      if (!row.check.pass && row.check.nonfinite == 0 && row.check.bad > 0) {
        // Every element written, but kernel and cuBLAS disagree somewhere: at some ragged shapes cuBLAS's own
        // kernel is the one that is off. Settle each disagreeing element with the exact dot product
        // (common/compare.h); the kernel passes only if it is within the tolerance of it at every one.
        std::vector<uint16_t> a_host(size_t(opt.m * opt.k)), b_host(size_t(opt.n * opt.k));
        CUDA_CHECK(cudaMemcpy(a_host.data(), sets[0].a, a_host.size() * 2, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(b_host.data(), sets[0].b, b_host.size() * 2, cudaMemcpyDeviceToHost));
        const Recheck rc = recheck_exact(a_host.data(), b_host.data(), opt.m, opt.n, opt.k, out_host.data(),
                                         ref_host.data());
        row.check.pass = rc.checked == row.check.bad && rc.settled();
        std::printf("check %-5s %s: %s\n", v->name, rc.summary(opt.n).c_str(),
                    row.check.pass ? "PASS (the kernel is right where cuBLAS is not)" : "FAIL");
      }
      all_pass = all_pass && row.check.pass;
    }
    if (opt.iters > 0) {
      const PairedTiming t =
          time_paired(cublas_launches, launches, plan, best_launches.empty() ? nullptr : &best_launches);
      if (!opt.rounds_log.empty() &&
          !write_rounds_csv(opt.rounds_log.c_str(), v->name, t, /*append=*/v != chosen.front())) {
        std::fprintf(stderr, "%s: cannot write --rounds-log %s\n", prog.c_str(), opt.rounds_log.c_str());
        return EXIT_FAIL;
      }
      row.timed        = true;
      row.launch_ms    = t.kernel.launch_ms;
      row.tflops       = tflops(t.kernel.launch_ms.median);
      row.ratio        = t.ratio;
      row.sm_clock_mhz = t.kernel.sm_clock_mhz;
      row.power_w      = t.kernel.power_w;
      fill_ref_side(row, t.ref);
      if (t.has_best) {
        row.has_best          = true;
        row.best_tflops       = tflops(t.best.launch_ms.median);
        row.ratio_best        = t.ratio_best;
        row.best_algo         = best_algo;
        row.best_ms           = t.best.launch_ms.median;
        row.best_sm_clock_mhz = t.best.sm_clock_mhz;
      }
      if (!ref_row.timed) {
        ref_row.timed        = true;
        ref_row.launch_ms    = t.ref.launch_ms;
        ref_row.tflops       = row.ref_tflops;
        ref_row.sm_clock_mhz = t.ref.sm_clock_mhz;
        ref_row.power_w      = t.ref.power_w;
        fill_ref_side(ref_row, t.ref);
        ref_row.ratio = summarize({1.0});
      }
    }
    rows.push_back(row);
    energy_launches.push_back(opt.energy > 0 && opt.iters > 0 ? launches : std::vector<Launch>{});
  }

  // --energy: joules per GEMM, after all the timing, each side alone for opt.energy seconds between two reads
  // of the energy counter (timing.h: never inside the timed rounds). In order: cuBLAS's first pick, cuBLAS at
  // its best, each kernel; each starts at the thermal state the one before it left.
  if (opt.energy > 0 && opt.iters > 0) {
    std::printf(
        "energy: each side alone after the timing, 0.2 s of warm-up then a %.2f s window between two "
        "reads of NVML's total-energy counter (the whole board, not the die); the counter moves in "
        "steps of ~10-100 ms, about %.0f%% of this window at most%s\n",
        opt.energy, 100 * 0.1 / opt.energy, opt.energy < 1 ? " (under 1 s: take it as rough)" : "");
    auto window = [&](const char* name, const std::vector<Launch>& launches) -> std::optional<double> {
      const EnergyWindow w = measure_energy(launches, opt.energy);
      if (!w.per_gemm) {
        std::printf("energy: %s n/a: %s\n", name, w.why_not.c_str());
        return std::nullopt;
      }
      std::printf(
          "energy: %s %.4f J per GEMM, %.0f W average over %.2f s (%ld launches, NVML total-energy "
          "counter)\n",
          name, w.per_gemm->joules, w.per_gemm->watts, w.window_ms / 1000, w.launches);
      return w.per_gemm->joules;
    };
    const std::optional<double> cublas_j = window("cublas", cublas_launches);
    const std::optional<double> best_j =
        best_launches.empty() ? std::nullopt : window("cublas-best", best_launches);
    rows[0].joules_per_gemm = cublas_j;
    for (size_t i = 0; i < chosen.size(); ++i)
      if (rows[i + 1].timed) rows[i + 1].joules_per_gemm = window(chosen[i]->name, energy_launches[i]);
    for (ReportRow& r : rows) {
      r.cublas_joules_per_gemm      = cublas_j;
      r.cublas_best_joules_per_gemm = best_j;
    }
  }

  ReportHeader header{stage, arch == Arch::Sm100 ? "sm_100a" : "sm_90a", opt.m, opt.n, opt.k, opt.seed};
  header.limit            = LimitModel{dense_bf16_flop_per_clk_per_sm(gpu.cc_major, gpu.cc_minor), gpu.sm_count,
                                       bandwidth.gbps};
  header.max_sm_clock_mhz = gpu.max_sm_clock_mhz;
  header.energy           = opt.energy > 0 && opt.iters > 0;
  print_report(header, rows, opt.csv);

  // --trace: one launch of the variant's TRACE=true instantiation, after the checked and timed ones, never
  // timed. Its output is checked as well: the profiler must not change the result.
  bool trace_ok = true;
  if (!opt.trace.empty()) {
    const Variant& v = *chosen.front();
    DeviceTrace trace;
    const Launch traced = v.prepare_traced(sets[0], trace);
    if (opt.check) {
      const CompareResult r = check_launch(traced, sets[0], ref_host);
      std::printf("trace: %s with the profiler compiled in, one launch: %s\n", v.name, r.summary().c_str());
      all_pass = all_pass && r.pass;
    } else {
      traced(nullptr);
      CUDA_CHECK(cudaGetLastError());
      CUDA_CHECK(cudaDeviceSynchronize());
    }
    const std::string title = std::string("matmul_") + stage + " " + v.name + " " + header.arch +
                              " M=" + std::to_string(opt.m) + " N=" + std::to_string(opt.n) +
                              " K=" + std::to_string(opt.k) + " | " + gpu.name;
    const std::string err =
        save_trace(trace, opt.trace, title, rows.back().timed ? rows.back().launch_ms.median : 0);
    if (!err.empty()) {
      std::fprintf(stderr, "%s: --trace: %s\n", prog.c_str(), err.c_str());
      trace_ok = false;
    }
  }

  for (GemmArgs& s : sets) {
    CUDA_CHECK(cudaFree(const_cast<void*>(s.a)));
    CUDA_CHECK(cudaFree(const_cast<void*>(s.b)));
    CUDA_CHECK(cudaFree(s.c));
  }
  if (!all_pass)
    std::fprintf(stderr, "%s: verification FAILED (seed %llu)\n", prog.c_str(), (unsigned long long)opt.seed);
  return all_pass && trace_ok ? EXIT_PASS : EXIT_FAIL;
}

}  // namespace gemm
