// GPU test of the MXFP8 quantizer (mxfp8/mx_quant.cu): its data and blocked scales equal the CPU reference
// (mxfp8/mx_quant.h) byte for byte, padding included, on random normal inputs with outlier rows and
// special values, under both rules, from bf16 and fp32, at shapes with and without layout padding.
// Outputs are poisoned before each run, so an unwritten byte fails. Skipped (GEMM_SKIP_CODE) without an
// sm_90 / sm_100 GPU.
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
#include "mxfp8/mx_quant_gpu.h"

using namespace gemm;

namespace {

uint16_t bf16_bits_rn(float f) {  // fp32 -> bf16, round to nearest even (inputs here are finite or NaN)
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return uint16_t((u >> 16) | 0x40);
  return uint16_t((u + 0x7FFFu + ((u >> 16) & 1)) >> 16);
}

// Random normal values with outlier rows, outlier elements, tiny rows, and special blocks: NaN, +-Inf, all
// zeros, all -0, bf16/fp32 subnormals, amax exactly 448, amax 480 (saturates under FLOOR), the largest
// bf16. Rounded to bf16 when `bf16` (so both input types see the same kinds of values).
std::vector<float> make_input(int64_t rows, int64_t k, uint64_t seed, bool bf16) {
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
  const int64_t blocks = rows * (k / 32);
  auto block           = [&](int64_t b) { return in.data() + b * 32; };
  const float big_bf16 = bf16_bits_to_float(0x7F7F);
  for (int64_t b = 0; b < blocks; ++b) {
    float* v = block(b);
    switch ((b * 7 + int64_t(seed % 5)) % 53) {
      case 0:
        v[b % 32] = NAN;
        break;
      case 1:
        v[(b + 3) % 32] = INFINITY;
        break;
      case 2:
        v[0] = -INFINITY;
        break;
      case 3:
        for (int i = 0; i < 32; ++i) v[i] = 0.0f;
        break;
      case 4:
        for (int i = 0; i < 32; ++i) v[i] = -0.0f;
        break;
      case 5:
        for (int i = 0; i < 32; ++i) v[i] = std::ldexp(v[i], -128);
        break;  // subnormals (fp32, bf16)
      case 6:
        v[5] = 448.0f;
        for (int i = 0; i < 32; ++i) v[i] = std::fmin(std::fmax(v[i], -448.0f), 448.0f);
        break;
      case 7:
        v[9] = -480.0f;
        break;
      case 8:
        v[31] = big_bf16;
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
// No padding (rows % 128 == 0, K/32 % 4 == 0), and padded ones: rows not a multiple of 128, K/32 not a
// multiple of 4 (the byte-store path of the scales), a single block, a row count that leaves a partial warp.
const Shape SHAPES[] = {{128, 128},  {1, 32},      {130, 96},    {257, 160}, {1000, 4096},
                        {333, 2080}, {4096, 1024}, {2048, 4096}, {77, 1056}, {3, 32 * 33}};

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

}  // namespace

TEST_CASE("the GPU quantizer equals the CPU reference byte for byte, padding included") {
  for (const Shape& s : SHAPES)
    for (MxInput input : {MxInput::Bf16, MxInput::F32})
      for (MxRule rule : {MxRule::Rceil, MxRule::Floor}) {
        const bool bf16             = input == MxInput::Bf16;
        const uint64_t seed         = test_seed() + uint64_t(s.rows * 131 + s.k);
        const std::vector<float> in = make_input(s.rows, s.k, seed, bf16);
        const size_t n              = in.size();
        const uint64_t scale_bytes  = mx_scale_tensor_bytes(s.rows, s.k);
        // The reference.
        std::vector<uint8_t> want_data(n), want_scales(scale_bytes);
        std::vector<uint16_t> in_bf16;
        if (bf16) {
          in_bf16.resize(n);
          for (size_t i = 0; i < n; ++i) in_bf16[i] = bf16_bits_rn(in[i]);
          mx_quantize_ref_bf16(in_bf16.data(), s.rows, s.k, rule, want_data.data(), want_scales.data());
        } else {
          mx_quantize_ref_f32(in.data(), s.rows, s.k, rule, want_data.data(), want_scales.data());
        }
        // The GPU, into poisoned buffers.
        void *d_in, *d_data, *d_scales;
        const size_t in_bytes = bf16 ? n * 2 : n * 4;
        CUDA_CHECK(cudaMalloc(&d_in, in_bytes));
        CUDA_CHECK(cudaMalloc(&d_data, n));
        CUDA_CHECK(cudaMalloc(&d_scales, scale_bytes));
        CUDA_CHECK(cudaMemcpy(d_in, bf16 ? static_cast<const void*>(in_bf16.data()) : in.data(), in_bytes,
                              cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemset(d_data, 0xAB, n));
        CUDA_CHECK(cudaMemset(d_scales, 0xAB, scale_bytes));
        const std::string err = mx_quantize_gpu(d_in, input, s.rows, s.k, rule, d_data, d_scales, nullptr);
        REQUIRE(err.empty());
        CUDA_CHECK(cudaDeviceSynchronize());
        std::vector<uint8_t> got_data(n), got_scales(scale_bytes);
        CUDA_CHECK(cudaMemcpy(got_data.data(), d_data, n, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(got_scales.data(), d_scales, scale_bytes, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaFree(d_in));
        CUDA_CHECK(cudaFree(d_data));
        CUDA_CHECK(cudaFree(d_scales));

        const Mismatch md = compare(got_data, want_data), ms = compare(got_scales, want_scales);
        size_t nan_blocks = 0, zero_scales = 0;
        for (uint8_t b : want_scales) nan_blocks += b == E8M0_NAN, zero_scales += b == 0;
        std::printf(
            "rows=%lld K=%lld %s %s seed=%llu: %zu data and %zu scale bytes differ (%zu NaN blocks, "
            "%zu scale bytes 0x00)\n",
            (long long)s.rows, (long long)s.k, bf16 ? "bf16" : "fp32", mx_rule_name(rule),
            (unsigned long long)seed, md.count, ms.count, nan_blocks, zero_scales);
        INFO("rows=" << s.rows << " K=" << s.k << (bf16 ? " bf16 " : " fp32 ") << mx_rule_name(rule)
                     << " seed=" << seed);
        INFO("first data mismatch at " << md.first << ": got " << md.got << " want " << md.want);
        INFO("first scale mismatch at " << ms.first << ": got " << ms.got << " want " << ms.want);
        CHECK(md.count == 0);
        CHECK(ms.count == 0);
      }
}

TEST_CASE("the comparison fails a quantizer that writes nothing") {
  // The poison is what makes unwritten bytes fail: the untouched buffers differ from the reference.
  const Shape s               = {130, 96};
  const std::vector<float> in = make_input(s.rows, s.k, test_seed(), false);
  std::vector<uint8_t> want_data(in.size()), want_scales(mx_scale_tensor_bytes(s.rows, s.k));
  mx_quantize_ref_f32(in.data(), s.rows, s.k, MxRule::Rceil, want_data.data(), want_scales.data());
  std::vector<uint8_t> poisoned_data(in.size(), 0xAB), poisoned_scales(want_scales.size(), 0xAB);
  CHECK(compare(poisoned_data, want_data).count > in.size() / 2);
  CHECK(compare(poisoned_scales, want_scales).count == want_scales.size());
}

int main(int argc, char** argv) {
  GpuInfo info;
  Arch arch;
  const int skip = gpu_test_start(argc, argv, info, arch, [](Arch) { return std::string(); });
  return skip >= 0 ? skip : Catch::Session().run(argc, argv);
}
