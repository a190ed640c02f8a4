// Option parsing and shape validation: every bad value is refused with a message that names it.
#include <catch2/catch.hpp>

#include <vector>

#include "common/options.h"

using gemm::Options;
using gemm::parse_options;

namespace {
std::string parse(std::vector<const char*> args, Options& opt) {
  args.insert(args.begin(), "matmul_v1");
  return parse_options(int(args.size()), args.data(), opt);
}
}  // namespace

TEST_CASE("defaults are 4096^3, all variants, checked") {
  Options opt;
  REQUIRE(parse({}, opt).empty());
  CHECK(opt.m == 4096);
  CHECK(opt.n == 4096);
  CHECK(opt.k == 4096);
  CHECK(opt.variant == "all");
  CHECK(opt.check);
  CHECK_FALSE(opt.seed_given);
  CHECK(opt.iters == 100);  // per side, at least, in rounds of 5 launches, for at least 5 s
  CHECK(opt.round == 5);
  CHECK(opt.seconds == 5.0);
}

TEST_CASE("every option is parsed") {
  Options opt;
  REQUIRE(parse({"--m",      "256",     "--n",    "512",     "--k",        "1024",      "--variant",
                 "v1b",      "--iters", "7",      "--round", "4",          "--seconds", "0.5",
                 "--warmup", "3",       "--seed", "42",      "--no-check", "--csv"},
                opt)
              .empty());
  CHECK(opt.m == 256);
  CHECK(opt.n == 512);
  CHECK(opt.k == 1024);
  CHECK(opt.variant == "v1b");
  CHECK(opt.iters == 7);
  CHECK(opt.round == 4);
  CHECK(opt.seconds == 0.5);
  CHECK(opt.warmup == 3);
  CHECK(opt.seed == 42);
  CHECK(opt.seed_given);
  CHECK_FALSE(opt.check);
  CHECK(opt.csv);
}

TEST_CASE("the --trace option takes a file name") {
  Options opt;
  CHECK(opt.trace.empty());  // off by default: no traced launch
  REQUIRE(parse({"--trace", "out/v4.json"}, opt).empty());
  CHECK(opt.trace == "out/v4.json");
}

TEST_CASE("the cuBLAS-at-its-best option takes a number of heuristic algorithms, off by default") {
  Options opt;
  CHECK(opt.cublas_best == 0);  // the first pick only
  REQUIRE(parse({"--cublas-best", "8"}, opt).empty());
  CHECK(opt.cublas_best == 8);
}

TEST_CASE("the --energy option takes seconds per side and is off by default") {
  Options opt;
  CHECK(opt.energy == 0);  // off: no energy window, no energy fields
  REQUIRE(parse({"--energy", "2"}, opt).empty());
  CHECK(opt.energy == 2.0);
  Options half;
  REQUIRE(parse({"--energy", "0.5", "--cublas-best", "4"}, half).empty());
  CHECK(half.energy == 0.5);
  Options off;
  REQUIRE(parse({"--energy", "0"}, off).empty());
  CHECK(off.energy == 0);
  Options bad;
  CHECK(parse({"--energy", "x"}, bad) == "--energy needs a number of seconds in [0, 600] (0: off), got 'x'");
}

TEST_CASE("the --schedule option picks the emulator's schedules: eager or late or strict or both (every one and the default)") {
  using gemm::schedule_selected;
  const char* const names[] = {"eager", "late", "strict"};
  {
    Options opt;
    REQUIRE(parse({"--emulate"}, opt).empty());
    CHECK(opt.schedule == "both");
    for (const char* s : names) CHECK(schedule_selected(opt.schedule, s));
  }
  for (const char* chosen : names) {
    Options opt;
    INFO("--schedule " << chosen);
    REQUIRE(parse({"--emulate", "--schedule", chosen}, opt).empty());
    CHECK(opt.schedule == chosen);
    for (const char* s : names) CHECK(schedule_selected(opt.schedule, s) == (std::string(s) == chosen));
  }
  {
    Options opt;
    REQUIRE(parse({"--emulate", "--schedule", "both"}, opt).empty());
    for (const char* s : names) CHECK(schedule_selected(opt.schedule, s));
  }
  for (const char* bad : {"all", "Strict", "lazy", ""}) {
    Options opt;
    INFO("--schedule '" << bad << "'");
    const std::string msg = parse({"--emulate", "--schedule", bad}, opt);
    CHECK(msg.find("--schedule needs eager, late, strict or both") != std::string::npos);
  }
  Options missing, without_emulate;
  CHECK(parse({"--emulate", "--schedule"}, missing).find("--schedule") != std::string::npos);
  CHECK(parse({"--schedule", "strict"}, without_emulate) == "--schedule is an option of --emulate");
  CHECK(gemm::usage("matmul_v1").find("strict") != std::string::npos);
}

