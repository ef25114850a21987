// Simulated DFDeques(K) (docs/simulation.md; the runtime's tests/sched/test_dfdeques.cpp checks the same
// properties on real runs): the quota is never exceeded between steals, Lemma 3.1's order of R holds
// after every operation, K = infinity never gives up and keeps at most p deques, allocations larger
// than K run floor(m/K) dummy tasks, and one worker's space stays within S1 + c min(K, S1) D.
#include <gtest/gtest.h>

#include <algorithm>

#include "sim_test_util.hpp"

using namespace simtest;
using slaw::policy::mode;

TEST(SimDFDeques, QuotaIsNeverExceededBetweenSteals) {
  for (std::uint64_t k : {1024u, 4096u, 50000u})
    for (std::uint32_t p : {1u, 2u, 8u}) {
      run_result r = sim("dc:11,mem=700,mratio=1,jitter=0", dfd(p, k));
      ASSERT_TRUE(r.violations.empty()) << violations(r);
      EXPECT_LE(r.total.quota_max_used, static_cast<std::int64_t>(k)) << "K=" << k << " P=" << p;
      EXPECT_EQ(r.total.quota_overrun_bytes, 0u);
      if (k < 50000) {
        EXPECT_GT(r.total.quota_giveups, 0u) << "K=" << k << " P=" << p;
      }
    }
}

TEST(SimDFDeques, Lemma31OrderOfRHoldsAfterEveryOperation) {
  for (const char* g : {"dc:9,mem=3000", "fib:13", "fj-rec:128"})
    for (std::uint64_t k : {std::uint64_t{1024}, std::uint64_t{4096}, std::uint64_t{0}})
      for (std::uint32_t p : {1u, 3u, 8u}) {
        run_result r = sim(g, dfd(p, k));
        EXPECT_TRUE(r.violations.empty()) << g << " K=" << k << " P=" << p << "\n" << violations(r);
        EXPECT_GT(r.order_checks, 0u) << g << " K=" << k << " P=" << p;  // the order was compared
      }
}

TEST(SimDFDeques, KInfinityNeverGivesUpAndKeepsAtMostPDeques) {
  for (std::uint32_t p : {2u, 8u, 64u}) {
    run_result r = sim("dc:10,mem=128", dfd(p, 0));
    EXPECT_EQ(r.total.quota_giveups, 0u);
    EXPECT_LE(r.dfd_max_deques, p);
    EXPECT_GT(r.dfd_steals, 0u);
  }
  // A finite K does give up and can hold more deques than workers: the check above could fail.
  run_result small = sim("dc:10,mem=128", dfd(2, 1024));
  EXPECT_GT(small.total.quota_giveups, 0u);
  EXPECT_GT(small.dfd_max_deques, 2u);
}

// DFD(inf) and work stealing. Narlikar §3.3: with K = infinity DFDeques is work stealing, the same
// schedule under the same random choices. In slaw the two variants draw their victims differently by
// design (work stealing: a window of up to 16 workers from a random start, both deques; DFDeques: one
// attempt at the i-th deque of R, whose order is priority, not worker index), so the schedules are
// identical where no victim is chosen (one worker) and otherwise differ only in whom a thief asks.
TEST(SimDFDeques, KInfinityIsWorkStealingOnOneWorker) {
  for (const char* g : {"fib:16", "dc:8", "fj-rec:256"}) {
    run_result d = sim(g, dfd(1, 0)), w = sim(g, ws(1, mode::wf));
    EXPECT_EQ(d.schedule_hash, w.schedule_hash) << g;
    EXPECT_EQ(d.makespan, w.makespan) << g;
    EXPECT_EQ(d.peak_bytes, w.peak_bytes) << g;
  }
}

TEST(SimDFDeques, KInfinityStealsLikeWorkFirstWorkStealing) {
  for (std::uint32_t p : {2u, 8u}) {
    run_result d = sim("fib:20", dfd(p, 0)), w = sim("fib:20", ws(p, mode::wf));
    // Both steal only continuations (the oldest entry of a worker's deque) and run the same DAG.
    EXPECT_EQ(d.total.steals_fresh, 0u);
    EXPECT_EQ(w.total.steals_fresh, 0u);
    EXPECT_EQ(d.dag.work, w.dag.work);
    EXPECT_EQ(d.dag.span, w.dag.span);
    EXPECT_EQ(d.total.steals_preempted, d.dfd_steals);
    EXPECT_GT(d.dfd_steals, 0u);
  }
}

TEST(SimDFDeques, AllocationLargerThanKRunsFloorMOverKDummyTasks) {
  const std::uint64_t k = 4096;
  run_result r = sim("dc:0,mem=40965,jitter=0", dfd(1, k));  // one task allocating 10 K + 5
  ASSERT_TRUE(r.violations.empty()) << violations(r);
  EXPECT_EQ(r.total.dummy_tasks, 10u);
  EXPECT_GE(r.total.quota_giveups, 10u);
  EXPECT_GE(r.dfd_steals, 10u);
  EXPECT_EQ(r.total.quota_overrun_bytes, 0u);
  EXPECT_LE(r.total.quota_max_used, static_cast<std::int64_t>(k));
  EXPECT_EQ(r.tasks, 1u);  // dummies are not the workload's tasks
}

// Narlikar §8.2 item 8 (digest): at p = 1 the extra space over the serial run stays within
// c min(K, S1) D, and is 0 for K = infinity.
TEST(SimDFDeques, OneWorkerSpaceStaysWithinS1PlusKTimesDepth) {
  const char* g = "dc:10,mem=2000,mratio=1,jitter=0";  // 11 levels of 2000-byte buffers
  const std::int64_t s1 = sim(g, ws(1, mode::wf)).peak_user_bytes;
  EXPECT_EQ(s1, 2000 * 11);
  for (std::uint64_t k : {std::uint64_t{2048}, std::uint64_t{8192}, std::uint64_t{0}}) {
    const std::int64_t peak = sim(g, dfd(1, k)).peak_user_bytes;
    if (k == 0) {
      EXPECT_EQ(peak, s1);
    } else {
      EXPECT_LE(peak, s1 + 2 * std::min<std::int64_t>(static_cast<std::int64_t>(k), s1) * 11) << "K=" << k;
    }
  }
}

// Narlikar Theorem 4.3 (the digest's S3): peak - S1 <= c min(K, S1) p D; with c = 1 here.
TEST(SimDFDeques, SpaceOverSerialStaysWithinKTimesPTimesD) {
  const char* g = "dc:12,mem=4096,mratio=0.7";
  const std::int64_t s1 = sim(g, ws(1, mode::wf, false)).peak_user_bytes;
  for (std::uint64_t k : {std::uint64_t{2048}, std::uint64_t{16384}})
    for (std::uint32_t p : {2u, 8u, 32u}) {
      const std::int64_t peak = sim(g, dfd(p, k, false)).peak_user_bytes;
      EXPECT_LE(peak - s1, std::min<std::int64_t>(static_cast<std::int64_t>(k), s1) * p * 13) << "K=" << k << " P=" << p;
    }
}
