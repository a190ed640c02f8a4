// GPU tests of one stage (built once per stage, GEMM_STAGE_NAME): every variant of the kernel that fits this
// GPU against cuBLASLt at several shapes, and run-to-run bit-identity.
// Where no suitable GPU exists the binary exits with GEMM_SKIP_CODE, which CTest reports as Skipped.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "common/check.h"
#include "common/harness.h"

using namespace gemm;

namespace {

Arch g_arch = Arch::Sm90;

const std::vector<Variant>& variants() {
  static const std::vector<Variant> v = g_arch == Arch::Sm100 ? sm100_variants() : sm90_variants();
  return v;
}

uint64_t test_seed() {
  static const uint64_t seed = [] {
    if (const char* s = std::getenv("GEMM_TEST_SEED")) return uint64_t(std::strtoull(s, nullptr, 10));
    return uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) | 1;
  }();
  return seed;
}

// Device buffers of one problem, filled with random inputs, with the cuBLAS result on the host.
struct Problem {
  GemmArgs args{};
  std::vector<uint16_t> ref;
  Problem(int64_t m, int64_t n, int64_t k, uint64_t seed) {
    void *a, *b, *c;
    CUDA_CHECK(cudaMalloc(&a, size_t(m * k) * 2));
    CUDA_CHECK(cudaMalloc(&b, size_t(n * k) * 2));
    CUDA_CHECK(cudaMalloc(&c, size_t(m * n) * 2));
    fill_random_bf16(a, size_t(m * k), seed * 2, nullptr);
    fill_random_bf16(b, size_t(n * k), seed * 2 + 1, nullptr);
    args = GemmArgs{a, b, c, m, n, k};
    CublasLtGemm cublas(m, n, k);
    CUDA_CHECK(cudaMemset(c, 0xFF, size_t(m * n) * 2));
    cublas.run(args, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    ref.resize(size_t(m * n));
    CUDA_CHECK(cudaMemcpy(ref.data(), c, ref.size() * 2, cudaMemcpyDeviceToHost));
    const CompareResult self = compare_bf16(ref.data(), ref.data(), ref.size());
    REQUIRE(self.nonfinite == 0);  // cuBLAS wrote every element
  }
  ~Problem() {
    cudaFree(const_cast<void*>(args.a));
    cudaFree(const_cast<void*>(args.b));
    cudaFree(args.c);
  }
};

struct Shape {
  int64_t m, n, k;
};

// The standard test shapes, in whole tiles of the variant: one tile; M != N != K; a large K; a wide grid.
std::vector<Shape> test_shapes(const ShapeRule& r) {
  return {{r.m_multiple, r.n_multiple, r.k_multiple},
          {3 * r.m_multiple, 2 * r.n_multiple, 7 * r.k_multiple},
          {2 * r.m_multiple, r.n_multiple, 16384},
          {15 * r.m_multiple, 9 * r.n_multiple, 24 * r.k_multiple}};
}

}  // namespace

TEST_CASE("every variant matches cuBLAS at the standard test shapes") {
  REQUIRE_FALSE(variants().empty());
  for (const Variant& v : variants()) {
    for (const Shape& s : test_shapes(v.shape)) {
      REQUIRE(check_shape(v.shape, v.name, s.m, s.n, s.k).empty());
      const uint64_t seed = test_seed() + uint64_t(s.m * 7 + s.n * 5 + s.k * 3);
      Problem p(s.m, s.n, s.k, seed);
      const CompareResult r = check_launch(v.prepare(p.args), p.args, p.ref);
      std::printf("%s %s M=%lld N=%lld K=%lld seed=%llu: %s\n", GEMM_STAGE_NAME, v.name, (long long)s.m,
                  (long long)s.n, (long long)s.k, (unsigned long long)seed, r.summary().c_str());
      INFO(v.name << " M=" << s.m << " N=" << s.n << " K=" << s.k << " seed=" << seed << ": " << r.summary());
      CHECK(r.pass);
    }
  }
}

