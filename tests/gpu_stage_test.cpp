// GPU tests of one stage (built once per stage, GEMM_STAGE_NAME): every variant of the kernel that fits this
// GPU against cuBLASLt at several shapes, and run-to-run bit-identity.
// Where no suitable GPU exists the binary exits with GEMM_SKIP_CODE, which CTest reports as Skipped.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "common/check.h"
#include "common/harness.h"
#include "gpu_test_main.h"

using namespace gemm;

namespace {

Arch g_arch = Arch::Sm90;

const std::vector<Variant>& variants() {
  static const std::vector<Variant> v = g_arch == Arch::Sm100 ? sm100_variants() : sm90_variants();
  return v;
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

// Stages that take any M and N (v6 on: ShapeRule any_mn_shape_rule, M and N multiples of 1), or any M and N a
// multiple of 8 (v8p, which stores C by TMA only). Their tiles are BLOCK_M = tiles.a.rows by BLOCK_N =
// tiles.b.rows * cta_group (B's tile spans the pair on Blackwell).
bool takes_any_mn(const Variant& v) {
  return v.shape.m_multiple == 1 && (v.shape.n_multiple == 1 || v.shape.n_multiple == 8);
}

// Ragged shapes around a variant's tiles (bm x bn, K tile 64): the smallest problem, one above and one below
// a tile multiple in each dimension (an odd number of M tiles: the padding tile of a 2-CTA pair), N below and
// above one half of a 256-wide B tile, N % 8 != 0 (no TMA store), K % 8 == 0 but not % 64 (a short last K
// tile), primes in M and N, fewer tiles than SMs, and more tiles than SMs with every edge ragged at once.
std::vector<Shape> ragged_shapes(int64_t bm, int64_t bn) {
  return {{1, 1, 8},
          {bm - 1, bn, 64},        {bm + 1, bn, 64},          {2 * bm - 1, bn, 64},  {2 * bm + 1, bn, 64},
          {3 * bm, bn, 128},       {bm, bn - 1, 64},          {bm, bn + 1, 64},      {bm, bn - 8, 64},
          {bm, bn + 8, 64},        {bm, bn / 2 - 8, 64},      {bm, 100, 64},         {2 * bm, 2 * bn, 56},
          {2 * bm, 2 * bn, 72},    {bm, bn, 8},               {383, 509, 536},       {1021, 1031, 1000},
          {2053, 2047, 2056},      {4099, 4093, 1032},        {7, 8191, 64},         {8191, 7, 64}};
}

// A decode kernel's shapes (v8s: M <= m_max, its MMA's N): M = 1 and m_max and between; N one below and one
// above its 128-row tile of B, a prime, N % 8 != 0; K % 64 != 0 (a short last K tile); K long enough to be
// split (common/split_k.h: one split, two, and many: 4096 and 16384); B of 28672 and 40000 rows (more CTAs
// than resident ones: several waves, in 2 K splits and in one).
std::vector<Shape> decode_shapes(int64_t m_max) {
  return {{1, 1, 8},           {1, 127, 64},           {m_max, 129, 64},     {m_max / 2 - 1, 1000, 1000},
          {3, 255, 56},        {m_max, 4093, 1032},    {1, 8191, 64},        {m_max / 2, 28672, 520},
          {m_max, 384, 16384}, {m_max - 1, 4096, 4096}, {m_max, 40000, 200}};
}

// Where the kernel and cuBLAS disagree: each such element against the exact dot product (common/compare.h).
Recheck recheck_exact(const Problem& p, const std::vector<uint16_t>& out) {
  std::vector<uint16_t> a(size_t(p.args.m * p.args.k)), b(size_t(p.args.n * p.args.k));
  CUDA_CHECK(cudaMemcpy(a.data(), p.args.a, a.size() * 2, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(b.data(), p.args.b, b.size() * 2, cudaMemcpyDeviceToHost));
  return gemm::recheck_exact(a.data(), b.data(), p.args.m, p.args.n, p.args.k, out.data(), p.ref.data());
}

TEST_CASE("variants that take any M and N match cuBLAS at ragged shapes, and write nothing outside C") {
  int ragged = 0;
  for (const Variant& v : variants()) {
    if (!takes_any_mn(v)) {
      // Stages before v6 refuse every ragged shape, with a message naming the constraint.
      const std::string why = check_shape(v.shape, v.name, v.shape.m_multiple + 1, v.shape.n_multiple,
                                          v.shape.k_multiple);
      INFO(v.name << ": " << why);
      CHECK(why.find("is not a multiple of") != std::string::npos);
      continue;
    }
    ++ragged;
    const int64_t bm = v.tiles.a.rows, bn = int64_t(v.tiles.b.rows) * v.tiles.cta_group;
    for (const Shape& s : v.shape.m_max > 0 ? decode_shapes(v.shape.m_max) : ragged_shapes(bm, bn)) {
      const std::string refused = check_shape(v.shape, v.name, s.m, s.n, s.k);
      if (!refused.empty()) {  // only N % 8 != 0, by a variant that stores C by TMA only (v8p), saying so
        INFO(v.name << ": " << refused);
        CHECK(v.shape.n_multiple == 8);
        CHECK(s.n % 8 != 0);
        CHECK(refused.find("N=" + std::to_string(s.n) + " is not a multiple of") == 0);
        continue;
      }
      const uint64_t seed = test_seed() + uint64_t(s.m * 7 + s.n * 5 + s.k * 3);
      Problem p(s.m, s.n, s.k, seed);
      // C with a guard band after it, poisoned: a store that is not clipped at the edge of C lands there.
      constexpr size_t GUARD = 64 * 1024;  // elements: more than a whole 128 x 256 tile
      const size_t count     = size_t(s.m * s.n);
      void* c_guarded        = nullptr;
      CUDA_CHECK(cudaMalloc(&c_guarded, (count + GUARD) * 2));
      CUDA_CHECK(cudaMemset(c_guarded, 0xFF, (count + GUARD) * 2));
      GemmArgs args = p.args;
      args.c        = c_guarded;
      std::vector<uint16_t> out;
      const CompareResult r = check_launch(v.prepare(args), args, p.ref, &out);
      std::vector<uint16_t> guard(GUARD);
      CUDA_CHECK(cudaMemcpy(guard.data(), static_cast<uint16_t*>(c_guarded) + count, GUARD * 2,
                            cudaMemcpyDeviceToHost));
      CUDA_CHECK(cudaFree(c_guarded));
      size_t guard_written = 0;
      for (uint16_t g : guard) guard_written += g != 0xFFFF;
      std::printf("%s %s ragged M=%lld N=%lld K=%lld seed=%llu: %s, guard %zu written\n", GEMM_STAGE_NAME,
                  v.name, (long long)s.m, (long long)s.n, (long long)s.k, (unsigned long long)seed,
                  r.summary().c_str(), guard_written);
      INFO(v.name << " M=" << s.m << " N=" << s.n << " K=" << s.k << " seed=" << seed << ": " << r.summary());
      CHECK(r.nonfinite == 0);  // every element written: the poison (NaN) would be left where one was not
      CHECK(guard_written == 0);
      CHECK(r.rel_frob <= Tolerance{}.rel_frob);
      if (r.pass) continue;
      // The kernel and cuBLAS disagree beyond the tolerance somewhere: settle each such element with the
      // exact (fp64) dot product. The kernel must be within the same tolerance of it at every one of them;
      // cuBLAS, whose kernel choice (split-K, its reduction) is its own, is reported, not judged.
      const Recheck rc = recheck_exact(p, out);
      std::printf("  %s\n", rc.summary(s.n).c_str());
      INFO("fp64 recheck: " << rc.checked << " elements, kernel off at " << rc.kernel_off
                            << ", cuBLAS off at " << rc.cublas_off);
      CHECK(rc.checked == r.bad);
      CHECK(rc.kernel_off == 0);
    }
  }
  if (ragged == 0) SUCCEED("no variant of this stage takes ragged shapes (checked: each refuses them)");
}

TEST_CASE("two runs give bit-identical output") {
  for (const Variant& v : variants()) {
    // Stages that take any M and N (v6 on) also at shapes where a stream-K schedule (v7, v8) splits units
    // between CTAs, whose partial sums a fixup adds: 72 pair units (more than the 66 clusters of an H100:
    // v7b and v7c split them), and a single 256 x 256 unit with a long K (every stream-K variant splits it).
    // Whole tiles: at ragged shapes such as 2053 x 2047 x 2056 cuBLAS is the one that is off (the ragged
    // test settles that), which would fail the check of the first run for a reason that is not the kernel's.
    // And a row of 32 units of 32 K tiles: v7e cuts them into 128 pieces for 66 clusters, 62 of them drawn
    // from its counter, so its second launch depends on the counters' reset by the first. And 128 x 8192 x
    // 8192, where B (134 MB) outgrows an H100's or H200's L2: v8's Hopper stream-K variants take the L2
    // policy there, so the second launch rewrites the partials whose lines the first one discarded. And decode
    // shapes (v8s, v8d at M <= 16), whose K splits' last CTA adds the partials and resets the tile's counter
    // for the next launch.
    std::vector<Shape> shapes{test_shapes(v.shape)[1]};
    if (v.shape.m_max > 0)
      shapes.insert(shapes.end(), {{16, 4096, 4096}, {1, 8192, 8192}, {5, 28672, 1024}});
    else if (takes_any_mn(v))
      shapes.insert(shapes.end(), {{2048, 2304, 1024}, {256, 256, 8192}, {128, 8192, 2048}, {128, 8192, 8192},
                                   {4, 4096, 4096}});
    for (const Shape& s : shapes) {
      Problem p(s.m, s.n, s.k, test_seed());
      const Launch launch = v.prepare(p.args);
      std::vector<uint16_t> first, second;
      const CompareResult r1 = check_launch(launch, p.args, p.ref, &first);
      const CompareResult r2 = check_launch(launch, p.args, p.ref, &second);
      std::printf(
          "%s %s bit-identity M=%lld N=%lld K=%lld seed=%llu: %s, %s\n", GEMM_STAGE_NAME, v.name,
          (long long)s.m, (long long)s.n, (long long)s.k, (unsigned long long)test_seed(),
          r1.summary().c_str(),
          std::memcmp(first.data(), second.data(), first.size() * 2) == 0 ? "identical" : "DIFFERENT");
      INFO(v.name << " M=" << s.m << " N=" << s.n << " K=" << s.k << " seed=" << test_seed());
      CHECK(r1.pass);
      CHECK(r2.pass);
      REQUIRE(first.size() == second.size());
      CHECK(std::memcmp(first.data(), second.data(), first.size() * 2) == 0);
    }
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
    // a wide grid: more tiles than SMs, several per SM (persistent stages: ragged in every dimension, an odd
    // number of M tiles)
    const Shape s = takes_any_mn(v) ? Shape{4099, 4093, 1032} : test_shapes(v.shape)[3];
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
    // Persistent stages (v6 on, which take any M and N) launch at most one CTA per SM and loop over tiles:
    // their test shape is ragged, their grid is the launcher's, and a CTA pair loads every K tile of every
    // pair unit it is given (both CTAs issue, the padding CTA of an odd last pair row or column included).
    const int64_t bm = v.tiles.a.rows, bn = int64_t(v.tiles.b.rows) * v.tiles.cta_group;
    const int64_t tiles_m = (s.m + bm - 1) / bm, tiles_n = (s.n + bn - 1) / bn;
    // A variant that picks its unit per shape (v8d: a CTA pair or a CTA alone) may have run
    // either: the count must be exactly one of the two.
    const bool picked = v.tiles.cluster == CLUSTER_PICKED;
    const int cluster = v.tiles.cluster > 0 ? v.tiles.cluster
                                            : std::max({v.tiles.cta_group, v.tiles.b_split, v.tiles.a_split});
    const int64_t k_tiles = (s.k + v.tiles.a.block_k - 1) / v.tiles.a.block_k;
    const uint32_t ctas   = takes_any_mn(v) ? trace.num_ctas() : uint32_t(tiles_m * tiles_n);
    if (takes_any_mn(v)) {
      int sms = 0;
      CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
      CHECK(ctas >= 1);
      CHECK(ctas <= uint32_t(sms));
      CHECK(ctas % uint32_t(picked ? 1 : cluster) == 0);
    }
    CHECK(trace.num_ctas() == ctas);
    // The cluster's CTAs sit along M (they share B), or along N where they share A (v8's narrow pair on
    // Hopper): the padding CTA is then past the last N tile.
    const int64_t pad_m = v.tiles.a_split > 1 ? 1 : cluster, pad_n = v.tiles.a_split > 1 ? cluster : 1;
    const size_t expected_tma =
        size_t((tiles_m + pad_m - 1) / pad_m * pad_m * ((tiles_n + pad_n - 1) / pad_n * pad_n) * k_tiles);
    // Every role of every CTA recorded, beginning with its setup; each K tile was loaded exactly once.
    std::map<std::pair<uint32_t, uint32_t>, std::vector<const TraceEvent*>> slots;
    size_t tma_issues = 0;
    for (const TraceEvent& e : events) {
      slots[{e.cta, e.role}].push_back(&e);
      tma_issues += e.kind == Ev::IssueTma;
    }
    CHECK(slots.size() == size_t(ctas) * trace.roles().size());
    for (const auto& kv : slots) CHECK(kv.second.front()->kind == Ev::Setup);
    const size_t expected_alone = size_t(tiles_m * tiles_n * k_tiles);
    INFO("TMA issues " << tma_issues << ", expected " << expected_tma
                       << (picked ? " (or " + std::to_string(expected_alone) + " for a CTA alone)" : ""));
    CHECK((tma_issues == expected_tma || (picked && tma_issues == expected_alone)));
    const std::vector<EventStats> stats = event_stats(events);
    std::printf("%s traced, M=%lld N=%lld K=%lld: %zu events\n%s", v.name, (long long)s.m, (long long)s.n,
                (long long)s.k, events.size(), format_event_stats(stats).c_str());
  }
  CHECK(traced > 0);  // compiled only for the stages that have a traced kernel
}
#endif

int main(int argc, char** argv) {
  GpuInfo info;
  const int skip = gpu_test_start(argc, argv, info, g_arch, [](Arch) -> std::string {
    // a stage built without a kernel for this GPU (the binary refuses too)
    return variants().empty() ? std::string("stage ") + GEMM_STAGE_NAME + " has no kernel for this GPU yet"
                              : "";
  });
  return skip >= 0 ? skip : Catch::Session().run(argc, argv);
}