TEST_CASE("invalid values are refused with a message naming the option") {
  const std::vector<std::vector<const char*>> bad = {{"--m", "0"},
                                                     {"--m", "-128"},
                                                     {"--n", "12x"},
                                                     {"--k", ""},
                                                     {"--k"},
                                                     {"--m", "1e3"},
                                                     {"--n", "99999999"},
                                                     {"--iters", "-1"},
                                                     {"--warmup", "a"},
                                                     {"--seed", "0"},
                                                     {"--round", "0"},
                                                     {"--seconds", "-1"},
                                                     {"--seconds", "1s"},
                                                     {"--seconds", "nan"},
                                                     {"--variant"},
                                                     {"--trace"},
                                                     {"--trace", ""},
                                                     {"--bogus"},
                                                     {"--cublas-best", "0"},
                                                     {"--cublas-best", "65"},
                                                     {"--cublas-best", "8", "--iters", "0"},
                                                     {"--energy", "-1"},
                                                     {"--energy", "2s"},
                                                     {"--energy", "601"},
                                                     {"--energy"},
                                                     {"--energy", "2", "--iters", "0"},
                                                     {"--energy", "2", "--emulate"},
                                                     {"--no-check", "--iters", "0"}};
  for (const auto& args : bad) {
    Options opt;
    const std::string msg = parse(args, opt);
    INFO("args: " << args[0]);
    REQUIRE_FALSE(msg.empty());
    if (std::string(args[0]) != "--no-check") CHECK(msg.find(args[0]) != std::string::npos);
  }
}

TEST_CASE("the option --help is recognised and the usage lists every option") {
  Options opt;
  REQUIRE(parse({"--help"}, opt).empty());
  CHECK(opt.help);
  const std::string u = gemm::usage("matmul_v1");
  for (const char* o :
       {"--m", "--n", "--k", "--variant", "--iters", "--round", "--seconds", "--warmup", "--seed",
        "--no-check", "--csv", "--rounds-log", "--trace", "--cublas-best", "--energy"})
    CHECK(u.find(o) != std::string::npos);
}

TEST_CASE("shapes that are not whole tiles are refused, naming the constraint and a nearby valid value") {
  const gemm::ShapeRule rule{128, 256, 64, "needs whole tiles"};
  CHECK(gemm::check_shape(rule, "v1a", 4096, 4096, 4096).empty());
  CHECK(gemm::check_shape(rule, "v1a", 128, 256, 64).empty());

  const std::string k_msg = gemm::check_shape(rule, "v1a", 4096, 4096, 1000);
  CHECK(k_msg.find("K=1000") != std::string::npos);
  CHECK(k_msg.find("BLOCK_K=64") != std::string::npos);
  CHECK(k_msg.find("try K=1024") != std::string::npos);

  const std::string n_msg = gemm::check_shape(rule, "v1a", 4096, 300, 4096);
  CHECK(n_msg.find("N=300") != std::string::npos);
  CHECK(n_msg.find("try N=256") != std::string::npos);

  const std::string m_msg = gemm::check_shape(rule, "v1b", 100, 4096, 4096);
  CHECK(m_msg.find("M=100") != std::string::npos);
  CHECK(m_msg.find("try M=128") != std::string::npos);  // never below one tile
  CHECK(m_msg.find("v1b") != std::string::npos);
}

TEST_CASE("nearest_multiple rounds to the closest whole tile, at least one") {
  CHECK(gemm::nearest_multiple(1000, 64) == 1024);
  CHECK(gemm::nearest_multiple(1050, 64) == 1024);
  CHECK(gemm::nearest_multiple(1, 128) == 128);
  CHECK(gemm::nearest_multiple(4096, 256) == 4096);
  CHECK(gemm::nearest_multiple(4225, 256) == 4352);
}

TEST_CASE("a stage whose cluster pairs M tiles asks for M in whole pairs, and says so") {
  // v5: the two CTAs of a cluster take adjacent 128-row M tiles, so M must be a multiple of 2*BLOCK_M = 256.
  const gemm::ShapeRule rule{256, 256, 64, "pairs 128-row M tiles in a 2-CTA cluster", "2*BLOCK_M"};
  CHECK(gemm::check_shape(rule, "v5", 256, 256, 64).empty());
  const std::string m_msg = gemm::check_shape(rule, "v5", 384, 4096, 4096);  // whole 128-row tiles, odd count
  INFO(m_msg);
  CHECK(m_msg.find("M=384") != std::string::npos);
  CHECK(m_msg.find("2*BLOCK_M=256") != std::string::npos);
  CHECK(m_msg.find("2-CTA cluster") != std::string::npos);
  CHECK((m_msg.find("try M=256") != std::string::npos || m_msg.find("try M=512") != std::string::npos));
}

TEST_CASE("a decode kernel refuses M above its largest and names the limit but takes M from 1 to 16") {
  // v8s: A's rows are its MMA's N, 16 at most; any N; K a multiple of 8 (the TMA stride rule).
  gemm::ShapeRule rule = gemm::any_mn_shape_rule(2);
  rule.m_max           = 16;
  rule.m_max_why       = "is the decode kernel: A's rows are its MMA's N, 16 at most";
  for (int64_t m : {1, 2, 7, 16}) CHECK(gemm::check_shape(rule, "v8s", m, 28672, 8192).empty());
  const std::string msg = gemm::check_shape(rule, "v8s", 17, 4096, 4096);
  INFO(msg);
  CHECK(msg.find("M=17 is above 16") != std::string::npos);
  CHECK(msg.find("v8s is the decode kernel") != std::string::npos);
  CHECK(gemm::check_shape(rule, "v8s", 0, 4096, 4096).find("below 1") != std::string::npos);
  CHECK(gemm::check_shape(rule, "v8s", 8, 4096, 4100).find("K=4100") != std::string::npos);
}
