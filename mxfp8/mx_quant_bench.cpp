// mx_quant_bench: a quantizer's bandwidth against a device-to-device cudaMemcpy in the same run: the MXFP8
// quantizer (--format mx, the default: mxfp8/mx_quant.cu) or the 1x128 / 128x128 block quantizers with fp32
// scales (--format 1x128 | 128x128: mxfp8/bw_quant.cu).
//   build/mx_quant_bench [--format mx|1x128|128x128] [--sizes "8192 16384"] [--rule rceil|floor] \
//                        [--input bf16|f32] [--seconds S]
// (--rule is the MX scale rule; the block quantizers have one rule, fp32 amax / 448.)
// For each size S the operand is S x S. Bytes moved: the quantizer reads S*S*sizeof(input) and writes S*S
// data bytes plus the scale tensor; the copy reads and writes S*S*sizeof(input) bytes (a copy of the input).
// Both are timed by the series' method (common/timing.h: warm-up, alternating rounds of the two sides,
// medians, NVML clock and power per side), on input copies that together exceed twice the L2. Before timing,
// the first 256 rows of the GPU's output (data and their scales) are checked byte for byte against the CPU
// reference.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "common/check.h"
#include "common/gpu.h"
#include "common/problem.h"
#include "common/reference.h"
#include "common/timing.h"
#include "mxfp8/bw_quant_gpu.h"
#include "mxfp8/mx_quant_gpu.h"

using namespace gemm;