TEST_CASE("two runs give bit-identical output") {
  for (const Variant& v : variants()) {
    const Shape s = test_shapes(v.shape)[1];
    Problem p(s.m, s.n, s.k, test_seed());
    const Launch launch = v.prepare(p.args);
    std::vector<uint16_t> first, second;
    const CompareResult r1 = check_launch(launch, p.args, p.ref, &first);
    const CompareResult r2 = check_launch(launch, p.args, p.ref, &second);
    INFO(v.name << " seed=" << test_seed());
    CHECK(r1.pass);
    CHECK(r2.pass);
    REQUIRE(first.size() == second.size());
    CHECK(std::memcmp(first.data(), second.data(), first.size() * 2) == 0);
  }
}

TEST_CASE("the GPU check fails a kernel that writes nothing") {
  // The poison in check_launch is what makes unwritten outputs fail: prove it on the device.
  const Shape s = test_shapes(variants().front().shape)[0];
  Problem p(s.m, s.n, s.k, test_seed());
  const Launch does_nothing = [](cudaStream_t) {};
  const CompareResult r     = check_launch(does_nothing, p.args, p.ref);
  CHECK_FALSE(r.pass);
  CHECK(r.nonfinite == size_t(s.m * s.n));
}

#if defined(GEMM_STAGE_TRACED)
TEST_CASE("the traced kernel (--trace) gives the same result and records every role of every CTA") {
  int traced = 0;
  for (const Variant& v : variants()) {
    if (!v.prepare_traced) continue;
    ++traced;
    const Shape s = test_shapes(v.shape)[3];  // a wide grid: more CTAs than SMs, several per SM
    Problem p(s.m, s.n, s.k, test_seed());
    DeviceTrace trace;
    const CompareResult r = check_launch(v.prepare_traced(p.args, trace), p.args, p.ref);
    INFO(v.name << " M=" << s.m << " N=" << s.n << " K=" << s.k << " seed=" << test_seed() << ": "
                << r.summary());
    CHECK(r.pass);
    std::vector<TraceEvent> events;
    uint64_t dropped = 0;
    REQUIRE(trace.download(events, dropped).empty());
    CHECK(dropped == 0);
    // One CTA per a.rows x (b.rows x cta_group) block of C: the shape rule's multiples may be whole clusters.
    const uint32_t ctas = uint32_t((s.m / v.tiles.a.rows) * (s.n / (v.tiles.b.rows * v.tiles.cta_group)));
    CHECK(trace.num_ctas() == ctas);
    // Every role of every CTA recorded, beginning with its setup; each K tile was loaded exactly once.
    std::map<std::pair<uint32_t, uint32_t>, std::vector<const TraceEvent*>> slots;
    size_t tma_issues = 0;
    for (const TraceEvent& e : events) {
      slots[{e.cta, e.role}].push_back(&e);
      tma_issues += e.kind == Ev::IssueTma;
    }
    CHECK(slots.size() == size_t(ctas) * trace.roles().size());
    for (const auto& kv : slots) CHECK(kv.second.front()->kind == Ev::Setup);
    CHECK(tma_issues == size_t(ctas) * size_t(s.k / v.shape.k_multiple));
    const std::vector<EventStats> stats = event_stats(events);
    std::printf("%s traced, M=%lld N=%lld K=%lld: %zu events\n%s", v.name, (long long)s.m, (long long)s.n,
                (long long)s.k, events.size(), format_event_stats(stats).c_str());
  }
  CHECK(traced > 0);  // compiled only for the stages that have a traced kernel
}
#endif

int main(int argc, char** argv) {
  // catch_discover_tests lists the tests at build time, on machines without a GPU: never skip a listing.
  bool listing = false;
  for (int i = 1; i < argc; ++i) listing = listing || std::strncmp(argv[i], "--list", 6) == 0;
  if (!listing) {
    GpuInfo info;
    const std::string none = detect_gpu(info, g_arch);
    if (!none.empty()) {
      std::printf("Skipped: %s\n", none.c_str());
      return GEMM_SKIP_CODE;
    }
    std::printf("%s | test seed %llu (replay with GEMM_TEST_SEED=%llu)\n", describe_gpu(info).c_str(),
                (unsigned long long)test_seed(), (unsigned long long)test_seed());
  }
  return Catch::Session().run(argc, argv);
}
