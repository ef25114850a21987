// slaw-sim's command line and workload specifications: what is accepted, and that bad input is an
// error naming the option and the accepted values.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <vector>

#include "../support/input_guard.hpp"
#include "options_test_util.hpp"
#include "sim/options.hpp"
#include "sim/workloads.hpp"

using namespace slaw::sim;
using simtest::error_of;
using simtest::parse;

namespace {

std::string gen_error(const std::string& spec) {
  try {
    make_workload(spec);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

using list = std::vector<std::uint32_t>;

}  // namespace

TEST(SimOptions, WorkerLists) {
  EXPECT_EQ(parse_workers("1,2,4"), (list{1, 2, 4}));
  EXPECT_EQ(parse_workers("1-5"), (list{1, 2, 3, 4, 5}));
  EXPECT_EQ(parse_workers("1-64*2"), (list{1, 2, 4, 8, 16, 32, 64}));
  EXPECT_EQ(parse_workers("8-32+8,1"), (list{1, 8, 16, 24, 32}));
  EXPECT_EQ(parse_workers("1024"), (list{1024}));
  EXPECT_EQ(parse_workers("1-256").size(), 256u);
}

TEST(SimOptions, BadWorkerListsNameTheAcceptedForms) {
  for (const char* bad : {"0", "1025", "x", "4-2", "1-8*1", "1-", "", "2,,3", "-3"}) {
    std::string e;
    try {
      parse_workers(bad);
    } catch (const usage_error& u) {
      e = u.what();
    }
    EXPECT_NE(e.find("--workers"), std::string::npos) << bad;
    EXPECT_NE(e.find("[1, 1024]"), std::string::npos) << bad;
  }
}

TEST(SimOptions, RowsPerPolicyAndQuota) {
  options o = parse({"--gen", "fib:10", "--policy", "wf,hf,dyn", "--scheduler", "ws,dfdeques", "--K", "4096,inf"});
  ASSERT_EQ(o.rows.size(), 5u);
  EXPECT_EQ(o.rows[0].tag, "wf");
  EXPECT_EQ(o.rows[3].tag, "dfd(K=4096)");
  EXPECT_EQ(o.rows[4].quota, 0u);
  EXPECT_EQ(o.rows[4].tag, "dfd(K=inf)");
}

TEST(SimOptions, CostsFromAModelAndOverrides) {
  options o = parse({"--gen", "fib:10", "--costs", "slaw-java", "--cost", "steal=999"});
  EXPECT_DOUBLE_EQ(o.c.steal, 999.0);
  EXPECT_GT(o.c.suspend, 100.0);
  options b = parse({"--gen", "fib:10", "--costs", "burdened"});
  EXPECT_DOUBLE_EQ(b.c.steal, 15000.0 / 2.3);
}

TEST(SimOptions, BadOptionsNameTheOptionAndTheAcceptedValues) {
  EXPECT_NE(error_of({"--gen", "fib:10", "--policy", "fast"}).find("accepted: wf, hf, dyn"), std::string::npos);
  EXPECT_NE(error_of({"--gen", "fib:10", "--scheduler", "x"}).find("accepted: ws, dfdeques"), std::string::npos);
  EXPECT_NE(error_of({"--gen", "fib:10", "--scheduler", "dfdeques", "--K", "0"}).find("bytes 1 .. 2^62, or inf"),
            std::string::npos);
  EXPECT_NE(error_of({"--gen", "fib:10", "--K", "4096"}).find("--K applies to --scheduler dfdeques"), std::string::npos);
  EXPECT_NE(error_of({"--gen", "fib:10", "--costs", "nope"}).find("measured, burdened, slaw-java, unit"), std::string::npos);
  EXPECT_NE(error_of({"--gen", "fib:10", "--cost", "spawn=3"}).find("accepted: call, spawn_wf"), std::string::npos);
  EXPECT_NE(error_of({"--gen", "fib:10", "--cost", "probe=0"}).find("must be > 0"), std::string::npos);
  EXPECT_NE(error_of({"--gen", "fib:10", "--S", "0"}).find("--S '0'"), std::string::npos);
  EXPECT_NE(error_of({"--gen", "fib:10", "--seed"}).find("missing its value"), std::string::npos);
  EXPECT_NE(error_of({"--gen", "fib:10", "--what-if", "eager"}).find("expose-after-request=N"), std::string::npos);
  EXPECT_EQ(parse({"--gen", "fib:10"}).what.expose_after_request, slaw::policy::expose_window);  // the runtime's
  EXPECT_EQ(parse({"--gen", "fib:10"}).what.expose_min_thieves, slaw::policy::expose_min_thieves);
  EXPECT_EQ(parse({"--gen", "fib:10", "--what-if", "expose-after-request=0"}).what.expose_after_request, 0u);
  EXPECT_NE(error_of({"--gen", "fib:10", "--what-if", "expose-after-request=-1"}).find("[0, "), std::string::npos);
  EXPECT_EQ(parse({"--gen", "fib:10", "--what-if", "expose-after-request=8,expose-min-thieves=3"}).what.expose_min_thieves, 3u);
  EXPECT_NE(error_of({"--gen", "fib:10", "--what-if", "expose-min-thieves=32"}).find("[1, 31]"), std::string::npos);
  EXPECT_NE(error_of({"--frobnicate"}).find("unknown option '--frobnicate'"), std::string::npos);
  EXPECT_NE(error_of({"--workers", "4"}).find("--gen or --dag is required"), std::string::npos);
  EXPECT_NE(error_of({"--gen", "fib:10", "--dag", "fib.dag"}).find("give one of the two, not both"), std::string::npos);
  EXPECT_EQ(parse({"--dag", "fib.dag", "--workers", "1-256"}).dag, "fib.dag");  // read when the run starts
}

TEST(SimOptions, BadWorkloadsNameTheWorkloadsOrTheSyntax) {
  EXPECT_NE(gen_error("fibonacci:3").find("accepted: fib, fj, fj-rec"), std::string::npos);
  EXPECT_NE(gen_error("fib").find("fib:N"), std::string::npos);
  EXPECT_NE(gen_error("fib:x").find("an integer in [0, 60]"), std::string::npos);
  EXPECT_NE(gen_error("fib:10,colour=red").find("unknown key 'colour'; accepted: frame, leaf, node"), std::string::npos);
  EXPECT_NE(gen_error("fj:10,reps=0").find("reps='0'"), std::string::npos);
  EXPECT_NE(gen_error("skynet:99").find("a power of 10"), std::string::npos);
  EXPECT_NE(gen_error("uts:T2").find("T1, T3, T1L or T3L"), std::string::npos);
  EXPECT_NE(gen_error("fib:10,node").find("not KEY=VALUE"), std::string::npos);
  EXPECT_NE(gen_error("dc:4,jitter=2").find("jitter='2'"), std::string::npos);
}

// A --costs file is read with a size limit, only from a regular file or a pipe, and must set each key
// at most once and at least one: /dev/zero and an empty file used to run with the default costs and exit
// 0. A --cost key given twice, and a K the quota's signed byte count cannot hold, are errors too.
TEST(SimOptions, CostFilesAreBoundedAndComplete) {
  const slaw_test::watchdog dog("SimOptions.CostFilesAreBoundedAndComplete", "/dev/zero read whole", 60);
  const slaw_test::address_space_limit limit(std::size_t{512} << 20);
  auto with_file = [](const std::string& text) {
    char path[] = "/tmp/slaw_sim_costs_XXXXXX";
    const int fd = mkstemp(path);
    if (fd >= 0) close(fd);
    std::ofstream(path) << text;
    const std::string e = error_of({"--gen", "fib:10", "--costs", path});
    std::remove(path);
    return e;
  };
  EXPECT_NE(error_of({"--gen", "fib:10", "--costs", "/dev/zero"}).find("'/dev/zero': not a regular file"), std::string::npos)
      << error_of({"--gen", "fib:10", "--costs", "/dev/zero"});
  EXPECT_NE(error_of({"--gen", "fib:10", "--costs", "/tmp"}).find("'/tmp': is a directory"), std::string::npos);
  EXPECT_NE(with_file("").find("sets no cost"), std::string::npos);
  EXPECT_NE(with_file("# comments only\n").find("sets no cost"), std::string::npos);
  const std::string twice = with_file("wake=1\nprobe=2\nwake=3\n");
  EXPECT_NE(twice.find(":3: cost 'wake' is set twice (first on line 1)"), std::string::npos) << twice;
  EXPECT_EQ(with_file("wake=1\nprobe=2\n"), "");
  EXPECT_NE(error_of({"--gen", "fib:10", "--cost", "wake=1", "--cost", "wake=2"}).find("--cost 'wake' is given twice"),
            std::string::npos);
  EXPECT_NE(error_of({"--gen", "fib:10", "--scheduler", "dfdeques", "--K", "18446744073709551615"}).find("2^62"),
            std::string::npos);
  EXPECT_EQ(error_of({"--gen", "fib:10", "--scheduler", "dfdeques", "--K", "4611686018427387904"}), "");  // 2^62
}
