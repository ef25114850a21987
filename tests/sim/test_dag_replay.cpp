// Replaying recorded DAGs in the simulator (src/sim/wl_recorded.cpp): a recorded fib is the generated fib
// to the picosecond and the schedule hash, the reader's direct work and span equal the simulator's
// analysis on random programs, and every scheduler passes the engine's checks on them.
#include <gtest/gtest.h>

#include "../support/input_guard.hpp"
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

namespace {

// A root that spawns a strand of `long_ns` and one of `short_ns` in a finish, then returns.
dag two_strands(std::uint64_t long_ns, std::uint64_t short_ns) {
  dag d(3);
  d[0] = {320, {ev(dag_op::start_finish, 1), ev(dag_op::spawn, 1, 1), ev(dag_op::spawn, 1, 2), ev(dag_op::end_finish, 1),
                ev(dag_op::ret, 1)}};
  d[1] = {320, {ev(dag_op::ret, long_ns)}};
  d[2] = {320, {ev(dag_op::ret, short_ns)}};
  return d;
}

}  // namespace

// A worker woken from its first sleep backs off as the runtime's find_work does, from backoff_first_ns
// (50 us) doubling to backoff_max_ns (2 ms): over a 50 ms strand the idle worker sleeps about 30 times,
// not 992 times (it started with no backoff and polled every 50 us, its rounds' cost).
TEST(DagReplay, TheFirstPollsBackOff) {
  dag d(1);
  d[0] = {320, {ev(dag_op::ret, 50000000)}};
  const dag_file f = parse(d);
  for (const auto& [tag, cfg] : configurations(2)) {
    const sim::run_result r = replay(f, cfg);
    // 50, 100, ..., 1600 us, then 2 ms: 6 sleeps in the first 3.15 ms, then one per 2 ms and its rounds.
    EXPECT_GE(r.total.parks, 20u) << tag;
    EXPECT_LE(r.total.parks, 30u) << tag;
  }
}

// One strand as long as the reader allows (2^52 ns of work in all) on 2 and 8 workers. While it runs, the
// last idle worker polls with a timed sleep, every 2 ms at the backoff's cap: 2^41 polls, which the
// engine simulated one by one for ever. Now the polls that cannot find work are fast-forwarded up to the
// next event of another worker, and still counted.
TEST(DagReplay, AStrandAsLongAsTheLimitEnds) {
  const slaw_test::watchdog dog("DagReplay.AStrandAsLongAsTheLimitEnds", "idle polls simulated one by one", 120);
  dag d(1);
  d[0] = {320, {ev(dag_op::ret, max_total_work_ns)}};
  const dag_file one = parse(d);
  const dag_file two = parse(two_strands(max_total_work_ns - 2000000, 1000000));
  for (const auto& [tag, cfg] : {std::pair{"dyn P=2", ws(2, mode::dyn)}, std::pair{"hf P=8", ws(8, mode::hf)},
                                 std::pair{"dfd(K=50000) P=2", dfd(2, 50000)}, std::pair{"dfd(K=inf) P=8", dfd(8, 0)}}) {
    for (const dag_file* f : {&one, &two}) {
      const sim::run_result r = replay(*f, cfg);
      EXPECT_TRUE(r.violations.empty()) << tag << "\n" << violations(r);
      EXPECT_GE(r.makespan, static_cast<sim::time_ps>(max_total_work_ns - 2000000) * 1000) << tag;
      // About one poll per 2 ms of the strand, each a sleep and a wake-up.
      EXPECT_GT(r.total.parks, (max_total_work_ns / 2000000) / 2) << tag;
      EXPECT_LT(r.total.parks, max_total_work_ns / 2000000 * 2) << tag;
    }
  }
}

// Fast-forwarding is exact without cost jitter: a 50 ms strand beside a 1 ms one, at 2, 3 and 8 workers,
// gives the same time, counters, events and schedule as polling one by one.
TEST(DagReplay, FastForwardedPollsAreThePollsOneByOne) {
  const dag_file f = parse(two_strands(50000000, 1000000));
  sim::costs c;
  c.jitter = 0;
  for (std::uint32_t p : {2u, 3u, 8u})
    for (const auto& [tag, base] : configurations(p)) {
      sim::run_config slow = base;
      slow.fast_forward_polls = false;
      const sim::run_result a = replay(f, base, c), b = replay(f, slow, c);
      const std::string at = std::string(tag) + " P=" + std::to_string(p);
      EXPECT_TRUE(a.violations.empty()) << at << "\n" << violations(a);
      EXPECT_EQ(a.makespan, b.makespan) << at;
      EXPECT_EQ(a.schedule_hash, b.schedule_hash) << at;
      EXPECT_EQ(a.events, b.events) << at;
      EXPECT_EQ(a.total.parks, b.total.parks) << at;
      EXPECT_EQ(a.total.wakes, b.total.wakes) << at;
      EXPECT_EQ(a.total.probes, b.total.probes) << at;
      EXPECT_EQ(a.total.failed_steals, b.total.failed_steals) << at;
      EXPECT_EQ(a.total.spins, b.total.spins) << at;
      EXPECT_EQ(a.dfd_failed_attempts, b.dfd_failed_attempts) << at;
      EXPECT_GT(a.total.parks, 20u) << at;  // the strand was polled through
    }
}

// An allocation whose DFDeques reservation (reserve(m > K): floor(m/K) dummy tasks) would need more
// dummy tasks than the simulator's limit is an error naming the sizes and the way out, not 2^46
// dummy tasks (2^61 bytes at K = 50000); at K = inf the same DAG runs.
TEST(DagReplay, HugeAllocationsUnderDfdequesAreAnError) {
  const slaw_test::watchdog dog("DagReplay.HugeAllocationsUnderDfdequesAreAnError", "2^46 dummy tasks", 120);
  const std::uint64_t huge = std::uint64_t{1} << 61;
  dag d(1);
  d[0] = {320, {ev(dag_op::alloc, 0, huge), ev(dag_op::free, 0, huge), ev(dag_op::ret, 1)}};
  const dag_file f = parse(d);
  for (std::uint32_t p : {1u, 2u}) {
    try {
      replay(f, dfd(p, 50000));
      ADD_FAILURE() << "no error at P=" << p;
    } catch (const std::invalid_argument& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("allocates 2305843009213693952 bytes"), std::string::npos) << m;
      EXPECT_NE(m.find("46116860184273 dummy tasks"), std::string::npos) << m;
      EXPECT_NE(m.find("more than the simulator's limit of 16777216"), std::string::npos) << m;
      EXPECT_NE(m.find("--K"), std::string::npos) << m;
    }
    const sim::run_result r = replay(f, dfd(p, 0));
    EXPECT_TRUE(r.violations.empty()) << violations(r);
    EXPECT_GE(r.peak_bytes, static_cast<std::int64_t>(huge));
    EXPECT_TRUE(replay(f, ws(p, mode::dyn)).violations.empty());
  }
  // At the limit, it runs: 2^24 dummy tasks of 64-byte quota.
  dag at(1);
  at[0] = {320, {ev(dag_op::alloc, 0, std::uint64_t{64} << 24), ev(dag_op::ret, 1)}};
  const sim::run_result r = replay(parse(at), dfd(1, 64, false));
  EXPECT_EQ(r.total.dummy_tasks, std::uint64_t{1} << 24);
}
