// GPU test of the 1x128 and 128x128 block quantizers (mxfp8/bw_quant.cu): their data and fp32 scales equal
// the CPU reference (mxfp8/bw_quant.h) byte for byte, padding included, on random normal inputs with outlier
// rows, tiny and zero blocks and special values, at both granularities, from bf16 and fp32, at shapes where
// rows or K (or both) are not multiples of 128 and rows not a multiple of 4. Outputs are poisoned before each
// run, so an unwritten byte fails. Skipped (GEMM_SKIP_CODE) without an sm_90 / sm_100 GPU.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "common/check.h"
#include "common/gpu.h"
#include "gpu_test_main.h"
#include "mxfp8/bw_quant_gpu.h"

using namespace gemm;

namespace {

uint16_t bf16_bits_rn(float f) {  // fp32 -> bf16, round to nearest even (inputs here are finite or NaN)
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return uint16_t((u >> 16) | 0x40);
  return uint16_t((u + 0x7FFFu + ((u >> 16) & 1)) >> 16);
}

// Random normal values with outlier rows, outlier elements and tiny rows (amax below the clamp), then special
// blocks of the granularity being tested, chosen by block number so that most blocks stay ordinary: one NaN,
// one +Inf, one -Inf, all zeros, all -0, scaled by 2^-128 (bf16/fp32 subnormals, amax around the clamp), amax
// exactly 448, the largest bf16. Rounded to bf16 when `bf16` (so both input types see the same kinds of
// values).
std::vector<float> make_input(int64_t rows, int64_t k, uint64_t seed, bool bf16, BwGranularity g) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> in(size_t(rows * k));
  for (int64_t r = 0; r < rows; ++r) {
    const float row_scale = r % 17 == 3 ? 3e4f : r % 23 == 5 ? 1e-37f : r % 29 == 7 ? 1e-3f : 1.0f;
    for (int64_t c = 0; c < k; ++c) {
      float x = normal(gen) * row_scale;
      if (c % 101 == int(r % 101)) x *= 500.0f;  // an outlier element now and then
      in[size_t(r * k + c)] = x;
    }
  }
  const int64_t block_rows = g == BwGranularity::Row1x128 ? 1 : BW_BLOCK;
  const int64_t k_blocks   = bw_k_blocks(int(k));
  const float big_bf16     = bf16_bits_to_float(0x7F7F);
  for (int64_t br = 0; br * block_rows < rows; ++br)
    for (int64_t kb = 0; kb < k_blocks; ++kb) {
      const int64_t r0 = br * block_rows, r1 = std::min(r0 + block_rows, rows);
      const int64_t c0 = kb * BW_BLOCK, c1 = std::min(c0 + BW_BLOCK, k);
      auto each = [&](auto f) {
        for (int64_t r = r0; r < r1; ++r)
          for (int64_t c = c0; c < c1; ++c) f(in[size_t(r * k + c)]);
      };
      float& last = in[size_t((r1 - 1) * k + c1 - 1)];
      switch (((br * k_blocks + kb) * 7 + int64_t(seed % 5)) % (g == BwGranularity::Row1x128 ? 53 : 17)) {
        case 0:
          last = NAN;
          break;
        case 1:
          in[size_t(r0 * k + c0)] = INFINITY;
          break;
        case 2:
          last = -INFINITY;
          break;
        case 3:
          each([](float& x) { x = 0.0f; });
          break;
        case 4:
          each([](float& x) { x = -0.0f; });
          break;
        case 5:  // subnormals
          each([](float& x) { x = std::ldexp(x, -128); });
          break;
        case 6:
          each([](float& x) { x = std::fmin(std::fmax(x, -448.0f), 448.0f); });
          last = 448.0f;
          break;
        case 7:
          last = big_bf16;
          break;
        default:
          break;
      }
    }
  if (bf16)
    for (float& x : in) x = bf16_bits_to_float(bf16_bits_rn(x));
  return in;
}

struct Shape {
  int64_t rows, k;
};
// Whole blocks; rows not a multiple of 128 or of 4; K not a multiple of 128 (a partial last block: 16, 112
// or 64 wide); a single row; a single 16-wide block; shapes large enough for many CTAs per SM.
const Shape SHAPES[] = {{128, 128},   {1, 16},     {3, 144},     {130, 400},   {257, 272},
                        {1000, 4096}, {333, 2064}, {4096, 1024}, {2048, 7168}, {77, 1088}};

struct Mismatch {
  size_t count = 0, first = 0;
  int got = 0, want = 0;
};
Mismatch compare(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want) {
  Mismatch m;
  for (size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) {
      if (m.count++ == 0) m.first = i, m.got = got[i], m.want = want[i];
    }
  return m;
}
std::vector<uint8_t> as_bytes(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(float));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

}  // namespace

