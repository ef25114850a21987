// The simulated work-stealing schedules obey the runtime's invariants (docs/simulation.md, "Tests"):
// every task runs exactly once and a finish continues only after its tasks (the checks run on every
// operation), the work-first depth stays within S under dyn, fresh tasks within F when the stack
// condition never fires, and the same seed gives the same schedule.
#include <gtest/gtest.h>

#include "sim/sim_deque.hpp"
#include "sim_test_util.hpp"

using namespace simtest;
using slaw::policy::mode;

namespace {

const char* const shapes[] = {"fib:14",  "fj:300,reps=3",           "fj-rec:256,reps=2", "skynet:1000",
                              "pdfs:40", "sor:60,iterations=2,blocks=16", "nqueens:7,cutoff=2",   "dc:7",
                              "spawncost:200,reps=3", "matmul:256", "integrate:1e6"};

}  // namespace

TEST(SimSchedules, EveryTaskRunsExactlyOnceAndFinishesWaitForTheirTasks) {
  for (const char* g : shapes)
    for (mode m : {mode::wf, mode::hf, mode::dyn})
      for (std::uint32_t p : {1u, 2u, 7u, 64u}) {
        run_result r = sim(g, ws(p, m));
        ASSERT_TRUE(r.violations.empty()) << g << " P=" << p << "\n" << violations(r);
        ASSERT_GT(r.makespan, 0);
      }
}

TEST(SimSchedules, TaskCountsMatchTheRecursions) {
  EXPECT_EQ(sim("fib:20", ws(8, mode::dyn)).tasks, 21891u);  // 2 F(21) - 1
  EXPECT_EQ(sim("fj:1000,reps=4", ws(8, mode::hf)).tasks, 4001u);
  EXPECT_EQ(sim("fj-rec:1024,reps=2", ws(8, mode::wf)).tasks, 1u + 2 * 2047);
  EXPECT_EQ(sim("skynet:10000", ws(8, mode::dyn)).tasks, 11111u);
  EXPECT_EQ(sim("pdfs:50", ws(8, mode::dyn)).tasks, 2501u);  // each vertex visited once, plus the root
  EXPECT_EQ(sim("spawncost:1000,reps=4", ws(8, mode::hf)).tasks, 1u + 4 * 999);  // the parent runs task 0
  EXPECT_EQ(sim("matmul:512", ws(8, mode::dyn)).tasks, 1u + 8 + 64 + 512);       // 8 children per inner node
}

TEST(SimSchedules, MoreWorkersStealAndFinishSooner) {
  run_result one = sim("fib:22", ws(1, mode::dyn));
  run_result many = sim("fib:22", ws(16, mode::dyn));
  EXPECT_EQ(one.total.steals_preempted + one.total.steals_fresh, 0u);
  EXPECT_GT(many.total.steals_preempted + many.total.steals_fresh, 0u);
  EXPECT_LT(many.makespan * 4, one.makespan);
}

TEST(SimSchedules, WorkFirstDepthStaysWithinSUnderDyn) {
  for (std::uint32_t p : {1u, 2u, 8u}) {
    run_config c = ws(p, mode::dyn);
    c.adp.S = 8;
    run_result r = sim("pdfs:60", c);
    EXPECT_LE(r.total.max_wf_depth, 8u) << "P=" << p;
    EXPECT_GT(r.total.spawns_hf, 0u);  // the stack condition fired
    // Without the bound the same program goes much deeper: the check above could fail.
    c.mode = mode::wf;
    EXPECT_GT(sim("pdfs:60", c).total.max_wf_depth, 100u);
  }
}

TEST(SimSchedules, FreshTasksStayWithinFWhenTheStackConditionNeverFires) {
  for (std::uint32_t p : {1u, 2u, 8u}) {
    run_config c = ws(p, mode::dyn);
    c.adp.F = 16;
    c.adp.INT = 4;  // help-first after each interval with a steal
    c.adp.steal_threshold = 0;
    c.adp.start = slaw::policy::spawn_policy::hf;  // help-first intervals for F to bound: a work-first flat loop stays work-first
    run_result r = sim("fj:2000,reps=2", c);  // S1 = 1 < S
    EXPECT_LE(r.total.max_fresh, 16u) << "P=" << p;
    EXPECT_GT(r.total.spawns_hf, 0u) << "P=" << p;
  }
  // Pure help-first holds the whole loop: the bound is ADP's doing.
  EXPECT_GE(sim("fj:2000", ws(1, mode::hf)).total.max_fresh, 2000u);
}

TEST(SimSchedules, OneWorkerWorkFirstNeverSwitchesContext) {
  run_result r = sim("fib:18", ws(1, mode::wf));
  EXPECT_EQ(r.total.context_switches, 0u);
  EXPECT_EQ(r.total.local_takes, 0u);
  EXPECT_EQ(r.total.tasks_run, 1u);  // the root's strand only
}

