// slaw-sim's command line and workload specifications: what is accepted, and that bad input is an
// error naming the option and the accepted values.
#include <gtest/gtest.h>

#include <vector>

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
  EXPECT_NE(error_of({"--gen", "fib:10", "--scheduler", "dfdeques", "--K", "0"}).find("bytes >= 1, or inf"),
            std::string::npos);
  EXPECT_NE(error_of({"--gen", "fib:10", "--K", "4096"}).find("--K applies to --scheduler dfdeques"), std::string::npos);
  EXPECT_NE(error_of({"--gen", "fib:10", "--costs", "nope"}).find("measured, burdened, slaw-java, unit"), std::string::npos);
  EXPECT_NE(error_of({"--gen", "fib:10", "--cost", "spawn=3"}).find("accepted: call, spawn_wf"), std::string::npos);
  EXPECT_NE(error_of({"--gen", "fib:10", "--cost", "probe=0"}).find("must be > 0"), std::string::npos);
  EXPECT_NE(error_of({"--gen", "fib:10", "--S", "0"}).find("--S '0'"), std::string::npos);
  EXPECT_NE(error_of({"--gen", "fib:10", "--seed"}).find("missing its value"), std::string::npos);
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
