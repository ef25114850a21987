// The DFDeques(K) scheduler: serial order at K = infinity, deques per worker, the quota between
// steals, dummy tasks for allocations larger than K, overruns, the S1 + K·D bound at one worker, and
// batch steals from ownerless deques (B1-B3 in src/sched/dfdeques/deque_list.hpp) on deep chains of
// escaping tasks (docs/design/space.md §2-3). Debug builds also assert Lemma 3.1 after every batch.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <vector>

#include "slaw/slaw.hpp"
#include "../support/memory_gauge.hpp"

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

// ---------------------------------------------------------------- batch steals (B1-B3)

// Parallel DFS of a side x side torus with escaping asyncs (bench/kernels/pdfs.cpp): work-first chains
// as deep as the graph, given up every K bytes of frames, whose continuations mostly end at once.
struct torus {
  int side;
  std::unique_ptr<std::atomic<int>[]> parent;
  std::atomic<int> ended{0};  // tasks that ran to their end
  explicit torus(int s) : side(s), parent(new std::atomic<int>[static_cast<std::size_t>(s) * s]) {
    for (int v = 0; v < s * s; ++v) parent[v].store(-1, std::memory_order_relaxed);
    parent[0].store(0, std::memory_order_relaxed);
  }
  int vertices() const { return side * side; }
  bool spanning_tree() const {  // every vertex labelled with a neighbour, every chain reaching 0
    std::vector<char> reaches(static_cast<std::size_t>(vertices()), 0);
    reaches[0] = 1;
    std::vector<int> chain;
    for (int v = 0; v < vertices(); ++v) {
      chain.clear();
      int u = v;
      while (!reaches[static_cast<std::size_t>(u)]) {
        const int p = parent[u].load(std::memory_order_relaxed);
        if (p < 0 || chain.size() > static_cast<std::size_t>(vertices())) return false;
        const int dr = (p / side - u / side + side) % side, dc = (p % side - u % side + side) % side;
        if (!((dr == 0 && (dc == 1 || dc == side - 1)) || (dc == 0 && (dr == 1 || dr == side - 1)))) return false;
        chain.push_back(u);
        u = p;
      }
      for (int x : chain) reaches[static_cast<std::size_t>(x)] = 1;
    }
    return true;
  }
};

slaw::task<> visit(torus* t, int v) {
  const int r = v / t->side, c = v % t->side, s = t->side;
  const int nb[4] = {(r + s - 1) % s * s + c, (r + 1) % s * s + c, r * s + (c + s - 1) % s, r * s + (c + 1) % s};
  for (int e : nb) {
    int expected = -1;
    if (t->parent[e].compare_exchange_strong(expected, v, std::memory_order_relaxed)) co_await slaw::async(visit, t, e);
  }
  t->ended.fetch_add(1, std::memory_order_relaxed);
}

// Returns the tasks that had ended when the finish around the DFS ended: all of them, unless a
// detached child went uncounted (B3) and the finish ended early.
slaw::task<int> dfs(torus* t) {
  auto f = co_await slaw::start_finish();
  co_await visit(t, 0);
  co_await slaw::end_finish(f);
  co_return t->ended.load(std::memory_order_relaxed);
}

// B1: a deque given up at one worker is emptied in at most two steals (the batch, then its top), not
// one steal per continuation as with the paper's single-task steal (~ one per task here); a batch capped
// at max_batch (B4) leaves the rest as a deque of its own, emptied the same way.
TEST(DFDequesBatches, OneWorkerEmptiesEachGivenUpDequeInTwoSteals) {
  for (std::uint64_t k : {std::uint64_t{1024}, std::uint64_t{4096}, std::uint64_t{50000}}) {
    slaw::runtime rt(dfd_cfg(1, k));
    torus t(150);  // 22 500 tasks, chains thousands deep
    rt.reset_stats();
    EXPECT_EQ(rt.run(dfs(&t)), t.vertices());
    EXPECT_TRUE(t.spanning_tree());
    const slaw::runtime_stats s = rt.stats();
    EXPECT_GT(s.dfd_giveups, 10u) << "K=" << k;
    EXPECT_LE(s.dfd_steals, 2 * (s.dfd_giveups + s.dfd_splits)) << "K=" << k;
    if (k >= 4096) EXPECT_LT(s.dfd_steals, static_cast<std::uint64_t>(t.vertices()) / 8) << "K=" << k;
    // The continuations moved in batches, not one per steal: the batches carried more than the steals.
    EXPECT_GT(s.dfd_batched, s.dfd_steals) << "K=" << k;
    EXPECT_NE(s.to_json().find("\"batched\":" + std::to_string(s.dfd_batched)), std::string::npos);
    EXPECT_LE(s.total.quota_max_used, static_cast<std::int64_t>(k));
  }
}