namespace {

int usage(const char* msg) {
  std::fprintf(stderr,
               "error: %s\nusage: mx_quant_bench [--format mx|1x128|128x128] [--sizes \"8192 16384\"] "
               "[--rule rceil|floor] [--input bf16|f32] [--seconds S]\n",
               msg);
  return EXIT_BAD_INPUT;
}

enum class Format { Mx, Row1x128, Block128x128 };

// The first `rows` rows of the MX quantizer's output against the CPU reference of those rows: data and scales
// byte for byte (the blocked layout stores their scales first: rows is 256, or all of them).
bool mx_matches_reference(const void* in, MxInput input, int64_t s, int64_t rows, MxRule rule,
                          const void* data, const void* scales) {
  const size_t in_elem = input == MxInput::Bf16 ? 2 : 4;
  std::vector<uint8_t> host_in(size_t(rows * s) * in_elem), got_data(size_t(rows * s)),
      got_scales(mx_scale_tensor_bytes(rows, s)), want_data(got_data.size()), want_scales(got_scales.size());
  CUDA_CHECK(cudaMemcpy(host_in.data(), in, host_in.size(), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(got_data.data(), data, got_data.size(), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(got_scales.data(), scales, got_scales.size(), cudaMemcpyDeviceToHost));
  if (input == MxInput::Bf16)
    mx_quantize_ref_bf16(reinterpret_cast<const uint16_t*>(host_in.data()), rows, s, rule, want_data.data(),
                         want_scales.data());
  else
    mx_quantize_ref_f32(reinterpret_cast<const float*>(host_in.data()), rows, s, rule, want_data.data(),
                        want_scales.data());
  return got_data == want_data && got_scales == want_scales;
}

// The first `rows` rows of a block quantizer's output (all scales copied back) against the CPU reference of
// those rows: data byte for byte, and each of their blocks' scales at its index in both layouts (the 1x128
// column stride depends on the row count).
bool bw_matches_reference(const void* in, MxInput input, int64_t s, int64_t rows, BwGranularity g,
                          const void* data, const float* scales) {
  const size_t in_elem = input == MxInput::Bf16 ? 2 : 4;
  std::vector<uint8_t> host_in(size_t(rows * s) * in_elem), got_data(size_t(rows * s)),
      want_data(got_data.size());
  std::vector<float> got_scales(bw_scale_count(g, s, s)), want_scales(bw_scale_count(g, rows, s));
  CUDA_CHECK(cudaMemcpy(host_in.data(), in, host_in.size(), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(got_data.data(), data, got_data.size(), cudaMemcpyDeviceToHost));
  CUDA_CHECK(
      cudaMemcpy(got_scales.data(), scales, got_scales.size() * sizeof(float), cudaMemcpyDeviceToHost));
  if (input == MxInput::Bf16)
    bw_quantize_ref_bf16(reinterpret_cast<const uint16_t*>(host_in.data()), rows, s, g, want_data.data(),
                         want_scales.data());
  else
    bw_quantize_ref_f32(reinterpret_cast<const float*>(host_in.data()), rows, s, g, want_data.data(),
                        want_scales.data());
  if (got_data != want_data) return false;
  for (int64_t r = 0; r < rows; r += g == BwGranularity::Row1x128 ? 1 : BW_BLOCK)
    for (int64_t c = 0; c < s; c += BW_BLOCK)
      if (bw_bits_from_float(got_scales[bw_element_scale_index(g, r, c, s, s)]) !=
          bw_bits_from_float(want_scales[bw_element_scale_index(g, r, c, rows, s)]))
        return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int64_t> sizes = {8192, 16384};
  Format format              = Format::Mx;
  bool rule_given            = false;
  MxRule rule                = MxRule::Rceil;
  MxInput input              = MxInput::Bf16;
  double seconds             = 2.0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return usage(("missing value after " + a).c_str());
    const std::string v = argv[++i];
    if (a == "--format") {
      if (v != "mx" && v != "1x128" && v != "128x128") return usage("--format takes mx, 1x128 or 128x128");
      format = v == "mx" ? Format::Mx : v == "1x128" ? Format::Row1x128 : Format::Block128x128;
    } else if (a == "--sizes") {
      sizes.clear();
      std::istringstream ss(v);
      for (int64_t s; ss >> s;) sizes.push_back(s);
      if (sizes.empty()) return usage("--sizes needs at least one size");
    } else if (a == "--rule") {
      if (v != "rceil" && v != "floor") return usage("--rule takes rceil or floor");
      rule       = v == "rceil" ? MxRule::Rceil : MxRule::Floor;
      rule_given = true;
    } else if (a == "--input") {
      if (v != "bf16" && v != "f32") return usage("--input takes bf16 or f32");
      input = v == "bf16" ? MxInput::Bf16 : MxInput::F32;
    } else if (a == "--seconds") {
      seconds = std::atof(v.c_str());
      if (!(seconds > 0)) return usage("--seconds must be > 0");
    } else {
      return usage(("unknown option " + a).c_str());
    }
  }
  const BwGranularity granularity =
      format == Format::Row1x128 ? BwGranularity::Row1x128 : BwGranularity::Block128x128;
  if (format != Format::Mx && rule_given)
    return usage("--rule applies to --format mx only (the 1x128 and 128x128 scales are fp32 amax / 448)");
  for (int64_t s : sizes) {
    const std::string err = format == Format::Mx ? mx_check_shape(s, s) : bw_check_shape(s, s);
    if (!err.empty()) return usage(err.c_str());
  }
  // One launch of the chosen quantizer: "" or why it refused.
  auto quantize = [&](const void* in, int64_t s, void* data, void* scales, cudaStream_t st) {
    return format == Format::Mx
               ? mx_quantize_gpu(in, input, s, s, rule, data, scales, st)
               : bw_quantize_gpu(in, input, s, s, granularity, data, static_cast<float*>(scales), st);
  };

  GpuInfo info;
  Arch arch              = Arch::Sm90;
  const std::string none = detect_gpu(info, arch);
  if (!none.empty()) {
    std::printf("no suitable GPU: %s\n", none.c_str());
    return EXIT_NO_GPU_HERE;
  }
  std::printf("%s\n", describe_gpu(info).c_str());
  if (format == Format::Mx)
    std::printf("MXFP8 quantizer, %s input, rule %s; power limit %d W\n",
                input == MxInput::Bf16 ? "bf16" : "fp32", mx_rule_name(rule), nvml::power_limit_w());
  else
    std::printf("block quantizer %s (fp32 scales, cuBLASLt %s layout), %s input; power limit %d W\n",
                bw_granularity_name(granularity),
                format == Format::Row1x128 ? "VEC128_32F" : "BLK128x128_32F",
                input == MxInput::Bf16 ? "bf16" : "fp32", nvml::power_limit_w());
  const size_t in_elem = input == MxInput::Bf16 ? 2 : 4;

  std::printf("%-7s | %-9s %-8s | %-9s %-8s | %-6s | %s\n", "size", "quant ms", "GB/s", "copy ms", "GB/s",
              "ratio", "SM clock (quant / copy), power");
  std::vector<std::string> rows_out;
  for (int64_t s : sizes) {
    const uint64_t n        = uint64_t(s) * uint64_t(s);
    const uint64_t in_bytes = n * in_elem;
    const uint64_t scale_bytes =
        format == Format::Mx ? mx_scale_tensor_bytes(s, s) : bw_scale_tensor_bytes(granularity, s, s);
    // Enough input copies to exceed twice the L2, so no launch finds its input there.
    const int copies = int(std::max<uint64_t>(1, (2 * info.l2_bytes + in_bytes - 1) / in_bytes + 1));
    std::vector<void*> in(copies), data(copies), scales(copies), copy_dst(copies);
    for (int c = 0; c < copies; ++c) {
      CUDA_CHECK(cudaMalloc(&in[c], in_bytes));
      CUDA_CHECK(cudaMalloc(&data[c], n));
      CUDA_CHECK(cudaMalloc(&scales[c], scale_bytes));
      CUDA_CHECK(cudaMalloc(&copy_dst[c], in_bytes));
      // Random values in [-1, 1) (never time on zeros); for fp32, pairs of random bf16 read as one fp32 (its
      // top half is a bf16 in [-1, 1), so it is finite and in [-1, 1) too).
      fill_random_bf16(in[c], input == MxInput::Bf16 ? n : 2 * n, 1000 + c, nullptr);
    }
    CUDA_CHECK(cudaDeviceSynchronize());

    // Check the first 256 rows against the CPU reference.
    {
      const std::string err = quantize(in[0], s, data[0], scales[0], nullptr);
      if (!err.empty()) return usage(err.c_str());
      CUDA_CHECK(cudaDeviceSynchronize());
      const int64_t rows = std::min<int64_t>(s, 256);
      const bool same    = format == Format::Mx
                               ? mx_matches_reference(in[0], input, s, rows, rule, data[0], scales[0])
                               : bw_matches_reference(in[0], input, s, rows, granularity, data[0],
                                                      static_cast<float*>(scales[0]));
      if (!same) {
        std::printf(
            "FAIL: size %lld: the GPU %s quantizer differs from the CPU reference in the first %lld rows\n",
            (long long)s, format == Format::Mx ? "MXFP8" : bw_granularity_name(granularity), (long long)rows);
        return EXIT_FAIL;
      }
    }

    std::vector<Launch> quant, copy;
    for (int c = 0; c < copies; ++c) {
      quant.push_back([=](cudaStream_t st) {
        const std::string err = quantize(in[c], s, data[c], scales[c], st);
        if (!err.empty()) {
          std::fprintf(stderr, "error: %s\n", err.c_str());
          std::exit(EXIT_FAIL);
        }
      });
      copy.push_back([=](cudaStream_t st) {
        CUDA_CHECK(cudaMemcpyAsync(copy_dst[c], in[c], in_bytes, cudaMemcpyDeviceToDevice, st));
      });
    }
    TimingPlan plan;
    plan.min_seconds      = seconds;
    const PairedTiming t  = time_paired(copy, quant, plan);
    const double quant_ms = t.kernel.launch_ms.median, copy_ms = t.ref.launch_ms.median;
    const double quant_gbs = double(in_bytes + n + scale_bytes) / (quant_ms * 1e6);
    const double copy_gbs  = double(2 * in_bytes) / (copy_ms * 1e6);
    char line[256];
    std::snprintf(line, sizeof line,
                  "%-7lld | %-9.4f %-8.0f | %-9.4f %-8.0f | %-6.3f | %.0f / %.0f MHz, %.0f W", (long long)s,
                  quant_ms, quant_gbs, copy_ms, copy_gbs, quant_gbs / copy_gbs, t.kernel.sm_clock_mhz.median,
                  t.ref.sm_clock_mhz.median, t.kernel.power_w.median);
    std::printf("%s\n", line);
    std::printf("RESULT|%s|%lld|%s|%s|quant_gbs=%.1f|copy_gbs=%.1f|ratio=%.4f|rounds=%d\n",
                format == Format::Mx ? "mx_quant" : "bw_quant", (long long)s,
                input == MxInput::Bf16 ? "bf16" : "f32",
                format == Format::Mx ? mx_rule_name(rule) : bw_granularity_name(granularity), quant_gbs,
                copy_gbs, quant_gbs / copy_gbs, t.ratio.count);
    for (int c = 0; c < copies; ++c) {
      CUDA_CHECK(cudaFree(in[c]));
      CUDA_CHECK(cudaFree(data[c]));
      CUDA_CHECK(cudaFree(scales[c]));
      CUDA_CHECK(cudaFree(copy_dst[c]));
    }
  }
  return EXIT_PASS;
}
