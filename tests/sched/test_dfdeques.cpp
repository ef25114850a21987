// The DFDeques(K) scheduler: serial order at K = infinity, deques per worker, the quota between
// steals, dummy tasks for allocations larger than K, overruns, and the S1 + K·D bound at one worker
// (docs/space.md §2-3).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "slaw/slaw.hpp"

namespace {

slaw::config cfg_of(unsigned workers, slaw::policy::mode m = slaw::policy::mode::dyn) {
  slaw::config c;
  c.workers = workers;
  c.policy = m;
  return c;
}

slaw::config dfd_cfg(unsigned workers, std::uint64_t k) {
  slaw::config c;
  c.workers = workers;
  c.scheduler = slaw::scheduler_kind::dfdeques;
  c.quota = k;
  return c;
}

// ---------------------------------------------------------------- DFDeques

// A binary recursion that records its leaves in execution order and allocates a buffer per level.
struct order_log {
  std::mutex m;
  std::vector<int> leaves;
};
slaw::task<> tree(int lo, int hi, order_log* log, std::size_t bytes_per_level) {
  slaw::buffer<char> tmp;
  if (bytes_per_level) tmp = co_await slaw::make_buffer<char>(bytes_per_level);
  if (hi - lo == 1) {
    std::lock_guard<std::mutex> g(log->m);
    log->leaves.push_back(lo);
    co_return;
  }
  int mid = (lo + hi) / 2;
  auto f = co_await slaw::start_finish();
  co_await slaw::async(tree, lo, mid, log, bytes_per_level);
  co_await tree(mid, hi, log, bytes_per_level);
  co_await slaw::end_finish(f);
}

TEST(DFDeques, KInfinityAtOneWorkerRunsInSerialOrderLikeWorkStealing) {
  std::vector<int> serial(1024);
  for (int i = 0; i < 1024; ++i) serial[i] = i;
  {
    slaw::runtime rt(cfg_of(1, slaw::policy::mode::wf));
    order_log log;
    rt.run(tree(0, 1024, &log, 64));
    EXPECT_EQ(log.leaves, serial);
  }
  {
    slaw::runtime rt(dfd_cfg(1, slaw::quota_infinite));
    order_log log;
    rt.run(tree(0, 1024, &log, 64));
    EXPECT_EQ(log.leaves, serial);
    slaw::runtime_stats s = rt.stats();
    EXPECT_EQ(s.dfd_giveups, 0u);
    EXPECT_LE(s.dfd_max_deques, 1u);
  }
  {  // a finite K at one worker leaves the serial order (digest §8.2 item 8), and is still correct:
     // after a give-up the worker "steals" the bottom (lowest-priority) task of the leftmost deque, and
     // with a period long enough to reach leaves from there, some leaves run early.
    slaw::runtime rt(dfd_cfg(1, 4096));
    order_log log;
    rt.run(tree(0, 1024, &log, 256));
    std::vector<int> sorted = log.leaves;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, serial);
    EXPECT_NE(log.leaves, serial);
    EXPECT_GT(rt.stats().dfd_giveups, 0u);
  }
}

TEST(DFDeques, KInfinityNeverHasMoreDequesThanWorkers) {
  for (unsigned w : {2u, 8u}) {
    slaw::runtime rt(dfd_cfg(w, slaw::quota_infinite));
    for (int rep = 0; rep < 20; ++rep) {
      order_log log;
      rt.run(tree(0, 4096, &log, 128));
      ASSERT_EQ(log.leaves.size(), 4096u);
    }
    slaw::runtime_stats s = rt.stats();
    EXPECT_LE(s.dfd_max_deques, w);
    EXPECT_EQ(s.dfd_giveups, 0u);
  }
}

TEST(DFDeques, QuotaIsNeverExceededBetweenSteals) {
  for (std::uint64_t k : {1024u, 4096u, 50000u}) {
    for (unsigned w : {1u, 2u, 8u}) {
      slaw::runtime rt(dfd_cfg(w, k));
      order_log log;
      rt.run(tree(0, 2048, &log, 700));
      ASSERT_EQ(log.leaves.size(), 2048u);
      slaw::runtime_stats s = rt.stats();
      EXPECT_LE(s.total.quota_max_used, static_cast<std::int64_t>(k)) << "K=" << k << " w=" << w;
      EXPECT_EQ(s.total.quota_overrun_bytes, 0u);
      if (k < 50000) {
        EXPECT_GT(s.total.quota_giveups, 0u);
      }
    }
  }
}

TEST(DFDeques, AllocationLargerThanKRunsFloorMOverKDummyTasks) {
  const std::uint64_t k = 4096;
  slaw::runtime rt(dfd_cfg(1, k));
  rt.reset_stats();
  std::size_t n = 10 * k + 5;
  rt.run([](std::size_t bytes) -> slaw::task<> {
    slaw::buffer<char> b = co_await slaw::make_buffer<char>(bytes);
    for (auto& x : b) x = 1;
  }(n));
  slaw::runtime_stats s = rt.stats();
  EXPECT_EQ(s.total.dummy_tasks, 10u);
  EXPECT_GE(s.total.quota_giveups, 10u);
  EXPECT_GE(s.dfd_steals, 10u);
  EXPECT_EQ(s.total.quota_overrun_bytes, 0u);
  EXPECT_LE(s.total.quota_max_used, static_cast<std::int64_t>(k));
}

TEST(DFDeques, SynchronousAllocationOverTheQuotaIsCountedAsOverrun) {
  slaw::runtime rt(dfd_cfg(1, 2048));
  rt.reset_stats();
  rt.run([]() -> slaw::task<> {
    void* p = slaw::allocate(3000);  // cannot wait: charged, and the excess is counted
    co_await slaw::async([]() -> slaw::task<> { co_return; });  // the next scheduling point gives up
    slaw::deallocate(p, 3000);
  }());
  slaw::runtime_stats s = rt.stats();
  EXPECT_GT(s.total.quota_overrun_bytes, 0u);
  EXPECT_GE(s.total.quota_giveups, 1u);
}

// Digest §8.2 item 8: at p = 1 the extra space over the serial run stays within c * min(K, S1) * D.
TEST(DFDeques, OneWorkerSpaceStaysWithinS1PlusKTimesDepth) {
  const std::size_t per_level = 2000;
  const int leaves = 1024;  // depth D = 11 levels of buffers
  std::int64_t s1 = 0;
  {
    slaw::runtime rt(cfg_of(1, slaw::policy::mode::wf));
    rt.reset_stats();
    order_log log;
    rt.run(tree(0, leaves, &log, per_level));
    s1 = rt.stats().total.user_bytes_peak;
  }
  EXPECT_EQ(s1, static_cast<std::int64_t>(per_level) * 11);
  for (std::uint64_t k : {std::uint64_t{2048}, std::uint64_t{8192}, slaw::quota_infinite}) {
    slaw::runtime rt(dfd_cfg(1, k));
    rt.reset_stats();
    order_log log;
    rt.run(tree(0, leaves, &log, per_level));
    std::int64_t peak = rt.stats().total.user_bytes_peak;
    if (k == slaw::quota_infinite) {
      EXPECT_EQ(peak, s1);
    } else {
      std::int64_t bound = s1 + 2 * std::min<std::int64_t>(static_cast<std::int64_t>(k), s1) * 11;
      EXPECT_LE(peak, bound) << "K=" << k;
    }
  }
}

}  // namespace
