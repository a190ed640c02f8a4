// mx_quant_bench: the MXFP8 quantizer's bandwidth against a device-to-device cudaMemcpy in the same run.
//   build/mx_quant_bench [--sizes "8192 16384"] [--rule rceil|floor] [--input bf16|f32] [--seconds S]
// For each size S the operand is S x S. Bytes moved: the quantizer reads S*S*sizeof(input) and writes S*S
// data bytes plus the scale tensor; the copy reads and writes S*S*sizeof(input) bytes (a copy of the input).
// Both are timed by the series' method (common/timing.h: warm-up, alternating rounds of the two sides,
// medians, NVML clock and power per side), on input copies that together exceed twice the L2. Before timing,
// the first 256 rows of the GPU's output are checked byte for byte against the CPU reference.
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
#include "mxfp8/mx_quant_gpu.h"

using namespace gemm;

namespace {

int usage(const char* msg) {
  std::fprintf(stderr,
               "error: %s\nusage: mx_quant_bench [--sizes \"8192 16384\"] [--rule rceil|floor] "
               "[--input bf16|f32] [--seconds S]\n",
               msg);
  return EXIT_BAD_INPUT;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int64_t> sizes = {8192, 16384};
  MxRule rule                = MxRule::Rceil;
  MxInput input              = MxInput::Bf16;
  double seconds             = 2.0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return usage(("missing value after " + a).c_str());
    const std::string v = argv[++i];
    if (a == "--sizes") {
      sizes.clear();
      std::istringstream ss(v);
      for (int64_t s; ss >> s;) sizes.push_back(s);
      if (sizes.empty()) return usage("--sizes needs at least one size");
    } else if (a == "--rule") {
      if (v != "rceil" && v != "floor") return usage("--rule takes rceil or floor");
      rule = v == "rceil" ? MxRule::Rceil : MxRule::Floor;
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
  for (int64_t s : sizes) {
    const std::string err = mx_check_shape(s, s);
    if (!err.empty()) return usage(err.c_str());
  }

  GpuInfo info;
  Arch arch              = Arch::Sm90;
  const std::string none = detect_gpu(info, arch);
  if (!none.empty()) {
    std::printf("no suitable GPU: %s\n", none.c_str());
    return EXIT_NO_GPU_HERE;
  }
  std::printf("%s\n", describe_gpu(info).c_str());
  std::printf("MXFP8 quantizer, %s input, rule %s; power limit %d W\n",
              input == MxInput::Bf16 ? "bf16" : "fp32", mx_rule_name(rule), nvml::power_limit_w());
  const size_t in_elem = input == MxInput::Bf16 ? 2 : 4;

  std::printf("%-7s | %-9s %-8s | %-9s %-8s | %-6s | %s\n", "size", "quant ms", "GB/s", "copy ms", "GB/s",
              "ratio", "SM clock (quant / copy), power");
  std::vector<std::string> rows_out;
  for (int64_t s : sizes) {
    const uint64_t n           = uint64_t(s) * uint64_t(s);
    const uint64_t in_bytes    = n * in_elem;
    const uint64_t scale_bytes = mx_scale_tensor_bytes(s, s);
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

    // Check the first 256 rows (their scales are the first 256 * K/32 bytes of the blocked layout).
    {
      const std::string err = mx_quantize_gpu(in[0], input, s, s, rule, data[0], scales[0], nullptr);
      if (!err.empty()) return usage(err.c_str());
      CUDA_CHECK(cudaDeviceSynchronize());
      const int64_t rows = std::min<int64_t>(s, 256);
      std::vector<uint8_t> host_in(size_t(rows * s) * in_elem), got_data(size_t(rows * s)),
          got_scales(mx_scale_tensor_bytes(rows, s)), want_data(got_data.size()),
          want_scales(got_scales.size());
      CUDA_CHECK(cudaMemcpy(host_in.data(), in[0], host_in.size(), cudaMemcpyDeviceToHost));
      CUDA_CHECK(cudaMemcpy(got_data.data(), data[0], got_data.size(), cudaMemcpyDeviceToHost));
      CUDA_CHECK(cudaMemcpy(got_scales.data(), scales[0], got_scales.size(), cudaMemcpyDeviceToHost));
      if (input == MxInput::Bf16)
        mx_quantize_ref_bf16(reinterpret_cast<const uint16_t*>(host_in.data()), rows, s, rule,
                             want_data.data(), want_scales.data());
      else
        mx_quantize_ref_f32(reinterpret_cast<const float*>(host_in.data()), rows, s, rule, want_data.data(),
                            want_scales.data());
      if (got_data != want_data || got_scales != want_scales) {
        std::printf(
            "FAIL: size %lld: the GPU quantizer differs from the CPU reference in the first %lld rows\n",
            (long long)s, (long long)rows);
        return EXIT_FAIL;
      }
    }

    std::vector<Launch> quant, copy;
    for (int c = 0; c < copies; ++c) {
      quant.push_back([=](cudaStream_t st) {
        const std::string err = mx_quantize_gpu(in[c], input, s, s, rule, data[c], scales[c], st);
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
    std::printf("RESULT|mx_quant|%lld|%s|%s|quant_gbs=%.1f|copy_gbs=%.1f|ratio=%.4f|rounds=%d\n",
                (long long)s, input == MxInput::Bf16 ? "bf16" : "f32", mx_rule_name(rule), quant_gbs,
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