// B4: a chain given up deeper than max_batch comes back at most max_batch entries per steal, and a
// give-up moves only what the worker's deque holds, so the work of moving entries stays linear in the
// tasks. Uncapped, the whole chain moved at every steal and every give-up: at K = 200 000 a 90 000-task
// DFS moved ~10^7 entries (pdfs at 10^6 tasks: 1.6 * 10^8, 9x slower than at K = 50 000).
TEST(DFDequesBatches, DeepChainsComeBackInCappedBatches) {
  for (std::uint64_t k : {std::uint64_t{200000}, std::uint64_t{1000000}}) {
    slaw::runtime rt(dfd_cfg(1, k));
    torus t(300);  // 90 000 tasks, chains tens of thousands deep
    rt.reset_stats();
    EXPECT_EQ(rt.run(dfs(&t)), t.vertices());
    EXPECT_TRUE(t.spanning_tree());
    const slaw::runtime_stats s = rt.stats();
    EXPECT_GT(s.dfd_splits, 0u) << "K=" << k;
    EXPECT_LE(s.dfd_steals, 2 * (s.dfd_giveups + s.dfd_splits)) << "K=" << k;
    EXPECT_LE(s.dfd_batched, 2 * static_cast<std::uint64_t>(t.vertices())) << "K=" << k;
    EXPECT_NE(s.to_json().find("\"splits\":" + std::to_string(s.dfd_splits)), std::string::npos);
  }
}

// B3 under contention: thieves take batches of ownerless deques (capped ones, B4, at the largest K)
// and of each other's deques while chains end everywhere; every finish must count every detached child before it ends (a finish that
// ended early returns fewer ended tasks; a child counted late underflows it). Under ThreadSanitizer
// this also checks that a batch pushed under R's lock is published to the thieves of its new owner.
TEST(DFDequesBatches, DeepEscapingChainsEndInsideTheirFinishUnderContention) {
  std::uint64_t splits = 0;
  for (std::uint64_t k : {std::uint64_t{1024}, std::uint64_t{4096}, std::uint64_t{50000}, std::uint64_t{200000}}) {
    for (unsigned w : {2u, 4u, 8u}) {
      slaw::runtime rt(dfd_cfg(w, k));
      const std::int64_t memory0 = rt.stats().memory_live;
      for (int rep = 0; rep < 20; ++rep) {
        torus t(64);
        ASSERT_EQ(rt.run(dfs(&t)), t.vertices()) << "K=" << k << " w=" << w << " rep=" << rep;
        ASSERT_TRUE(t.spanning_tree()) << "K=" << k << " w=" << w;
      }
      const slaw::runtime_stats s = rt.stats();
      EXPECT_GT(s.dfd_giveups, 0u);
      EXPECT_LE(s.total.quota_max_used, static_cast<std::int64_t>(k));
      EXPECT_LE(std::llabs(s.memory_live - memory0), slaw_test::live_change_error(s));  // every frame freed
      splits += s.dfd_splits;
    }
  }
  EXPECT_GT(splits, 0u);  // capped batches (B4) were taken under contention too
}

// A waiting thief (a scope left by co_return waits in place, running only its scope's tasks) takes a
// batch it may not run apart and leaves it in R, detached: scopes with deep chains, left early, beside
// other scopes' chains, at K small enough that their deques are given up.
slaw::task<> scope_left_early(torus* t, int* ended) {
  {
    auto f = co_await slaw::start_finish();
    co_await slaw::async(visit, t, 0);
    // left without end_finish: the scope's end waits in place for its tasks
  }
  *ended = t->ended.load(std::memory_order_relaxed);
}

TEST(DFDequesBatches, ScopesLeftEarlyWaitForTheirBatches) {
  for (unsigned w : {1u, 2u, 8u}) {
    slaw::runtime rt(dfd_cfg(w, 1024));
    const std::int64_t memory0 = rt.stats().memory_live;
    for (int rep = 0; rep < 10; ++rep) {
      torus a(40), b(40);
      int ended_a = -1, ended_b = -1;
      rt.run([](torus* a, torus* b, int* ea, int* eb) -> slaw::task<> {
        auto f = co_await slaw::start_finish();
        co_await slaw::async(scope_left_early, a, ea);
        co_await scope_left_early(b, eb);
        co_await slaw::end_finish(f);
      }(&a, &b, &ended_a, &ended_b));
      ASSERT_EQ(ended_a, a.vertices()) << "w=" << w;
      ASSERT_EQ(ended_b, b.vertices()) << "w=" << w;
      ASSERT_TRUE(a.spanning_tree() && b.spanning_tree());
    }
    const slaw::runtime_stats s = rt.stats();
    EXPECT_LE(std::llabs(s.memory_live - memory0), slaw_test::live_change_error(s));
  }
}

}  // namespace
