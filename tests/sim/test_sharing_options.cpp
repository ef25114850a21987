// slaw-sim's options for several jobs (--jobs, --cores, --arbiter, --desire, ...): what is accepted,
// bad values rejected naming the option and the accepted values, and the command's CSV reports.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "options_test_util.hpp"
#include "sim/options.hpp"
#include "sim/run_jobs.hpp"

using namespace slaw::sim;
using simtest::error_of;
using simtest::parse;

namespace {

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream f(path);
  std::vector<std::string> out;
  for (std::string l; std::getline(f, l);) out.push_back(l);
  return out;
}

constexpr time_ps ms = 1'000'000'000;

}  // namespace

TEST(SimSharingOptions, JobListsWithArrivalTimes) {
  const options o = parse({"--jobs", "fib:10;fj:100,reps=2@1.5ms;uts:T3@2s;dc:4@250us", "--cores", "8"});
  const job_list_spec& s = o.job_list;
  ASSERT_FALSE(s.poisson);
  ASSERT_EQ(s.fixed.size(), 4u);
  EXPECT_EQ(s.fixed[0].gen, "fib:10");
  EXPECT_EQ(s.fixed[0].arrival, 0);
  EXPECT_EQ(s.fixed[1].gen, "fj:100,reps=2");
  EXPECT_EQ(s.fixed[1].arrival, 3 * ms / 2);
  EXPECT_EQ(s.fixed[2].arrival, 2000 * ms);
  EXPECT_EQ(s.fixed[3].arrival, ms / 4);
  EXPECT_EQ(parse_duration("7"), 7 * ms);  // ms without a unit
  EXPECT_EQ(o.cores, (std::vector<std::uint32_t>{8}));
}

TEST(SimSharingOptions, PoissonGeneratorAndConfigurations) {
  const options o = parse({"--jobs", "poisson:16,load=0.5,seed=3;fib:20;nqueens:8", "--cores", "8,64", "--arbiter",
                           "deq,equi,off", "--desire", "adeque,asteal", "--quantum-ms", "5", "--beta", "4", "--rho",
                           "3", "--delta", "0.9", "--timeslice-ms", "2"});
  ASSERT_TRUE(o.job_list.poisson);
  EXPECT_EQ(o.job_list.count, 16u);
  EXPECT_EQ(o.job_list.load, 0.5);
  EXPECT_EQ(o.job_list.seed, 3u);
  EXPECT_EQ(o.job_list.mix, (std::vector<std::string>{"fib:20", "nqueens:8"}));
  EXPECT_EQ(o.cores, (std::vector<std::uint32_t>{8, 64}));
  ASSERT_EQ(o.sharing_rows.size(), 4u);  // deq with each desire rule, then equi and off once each
  EXPECT_EQ(o.sharing_rows[0].tag, "deq+adeque");
  EXPECT_EQ(o.sharing_rows[1].tag, "deq+asteal");
  EXPECT_EQ(o.sharing_rows[1].rule, slaw::policy::desire_rule::asteal);
  EXPECT_EQ(o.sharing_rows[2].tag, "equi");
  EXPECT_EQ(o.sharing_rows[3].arbiter, slaw::policy::arbiter::off);
  EXPECT_EQ(o.quantum_ms, 5.0);
  EXPECT_EQ(o.desire.beta, 4.0);
  EXPECT_EQ(o.desire.rho, 3.0);
  EXPECT_EQ(o.desire.delta, 0.9);
  EXPECT_EQ(o.timeslice_ms, 2.0);
}