TEST(SimSchedules, DynOnOneWorkerStaysWorkFirst) {
  run_result r = sim("fib:20", ws(1, mode::dyn));
  EXPECT_EQ(r.total.spawns_hf, 0u);  // it starts work-first, and no thief turns it
  EXPECT_EQ(r.total.policy_switches, 0u);
  run_config c = ws(1, mode::dyn);
  c.adp.start = slaw::policy::spawn_policy::hf;  // SLAW's start
  r = sim("fib:20", c);
  EXPECT_EQ(r.total.spawns_hf, 63u);  // the first interval, minus the spawn that ends it
  EXPECT_EQ(r.total.policy_switches, 1u);
}

// The expose window, as split_deque's (policy::expose_window, expose_min_thieves): the push that answers
// a request of two different thieves exposes half and opens the window, whose pushes publish their
// entry at once, requests meanwhile absorbed; then pushes stay private. One thief asking twice, or the
// owner's own request, opens none; nor does anything with the what-if expose-after-request=0.
TEST(SimSchedules, TheExposeWindowOpensOnRequestsOfTwoThieves) {
  using slaw::sim::no_entry;
  slaw::sim::sim_deque d;  // the defaults: the runtime's
  d.push(1);
  EXPECT_TRUE(d.looks_empty());  // private until asked
  EXPECT_EQ(d.steal(7), no_entry);
  EXPECT_EQ(d.steal(7), no_entry);  // the same thief twice
  d.request_split();                // the owner's own request: not a thief's
  EXPECT_TRUE(d.push(2));           // answers: the older half of {1, 2}
  EXPECT_FALSE(d.split_requested());
  EXPECT_EQ(d.steal(7), 1u);
  d.push(3);  // no window: {2, 3} private
  EXPECT_TRUE(d.looks_empty());
  EXPECT_EQ(d.steal(7), no_entry);
  EXPECT_EQ(d.steal(8), no_entry);  // a second thief
  EXPECT_TRUE(d.push(4));           // answers both: {2, 3} shared, {4} private, and opens the window
  EXPECT_TRUE(d.split_requested());
  EXPECT_EQ(d.steal(7), 2u);
  for (slaw::sim::entry e = 5; e < 5 + slaw::policy::expose_window; ++e) {
    if (e > 5) d.request_split(9);  // absorbed by the window
    EXPECT_FALSE(d.push(e));        // in the window: everything published, no request answered
    EXPECT_TRUE(d.private_empty());
  }
  EXPECT_FALSE(d.split_requested());
  d.push(9);  // after the window: private
  for (slaw::sim::entry e = 3; e <= 8; ++e) EXPECT_EQ(d.steal(7), e);
  EXPECT_EQ(d.steal(7), no_entry);
  // No window with expose-after-request=0.
  slaw::sim::sim_deque e;
  e.set_expose_after_request(0, 2);
  e.push(1);
  EXPECT_EQ(e.steal(3), no_entry);
  EXPECT_EQ(e.steal(4), no_entry);
  EXPECT_TRUE(e.push(2));
  EXPECT_FALSE(e.split_requested());
  EXPECT_EQ(e.steal(3), 1u);
  e.push(3);
  EXPECT_TRUE(e.looks_empty());
  // Every schedule keeps the runtime's invariants with the window on.
  for (const char* g : shapes)
    for (mode m : {mode::wf, mode::hf, mode::dyn}) {
      run_config c = ws(16, m);
      c.what.expose_after_request = m == mode::hf ? 0 : 16;
      c.what.expose_min_thieves = m == mode::wf ? 2 : 1;
      run_result r = sim(g, c);
      ASSERT_TRUE(r.violations.empty()) << g << "\n" << violations(r);
    }
}

TEST(SimSchedules, SameSeedSameScheduleOtherSeedOtherSchedule) {
  for (const char* g : {"fib:18", "pdfs:40", "fj-rec:500,reps=2"}) {
    run_config c = ws(16, mode::dyn, false);
    c.seed = 7;
    run_result a = sim(g, c), b = sim(g, c);
    EXPECT_EQ(a.schedule_hash, b.schedule_hash) << g;
    EXPECT_EQ(a.makespan, b.makespan) << g;
    EXPECT_EQ(a.total.steals_preempted, b.total.steals_preempted) << g;
    c.seed = 8;
    run_result d = sim(g, c);
    EXPECT_NE(a.schedule_hash, d.schedule_hash) << g;
  }
}

TEST(SimSchedules, ThousandAndTwentyFourWorkers) {
  run_result r = sim("fib:20", ws(1024, mode::dyn));
  EXPECT_TRUE(r.violations.empty()) << violations(r);
  EXPECT_GT(r.total.steals_preempted + r.total.steals_fresh, 0u);
}
