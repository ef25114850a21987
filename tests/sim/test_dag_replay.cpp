// Replaying recorded DAGs in the simulator (src/sim/wl_recorded.cpp): a recorded fib is the generated fib
// to the picosecond and the schedule hash, the reader's direct work and span equal the simulator's
// analysis on random programs, and every scheduler passes the engine's checks on them.
#include <gtest/gtest.h>

#include "dag_test_util.hpp"
#include "sim_test_util.hpp"

using namespace dagtest;
using simtest::dfd;
using simtest::violations;
using simtest::ws;
using slaw::policy::mode;
namespace sim = slaw::sim;

namespace {

std::vector<std::pair<std::string, sim::run_config>> configurations(std::uint32_t p) {
  return {{"wf", ws(p, mode::wf)},
          {"hf", ws(p, mode::hf)},
          {"dyn", ws(p, mode::dyn)},
          {"dfd(K=inf)", dfd(p, 0)},
          {"dfd(K=4096)", dfd(p, 4096)}};
}

}  // namespace

// fib(n) recorded with fib:N's strands (node 4 ns: 2 before the finish, 2 after; leaf 3 ns) gives the
// simulator the very same operations as the generator: same time, schedule, counters and analysis.
TEST(DagReplay, RecordedFibIsTheGeneratedFib) {
  temp_file tmp("fib.dag");
  write_dag(tmp.path, fib_dag(13, 2, 2, 3), 0, 1);
  const dag_file f = read_dag(tmp.path);
  for (std::uint32_t p : {1u, 2u, 8u})
    for (const auto& [tag, cfg] : configurations(p)) {
      const sim::run_result r = replay(f, cfg);
      const sim::run_result g = simtest::sim("fib:13,node=4,leaf=3", cfg);
      EXPECT_TRUE(r.violations.empty()) << tag << " P=" << p << "\n" << violations(r);
      EXPECT_EQ(r.tasks, f.task_count()) << tag << " P=" << p;
      EXPECT_EQ(r.makespan, g.makespan) << tag << " P=" << p;
      EXPECT_EQ(r.schedule_hash, g.schedule_hash) << tag << " P=" << p;
      EXPECT_EQ(r.total.steals_preempted + r.total.steals_fresh, g.total.steals_preempted + g.total.steals_fresh);
      EXPECT_EQ(r.total.quota_giveups, g.total.quota_giveups) << tag << " P=" << p;
      EXPECT_EQ(r.peak_bytes, g.peak_bytes) << tag << " P=" << p;
      EXPECT_EQ(r.dag.work, g.dag.work);
      EXPECT_EQ(r.dag.span, g.dag.span);
      EXPECT_EQ(r.dag.burdened_span, g.dag.burdened_span);
    }
}

// The reader's analysis, computed from the file alone, is the simulator's (computed while it runs the
// DAG, whatever the schedule): with the runtime's operations free, and with round weights on them.
TEST(DagReplay, DirectWorkAndSpanAreTheSimulatorsAnalysis) {
  sim::costs round;
  round.call = 10;
  round.spawn_wf = 20;
  round.finish = 2;
  round.burden_cycles = 1000;
  round.ghz = 1;
  const op_weights weights{10, 20, 2, 1000};
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const dag d = random_dag(seed, 1 + seed * 7, 7, seed % 2 == 0);
    const dag_file f = parse(d);
    const work_span plain = analyze(f), weighted = analyze(f, weights);
    EXPECT_EQ(plain.work, f.totals().work_ns);
    for (const auto& [tag, cfg] : {std::pair{"wf P=1", ws(1, mode::wf)}, std::pair{"hf P=3", ws(3, mode::hf)},
                                   std::pair{"dyn P=8", ws(8, mode::dyn)}, std::pair{"dfd(K=inf) P=4", dfd(4, 0)}}) {
      const sim::run_result a = replay(f, cfg, strands_only());
      EXPECT_EQ(static_cast<std::uint64_t>(a.dag.work), plain.work * 1000) << "seed " << seed << " " << tag;
      EXPECT_EQ(static_cast<std::uint64_t>(a.dag.span), plain.span * 1000) << "seed " << seed << " " << tag;
      const sim::run_result b = replay(f, cfg, round);
      EXPECT_EQ(static_cast<std::uint64_t>(b.dag.work), weighted.work * 1000) << "seed " << seed << " " << tag;
      EXPECT_EQ(static_cast<std::uint64_t>(b.dag.span), weighted.span * 1000) << "seed " << seed << " " << tag;
      EXPECT_EQ(static_cast<std::uint64_t>(b.dag.burdened_span), weighted.burdened_span * 1000) << "seed " << seed << " " << tag;
      EXPECT_TRUE(a.violations.empty() && b.violations.empty()) << violations(a) << violations(b);
    }
  }
}

// Random programs with escaping spawns, calls, nested finishes, clauses and memory run under every
// scheduler with the checks on: every task exactly once, every finish after its tasks, DFDeques' quota
// and Lemma 3.1.
TEST(DagReplay, EverySchedulerPassesTheChecksOnRandomPrograms) {
  for (std::uint64_t seed = 100; seed < 112; ++seed) {
    const dag_file f = parse(random_dag(seed, 400, 8, true, true, 20000));
    for (std::uint32_t p : {1u, 2u, 8u})
      for (const auto& [tag, cfg] : configurations(p)) {
        const sim::run_result r = replay(f, cfg);
        EXPECT_TRUE(r.violations.empty()) << "seed " << seed << " " << tag << " P=" << p << "\n" << violations(r);
        EXPECT_EQ(r.tasks, f.task_count()) << "seed " << seed << " " << tag << " P=" << p;
        EXPECT_GE(r.makespan, r.dag.span);
      }
  }
}

// 10^5-deep chains replay (the engine keeps its own stacks): with the operations free, the time of one
// worker is the work plus its start and end.
TEST(DagReplay, DeepChainsReplay) {
  for (dag_op link : {dag_op::call, dag_op::spawn}) {
    const dag_file f = parse(chain_dag(100000, link, true));
    const work_span a = analyze(f);
    for (const auto& cfg : {ws(1, mode::dyn), ws(4, mode::hf)}) {
      const sim::run_result r = replay(f, cfg, strands_only());
      EXPECT_TRUE(r.violations.empty()) << violations(r);
      EXPECT_EQ(r.tasks, 100000u);
      EXPECT_EQ(static_cast<std::uint64_t>(r.dag.span), a.span * 1000);
    }
  }
}

TEST(DagReplay, SourceNamesItsFile) {
  temp_file tmp("named.dag");
  write_dag(tmp.path, fib_dag(5, 1, 1, 1, 256), 5000000, 4);
  const std::unique_ptr<sim::recorded_source> s = sim::make_recorded(tmp.path);
  EXPECT_EQ(s->name(), "dag:" + tmp.path.substr(tmp.path.rfind('/') + 1));
  EXPECT_EQ(s->expected_tasks(), 15u);
  EXPECT_EQ(s->root_bytes(), 256u);
  const std::string line = s->summary();
  EXPECT_NE(line.find("recorded on 4 workers in 5.000 ms: 15 tasks (7 spawns, 7 calls, 7 finishes)"), std::string::npos)
      << line;
  EXPECT_NE(line.find("parallelism"), std::string::npos) << line;
}