TEST(SimSharingOptions, BadValuesNameTheOptionAndTheAcceptedValues) {
  const std::vector<std::string> jobs{"--jobs", "fib:10", "--cores", "4"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> a = jobs;
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> cases = {
      {with({"--arbiter", "fifo"}), {"--arbiter", "'fifo'", "accepted: deq, equi, off"}},
      {with({"--desire", "agreedy"}), {"--desire", "accepted: adeque, asteal"}},
      {with({"--quantum-ms", "0"}), {"--quantum-ms", "(0, 1e+06]"}},
      {with({"--beta", "0.5"}), {"--beta", "[1, 1e+06]"}},
      {with({"--rho", "1"}), {"--rho", "(1, 1e+06]"}},
      {with({"--delta", "1.5"}), {"--delta", "(0, 1]"}},
      {with({"--timeslice-ms", "x"}), {"--timeslice-ms", "a number"}},
      {with({"--self-picks", "maybe"}), {"--self-picks", "accepted: count, skip"}},
      {with({"--workers", "2,4"}), {"--workers", "one count"}},
      {with({"--plot", "x.png"}), {"--plot", "not to --jobs"}},
      {with({"--gen", "fib:10"}), {"--jobs and --gen", "one of the two"}},
      {{"--jobs", "fib:10", "--cores", "0"}, {"--cores", "[1, 1024]"}},
      {{"--jobs", "fib:10"}, {"--jobs needs --cores"}},
      {{"--gen", "fib:10", "--cores", "8"}, {"--cores applies to --jobs only"}},
      {{"--gen", "fib:10", "--arbiter", "deq"}, {"--arbiter applies to --jobs only"}},
      {{"--jobs", "fib:10@x", "--cores", "4"}, {"--jobs", "'x' is not a time", "WORKLOAD[@TIME]"}},
      {{"--jobs", "fibo:10", "--cores", "4"}, {"--jobs", "unknown workload 'fibo'", "fib, fj"}},
      {{"--jobs", "fib:10;;fib:9", "--cores", "4"}, {"an empty item"}},
      {{"--jobs", "poisson:4;fib:10", "--cores", "4"}, {"exactly one of rate= and load="}},
      {{"--jobs", "poisson:4,rate=1,load=2;fib:10", "--cores", "4"}, {"exactly one of rate= and load="}},
      {{"--jobs", "poisson:4,rate=1,foo=2;fib:10", "--cores", "4"}, {"'foo=2'", "rate=R", "load=X", "seed=S"}},
      {{"--jobs", "poisson:0,rate=1;fib:10", "--cores", "4"}, {"job count", "[1, 100000]"}},
      {{"--jobs", "poisson:4,rate=1", "--cores", "4"}, {"no workloads to draw from"}},
      {{"--jobs", "poisson:4,rate=1;fib:10@3", "--cores", "4"}, {"take no @TIME"}},
      {{"--jobs", "poisson:4,rate=1;poisson:2,rate=1;fib:10", "--cores", "4"}, {"two generators"}},
  };
  for (const auto& [args, needles] : cases) {
    const std::string e = error_of(args);
    ASSERT_FALSE(e.empty()) << args[0] << " " << args[1];
    for (const std::string& n : needles) EXPECT_NE(e.find(n), std::string::npos) << e << " lacks " << n;
  }
}

TEST(SimSharingOptions, TheCommandWritesOneLinePerRunJobAndQuantum) {
  const std::string dir = ::testing::TempDir();
  const std::string csv = dir + "sharing_runs.csv", detail = dir + "sharing_jobs.csv", quanta = dir + "sharing_quanta.csv";
  options o = parse({"--jobs", "fib:16,node=20000,leaf=20000;sor:64,iterations=10,blocks=8,cell=3000@4ms", "--cores",
                     "2,4", "--arbiter", "deq,equi,off", "--desire", "adeque,asteal", "--quantum-ms", "2", "--checks",
                     "--csv", csv, "--detail", detail, "--quanta", quanta});
  std::ostringstream out;
  std::streambuf* old = std::cout.rdbuf(out.rdbuf());
  const int rc = run_sharing(o);
  std::cout.rdbuf(old);
  EXPECT_EQ(rc, 0);
  for (const char* needle : {"2 jobs on 4 cores", "deq+adeque", "deq+asteal", "equi", "off", "makespan", "mean_resp",
                             "arrival", "completion", "response"})
    EXPECT_NE(out.str().find(needle), std::string::npos) << needle;
  const std::vector<std::string> runs = lines_of(csv), jobs = lines_of(detail), qs = lines_of(quanta);
  ASSERT_EQ(runs.size(), 1u + 2 * 4);  // 2 core counts x 4 configurations
  EXPECT_EQ(runs[0].rfind("cores,workers,scheduler,arbiter,desire,load,rate_per_s,gen_seed,quantum_ms", 0), 0u);
  EXPECT_NE(runs[0].find("makespan_s,mean_response_s,utilization,efficiency"), std::string::npos);
  ASSERT_EQ(jobs.size(), 1u + 2 * 4 * 2);
  EXPECT_NE(jobs[0].find("arrival_s,completion_s,response_s"), std::string::npos);
  EXPECT_GT(qs.size(), 1u + 2 * 4 * 2);
  EXPECT_NE(qs[0].find("allotment,desire_in_force,next_desire,next_allotment"), std::string::npos);
  std::remove(csv.c_str());
  std::remove(detail.c_str());
  std::remove(quanta.c_str());
}