TEST_CASE("the GPU block quantizers equal the CPU reference byte for byte, padding included") {
  for (const Shape& s : SHAPES)
    for (BwGranularity g : {BwGranularity::Row1x128, BwGranularity::Block128x128})
      for (MxInput input : {MxInput::Bf16, MxInput::F32}) {
        const bool bf16             = input == MxInput::Bf16;
        const uint64_t seed         = test_seed() + uint64_t(s.rows * 131 + s.k);
        const std::vector<float> in = make_input(s.rows, s.k, seed, bf16, g);
        const size_t n              = in.size();
        const uint64_t scale_count  = bw_scale_count(g, s.rows, s.k);
        // The reference.
        std::vector<uint8_t> want_data(n);
        std::vector<float> want_scales(scale_count);
        std::vector<uint16_t> in_bf16;
        if (bf16) {
          in_bf16.resize(n);
          for (size_t i = 0; i < n; ++i) in_bf16[i] = bf16_bits_rn(in[i]);
          bw_quantize_ref_bf16(in_bf16.data(), s.rows, s.k, g, want_data.data(), want_scales.data());
        } else {
          bw_quantize_ref_f32(in.data(), s.rows, s.k, g, want_data.data(), want_scales.data());
        }
        // The GPU, into poisoned buffers.
        void *d_in, *d_data, *d_scales;
        const size_t in_bytes = bf16 ? n * 2 : n * 4, scale_bytes = scale_count * sizeof(float);
        CUDA_CHECK(cudaMalloc(&d_in, in_bytes));
        CUDA_CHECK(cudaMalloc(&d_data, n));
        CUDA_CHECK(cudaMalloc(&d_scales, scale_bytes));
        CUDA_CHECK(cudaMemcpy(d_in, bf16 ? static_cast<const void*>(in_bf16.data()) : in.data(), in_bytes,
                              cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemset(d_data, 0xAB, n));
        CUDA_CHECK(cudaMemset(d_scales, 0xAB, scale_bytes));
        const std::string err =
            bw_quantize_gpu(d_in, input, s.rows, s.k, g, d_data, static_cast<float*>(d_scales), nullptr);
        REQUIRE(err.empty());
        CUDA_CHECK(cudaDeviceSynchronize());
        std::vector<uint8_t> got_data(n), got_scales(scale_bytes);
        CUDA_CHECK(cudaMemcpy(got_data.data(), d_data, n, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(got_scales.data(), d_scales, scale_bytes, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaFree(d_in));
        CUDA_CHECK(cudaFree(d_data));
        CUDA_CHECK(cudaFree(d_scales));

        const Mismatch md = compare(got_data, want_data), ms = compare(got_scales, as_bytes(want_scales));
        size_t nan_blocks = 0, clamped = 0, padding = 0;
        for (float x : want_scales) {
          const uint32_t b = bw_bits_from_float(x);
          nan_blocks += b == BW_SCALE_NAN_BITS, clamped += b == 0x00800000u, padding += b == 0u;
        }
        std::printf(
            "%s rows=%lld K=%lld %s seed=%llu: %zu data and %zu scale bytes differ (%zu NaN blocks, %zu at "
            "the clamp, %zu padding floats)\n",
            bw_granularity_name(g), (long long)s.rows, (long long)s.k, bf16 ? "bf16" : "fp32",
            (unsigned long long)seed, md.count, ms.count, nan_blocks, clamped, padding);
        INFO(bw_granularity_name(g) << " rows=" << s.rows << " K=" << s.k << (bf16 ? " bf16" : " fp32")
                                    << " seed=" << seed);
        INFO("first data mismatch at " << md.first << ": got " << md.got << " want " << md.want);
        INFO("first scale mismatch at byte " << ms.first << ": got " << ms.got << " want " << ms.want);
        CHECK(md.count == 0);
        CHECK(ms.count == 0);
      }
}

TEST_CASE("the comparison fails a quantizer that writes nothing") {
  // The poison is what makes unwritten bytes fail: the untouched buffers differ from the reference.
  const Shape s = {130, 400};
  for (BwGranularity g : {BwGranularity::Row1x128, BwGranularity::Block128x128}) {
    const std::vector<float> in = make_input(s.rows, s.k, test_seed(), false, g);
    std::vector<uint8_t> want_data(in.size());
    std::vector<float> want_scales(bw_scale_count(g, s.rows, s.k));
    bw_quantize_ref_f32(in.data(), s.rows, s.k, g, want_data.data(), want_scales.data());
    std::vector<uint8_t> poisoned_data(in.size(), 0xAB), poisoned_scales(want_scales.size() * 4, 0xAB);
    CHECK(compare(poisoned_data, want_data).count > in.size() / 2);
    CHECK(compare(poisoned_scales, as_bytes(want_scales)).count > poisoned_scales.size() / 2);
  }
}

int main(int argc, char** argv) {
  GpuInfo info;
  Arch arch;
  const int skip = gpu_test_start(argc, argv, info, arch, [](Arch) { return std::string(); });
  return skip >= 0 ? skip : Catch::Session().run(argc, argv);
}
