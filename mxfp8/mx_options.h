// mx_options.h: the one option matmul_mxfp8 adds to the stages' command line (common/options.h):
// --rule rceil|floor, the scale rule the inputs are quantized with (mxfp8/mx_quant.h).
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "mxfp8/mx_quant.h"  // MxRule

namespace gemm {

// Takes `--rule VALUE` out of argv (the last one wins if repeated) into `rule` and leaves every other
// argument, argv[0] first, in `rest` for parse_options. Returns "" or a message naming the bad value.
inline std::string take_rule_option(int argc, const char* const* argv, MxRule& rule,
                                    std::vector<const char*>& rest) {
  rest.clear();
  for (int i = 0; i < argc; ++i) {
    if (i > 0 && std::strcmp(argv[i], "--rule") == 0) {
      const char* v = i + 1 < argc ? argv[++i] : nullptr;
      if (v != nullptr && std::strcmp(v, "rceil") == 0) {
        rule = MxRule::Rceil;
      } else if (v != nullptr && std::strcmp(v, "floor") == 0) {
        rule = MxRule::Floor;
      } else {
        return std::string("--rule takes rceil (NVIDIA's rule, the default) or floor (OCP MX v1.0), got '") +
               (v ? v : "") + "'";
      }
      continue;
    }
    rest.push_back(argv[i]);
  }
  return "";
}

inline const char* rule_usage() {
  return "  --rule rceil|floor    scale rule of the MXFP8 quantizer (mxfp8/mx_quant.h): rceil (NVIDIA's, the\n"
         "                        default) or floor (OCP MX v1.0)\n";
}

}  // namespace gemm
