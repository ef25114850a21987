// Work, span and burdened span from the simulator agree with those computed directly from the
// workloads' recursions; one worker's time is the work plus the runtime's overheads, exactly
// (docs/simulation.md, "Work and span").
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "sim_test_util.hpp"

using namespace simtest;
using slaw::policy::mode;

namespace {

// Round costs, so that the closed forms below are exact in picoseconds.
costs round_costs() {
  costs c;
  c.call = 10;
  c.spawn_wf = 20;
  c.finish = 2;
  c.burden_cycles = 1000;
  c.ghz = 1;  // a burden of 1000 ns
  return c;
}

struct wsb {
  time_ps work, span, bspan;
};

// fib(n) with `node` ns per inner call (half before the finish, half after) and `leaf` ns per leaf:
//   W(n) = W(n-1) + W(n-2) + node + finish + spawn_wf + call
//   S(n) = node/2 + finish + spawn_wf + max(S(n-1), call + S(n-2)) + node/2
//   B(n) = node/2 + finish + spawn_wf + max(B(n-1) + burden, burden + call + B(n-2)) + node/2
wsb fib_closed(int n, const costs& c, double node, double leaf) {
  const time_ps half = from_ns(node / 2), rest = from_ns(node) - half, lf = from_ns(leaf);
  const time_ps call = from_ns(c.call), spawn = from_ns(c.spawn_wf), fin = from_ns(c.finish), burden = from_ns(c.burden_ns());
  std::vector<wsb> v(static_cast<std::size_t>(std::max(n, 1)) + 1);
  v[0] = v[1] = {lf, lf, lf};
  for (int i = 2; i <= n; ++i) {
    const time_ps pre = half + fin + spawn;
    v[i].work = v[i - 1].work + v[i - 2].work + half + rest + fin + spawn + call;
    v[i].span = pre + std::max(v[i - 1].span, call + v[i - 2].span) + rest;
    v[i].bspan = pre + std::max(v[i - 1].bspan + burden, burden + call + v[i - 2].bspan) + rest;
  }
  return v[n];
}

}  // namespace

TEST(SimAnalysis, FibWorkSpanAndBurdenedSpanAreTheClosedForms) {
  const costs c = round_costs();
  for (int n : {0, 1, 2, 5, 12, 20}) {
    const wsb want = fib_closed(n, c, 4, 3);
    for (mode m : {mode::wf, mode::hf, mode::dyn})
      for (std::uint32_t p : {1u, 4u, 32u}) {
        run_result r = sim("fib:" + std::to_string(n) + ",node=4,leaf=3", ws(p, m), c);
        EXPECT_EQ(r.dag.work, want.work) << "n=" << n << " P=" << p;
        EXPECT_EQ(r.dag.span, want.span) << "n=" << n << " P=" << p;
        EXPECT_EQ(r.dag.burdened_span, want.bspan) << "n=" << n << " P=" << p;
      }
  }
}

// A flat loop: work R (finish + N (spawn + task)), span R (finish + N spawn + task), burdened span
// R (finish + N (spawn + burden) + task).
TEST(SimAnalysis, FlatLoopWorkSpanAndBurdenedSpanAreTheClosedForms) {
  const costs c = round_costs();
  const time_ps spawn = from_ns(c.spawn_wf), fin = from_ns(c.finish), burden = from_ns(c.burden_ns()), task = from_ns(5);
  for (std::uint64_t n : {1u, 10u, 1000u})
    for (std::uint64_t reps : {1u, 3u}) {
      run_result r = sim("fj:" + std::to_string(n) + ",reps=" + std::to_string(reps) + ",task=5", ws(8, mode::dyn), c);
      const auto N = static_cast<time_ps>(n), R = static_cast<time_ps>(reps);
      EXPECT_EQ(r.dag.work, R * (fin + N * (spawn + task)));
      EXPECT_EQ(r.dag.span, R * (fin + N * spawn + task));
      EXPECT_EQ(r.dag.burdened_span, R * (fin + N * (spawn + burden) + task));
    }
}

// One worker: the time is the work plus what the runtime added to it, operation by operation: the
// first wake-up, taking the root, the root's end, and for each help-first spawn, suspension, local
// take and arrival its cost (a help-first spawn replacing the work-first one the work counts).
TEST(SimAnalysis, OneWorkerTimeIsWorkPlusOverheads) {
  const costs c;  // the measured model
  const cost_ps k(c);
  for (const char* g : {"fib:18", "fj:500,reps=3", "fj-rec:512", "skynet:1000", "nqueens:7,cutoff=2", "pdfs:30"})
    for (mode m : {mode::wf, mode::hf, mode::dyn}) {
      run_result r = sim(g, ws(1, m), c);
      const worker_counters& t = r.total;
      const time_ps want = k.wake + k.take + r.dag.work + static_cast<time_ps>(t.spawns_hf) * (k.spawn_hf - k.spawn_wf) +
                           static_cast<time_ps>(t.suspensions) * k.suspend + static_cast<time_ps>(t.local_takes) * k.take +
                           static_cast<time_ps>(t.arrivals) * k.arrive;
      EXPECT_EQ(r.makespan, want) << g;
      if (m == mode::wf) {
        EXPECT_EQ(r.makespan, k.wake + k.take + r.dag.work + k.arrive) << g;
      }
    }
}

// The span is a lower bound of every schedule, the work over P too (up to the start-up).
TEST(SimAnalysis, NoScheduleBeatsTheSpanOrTheWorkOverP) {
  for (std::uint32_t p : {2u, 16u, 256u}) {
    run_result r = sim("fib:22", ws(p, mode::dyn));
    EXPECT_GE(r.makespan, r.dag.span);
    EXPECT_GE(r.makespan, r.dag.work / p);
  }
}

TEST(SimAnalysis, CilkscaleBurdenedDagBound) {
  dag_analysis a;
  a.work = from_ns(1000);
  a.span = from_ns(10);
  a.burdened_span = from_ns(100);
  EXPECT_DOUBLE_EQ(a.parallelism(), 100.0);
  EXPECT_DOUBLE_EQ(a.burdened_parallelism(), 10.0);
  EXPECT_NEAR(a.burdened_bound_seconds(1), 1000e-9, 1e-15);  // T1
  EXPECT_NEAR(a.burdened_bound_seconds(4), (250 + 1.7 * 0.75 * 100) * 1e-9, 1e-15);
}
