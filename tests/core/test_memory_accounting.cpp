// Memory accounting (frames, user memory, remote frees, the process gauges) and SLAW's space bounds
// (ADP's S and F) on deep and wide programs (docs/design/space.md §1, docs/design/adaptive_policy.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <coroutine>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "slaw/detail/frame_allocator.hpp"
#include "slaw/slaw.hpp"
#include "../support/memory_gauge.hpp"

namespace {

slaw::config cfg_of(unsigned workers, slaw::policy::mode m = slaw::policy::mode::dyn) {
  slaw::config c;
  c.workers = workers;
  c.policy = m;
  return c;
}

// ---------------------------------------------------------------- accounting

slaw::task<> allocate_pattern() {
  void* a = slaw::allocate(1000);
  void* b = slaw::allocate(3000);
  slaw::deallocate(a, 1000);
  void* c = slaw::allocate(200000);  // a large block
  slaw::deallocate(c, 200000);
  slaw::deallocate(b, 3000);
  co_return;
}

TEST(MemoryAccounting, UserMemoryLivePeakTotal) {
  slaw::runtime rt(cfg_of(1));
  rt.run(allocate_pattern());  // warm up the allocator's chunks
  rt.reset_stats();
  rt.run(allocate_pattern());
  slaw::worker_stats w = rt.stats().workers[0];
  EXPECT_EQ(w.user_bytes_live, 0);
  EXPECT_EQ(w.user_bytes_peak, 203000);  // b + c
  EXPECT_EQ(w.user_bytes_total, 204000u);
}

// Frame and user peaks are separate: user memory growing while frames shrink must not lower the
// frame peak (both share one watermark in the allocator).
TEST(MemoryAccounting, FramePeakSurvivesUserGrowth) {
  slaw::runtime rt(cfg_of(1));
  rt.reset_stats();
  rt.run([]() -> slaw::task<> {
    auto f = co_await slaw::start_finish();
    for (int i = 0; i < 50; ++i)  // help-first: 50 frames queued at once
      co_await slaw::async(slaw::hf, []() -> slaw::task<> { co_return; });
    co_await slaw::end_finish(f);
    void* p = slaw::allocate(6000);  // frames are back to a few, user memory grows past their peak
    slaw::deallocate(p, 6000);
  }());
  slaw::worker_stats w = rt.stats().workers[0];
  EXPECT_GE(w.frame_bytes_peak, 50 * 32);
  EXPECT_EQ(w.user_bytes_peak, 6000);
}

// reset_stats restarts the frame peak from the live bytes; the allocator's watermark still folds the
// old peak until its owner re-derives it (frame_allocator::take_peak_reset, at the next scheduling
// point). The same deep recursion after a reset must reach the same peak again: had the owner kept the
// old watermark, frames would have grown back to it unseen and the second peak would be the few bytes
// live at the reset. The recursion stays within one gauge step (16 KiB), whose crossing would re-derive
// the watermark anyway.
slaw::task<> descend(int depth) {
  if (depth > 0) co_await descend(depth - 1);
}

TEST(MemoryAccounting, FramePeakIsSeenAgainAfterAReset) {
  constexpr int depth = 60;
  for (auto m : {slaw::policy::mode::wf, slaw::policy::mode::hf, slaw::policy::mode::dyn}) {
    slaw::runtime rt(cfg_of(1, m));
    rt.run(descend(depth));
    const std::int64_t first = rt.stats().workers[0].frame_bytes_peak;
    ASSERT_GE(first, depth * 32) << slaw::to_string(m);
    ASSERT_LT(first, slaw::detail::gauge_step) << slaw::to_string(m);
    for (int round = 0; round < 3; ++round) {
      rt.reset_stats();
      EXPECT_LT(rt.stats().workers[0].frame_bytes_peak, first / 10) << slaw::to_string(m) << ", round " << round;
      rt.run(descend(depth));
      EXPECT_EQ(rt.stats().workers[0].frame_bytes_peak, first) << slaw::to_string(m) << ", round " << round;
    }
  }
}

// Another thread reads an allocator's live bytes (stats) while its owner moves the band the fast path
// keeps them in (frame_allocator::set_band: the watermark and the room under it change together). The live
// bytes stay the same throughout, the watermark swings by thousands of bytes: a read of a half-done
// move (the new watermark with the old room) is off by that much. The seqlock in all_live_seen must
// never let one through.
TEST(MemoryAccounting, LiveBytesReadDuringAWatermarkMoveAreWhole) {
  using slaw::detail::frame_allocator;
  using slaw::detail::mem_kind;
  frame_allocator* a = frame_allocator::acquire();
  std::vector<void*> kept;
  std::atomic<std::int64_t> live{-1};
  std::atomic<bool> stop{false};
  std::atomic<long> reads{0}, wrong{0};
  std::thread owner([&] {
    a->reset_peaks();
    a->take_peak_reset();
    for (int i = 0; i < 8; ++i) kept.push_back(a->allocate(512));
    void* extra = a->allocate(4096);  // the frame peak: 4096 above what stays live
    a->deallocate_local(extra, 4096, slaw::detail::size_class_of(4096));
    live.store(a->live_bytes(mem_kind::frame));
    // Quota on (a watermark just above the live bytes) and off (the frame peak's, 4096 above):
    // set_band each time, the live bytes unchanged.
    for (int i = 0; i < 1000000 && !stop.load(std::memory_order_relaxed); ++i) {
      a->quota_enable(1);
      a->quota_disable();
    }
    stop.store(true);
  });
  std::thread reader([&] {
    while (live.load() < 0) std::this_thread::yield();
    const std::int64_t expect = live.load();
    while (!stop.load(std::memory_order_relaxed)) {
      if (a->live_bytes(mem_kind::frame) != expect) wrong.fetch_add(1, std::memory_order_relaxed);
      reads.fetch_add(1, std::memory_order_relaxed);
    }
  });
  owner.join();
  reader.join();
  EXPECT_EQ(wrong.load(), 0) << "of " << reads.load() << " reads";
  EXPECT_GT(reads.load(), 0);
  EXPECT_GE(live.load(), 8 * 512);
  for (void* p : kept) a->deallocate_local(p, 512, slaw::detail::size_class_of(512));
  frame_allocator::release(a);
}

TEST(MemoryAccounting, FreeOnAnotherThreadIsCreditedToTheOwner) {
  slaw::runtime rt(cfg_of(1));
  rt.reset_stats();
  void* p = nullptr;
  rt.run([](void** out) -> slaw::task<> {
    *out = slaw::allocate(512);
    co_return;
  }(&p));
  EXPECT_EQ(rt.stats().workers[0].user_bytes_live, 512);
  slaw::deallocate(p, 512);  // on this (non-worker) thread: a remote free
  rt.run([]() -> slaw::task<> { co_return; }());  // the owner drains its remote frees between tasks
  rt.run([]() -> slaw::task<> { co_return; }());
  EXPECT_EQ(rt.stats().workers[0].user_bytes_live, 0);
}

// The process-wide gauge learns of a remote free at once, not when the (perhaps idle) owner drains.
TEST(MemoryAccounting, ProcessGaugeSeesRemoteFreesAtOnce) {
  slaw::runtime rt(cfg_of(1));
  const std::size_t big = 4 << 20;
  std::int64_t before = rt.stats().memory_live;
  void* p = nullptr;
  rt.run([](void** out, std::size_t n) -> slaw::task<> {
    *out = slaw::allocate(n);
    co_return;
  }(&p, big));
  slaw::runtime_stats s = rt.stats();
  EXPECT_NEAR(static_cast<double>(s.memory_live - before), static_cast<double>(big), static_cast<double>(slaw_test::live_change_error(s)));
  slaw::deallocate(p, big);  // the owner is idle: its own figure waits for its next drain
  s = rt.stats();
  EXPECT_EQ(s.workers[0].user_bytes_live, static_cast<std::int64_t>(big));
  EXPECT_NEAR(static_cast<double>(s.memory_live - before), 0.0, static_cast<double>(slaw_test::live_change_error(s)));
  rt.run([]() -> slaw::task<> { co_return; }());  // the drain (after this task) moves the owner's baseline only
  rt.run([]() -> slaw::task<> { co_return; }());  // ... and has happened before this one starts
  s = rt.stats();
  EXPECT_EQ(s.workers[0].user_bytes_live, 0);
  EXPECT_NEAR(static_cast<double>(s.memory_live - before), 0.0, static_cast<double>(slaw_test::live_change_error(s)));
}

TEST(MemoryAccounting, StandardAllocatorAndNonWorkerThreads) {
  slaw::runtime rt(cfg_of(2));
  rt.reset_stats();
  long sum = 0;
  rt.run([](long* out) -> slaw::task<> {
    std::vector<long, slaw::allocator<long>> v;
    for (long i = 0; i < 10000; ++i) v.push_back(i);
    for (long x : v) *out += x;
    co_return;
  }(&sum));
  EXPECT_EQ(sum, 10000L * 9999 / 2);
  slaw::runtime_stats s = rt.stats();
  EXPECT_GE(s.total.user_bytes_total, 10000u * sizeof(long));
  EXPECT_EQ(s.total.user_bytes_live, 0);
  // Off the workers slaw::allocate still works (the shared allocator).
  std::vector<int, slaw::allocator<int>> outside(1000, 7);
  EXPECT_EQ(outside[999], 7);
}

// Threads that are not workers make frames through no_worker_allocator, whose pop_frame must always fail
// so that their frames come from the locked global allocator: it must never hold a block. Four threads
// make and drop tasks (and user memory) at once, with a runtime's workers freeing some of them too; under
// ThreadSanitizer a block handed out twice, or a free list shared without the lock, is a race.
slaw::task<long> plain_value(long x) { co_return x; }

TEST(MemoryAccounting, ThreadsOutsideWorkersNeverHoldABlockOfTheirOwn) {
  using slaw::detail::no_worker_allocator;
  ASSERT_EQ(slaw::detail::tls_allocator, &no_worker_allocator);
  ASSERT_EQ(slaw::detail::worker_allocator(), nullptr);
  slaw::runtime rt(cfg_of(2));
  std::vector<std::thread> threads;
  std::atomic<long> ran{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&rt, &ran, t] {
      for (int i = 0; i < 300; ++i) {
        { auto dropped = plain_value(i); }                    // made and destroyed here
        if (i % 10 == t) ran += rt.run(plain_value(1));      // made here, freed by a worker
        std::vector<int, slaw::allocator<int>> v(64 + i, i);  // user memory outside the workers
        ASSERT_EQ(v.back(), i);
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(ran.load(), 4 * 30);
  const slaw::detail::frame_stats& st = no_worker_allocator.stats();
  EXPECT_EQ(st.kind[0].total.load(), 0u);
  EXPECT_EQ(st.kind[1].total.load(), 0u);
  EXPECT_EQ(st.chunk_bytes.load(), 0u);
  EXPECT_EQ(no_worker_allocator.all_live(), 0);
}

// A frame allocation's slow path (a chunk refill; every allocation off the workers) is called from the
// coroutine's ramp while the ramp still holds its arguments (under clang through preserve_most,
// codegen.hpp). Arguments in every integer and vector argument register, a long double on
// the stack, and frames of four size classes; each task returns a checksum of its arguments, which the
// test computes from the same values.
template <int Pad>
slaw::task<double> checksum(long a, long b, long c, long d, long e, long f, double x0, double x1, double x2,
                            double x3, double x4, double x5, double x6, double x7, long double q) {
  volatile char pad[Pad];
  pad[Pad - 1] = static_cast<char>(a);
  co_await std::suspend_never{};  // `pad` lives across a suspension point: it is in the frame
  co_return static_cast<double>(a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + pad[Pad - 1]) + x0 + 2 * x1 + 3 * x2 +
      4 * x3 + 5 * x4 + 6 * x5 + 7 * x6 + 8 * x7 + static_cast<double>(q);
}
double expected_checksum(long i) {
  const double x = 0.5 * static_cast<double>(i);
  return static_cast<double>(21 * i + 6 + static_cast<char>(i)) + 36 * x + 0.25;
}
template <int Pad>
slaw::task<double> make_checksum(long i) {
  const double x = 0.5 * static_cast<double>(i);
  return checksum<Pad>(i, i, i, i, i, i + 1, x, x, x, x, x, x, x, x, 0.25L);
}
template <int Pad>
slaw::task<> spawn_checksums(long n, std::vector<double>* out) {
  auto f = co_await slaw::start_finish();
  for (long i = 0; i < n; ++i) {
    const double x = 0.5 * static_cast<double>(i);
    co_await slaw::async(slaw::hf, &(*out)[static_cast<std::size_t>(i)], checksum<Pad>, i, i, i, i, i, i + 1, x, x,
                         x, x, x, x, x, x, 0.25L);
  }
  co_await slaw::end_finish(f);
}
template <int Pad>
void check_checksums(slaw::runtime& rt) {
  for (long i = 0; i < 50; ++i)  // made on this thread: every frame through the slow path
    ASSERT_EQ(rt.run(make_checksum<Pad>(i)), expected_checksum(i)) << "Pad " << Pad << ", off the workers, i = " << i;
  const long n = 3000;  // help-first: all frames live at once, so the workers' free lists run dry
  std::vector<double> out(static_cast<std::size_t>(n), -1);
  rt.run(spawn_checksums<Pad>(n, &out));
  for (long i = 0; i < n; ++i)
    ASSERT_EQ(out[static_cast<std::size_t>(i)], expected_checksum(i)) << "Pad " << Pad << ", on a worker, i = " << i;
}

TEST(MemoryAccounting, AllocationSlowPathKeepsTheRampsArguments) {
  for (unsigned w : {1u, 2u}) {
    slaw::runtime rt(cfg_of(w));
    check_checksums<1>(rt);
    check_checksums<200>(rt);
    check_checksums<700>(rt);
    check_checksums<3000>(rt);
  }
}

// A flat loop of n asyncs with one clause; `hold` keeps every task from finishing until all are spawned.
slaw::task<> leaf(std::atomic<long>* done) {
  done->fetch_add(1, std::memory_order_relaxed);
  co_return;
}
slaw::task<> flat_loop(long n, slaw::schedule_clause c, std::atomic<long>* done) {
  auto f = co_await slaw::start_finish();
  for (long i = 0; i < n; ++i) co_await slaw::async(c, leaf, done);
  co_await slaw::end_finish(f);
}

TEST(MemoryAccounting, ActiveTasksAndQueuedFreshBytes) {
  const long n = 20000;
  for (auto m : {slaw::policy::mode::hf, slaw::policy::mode::wf}) {
    slaw::runtime rt(cfg_of(1, m));
    rt.reset_stats();
    std::atomic<long> done{0};
    rt.run(flat_loop(n, slaw::dyn, &done));
    ASSERT_EQ(done.load(), n);
    slaw::runtime_stats s = rt.stats();
    EXPECT_EQ(s.total.fresh_bytes_live, 0);
    if (m == slaw::policy::mode::hf) {
      // One worker, help-first: every child is queued before any runs.
      EXPECT_GE(s.active_tasks_peak, n - s.gauge_error_tasks);
      EXPECT_EQ(s.total.max_fresh, static_cast<std::uint64_t>(n));
      EXPECT_GE(s.total.fresh_bytes_peak, static_cast<std::uint64_t>(n) * 32);
      EXPECT_GE(s.memory_peak, n * 32 - s.gauge_error_bytes);
    } else {
      EXPECT_LE(s.active_tasks_peak, 2 + s.gauge_error_tasks);
      EXPECT_EQ(s.total.max_fresh, 0u);
      EXPECT_EQ(s.total.fresh_bytes_peak, 0u);
    }
  }
}

// Escaping asyncs three levels deep: tasks begin on one worker and often end on another, so each
// worker's local count drifts in one direction and is published many times.
slaw::task<> escaping(int depth, std::atomic<long>* done) {
  done->fetch_add(1, std::memory_order_relaxed);
  if (depth == 0) co_return;
  for (int i = 0; i < 4; ++i) co_await slaw::async(escaping, depth - 1, done);
}
slaw::task<> escaping_root(long n, std::atomic<long>* done) {
  auto f = co_await slaw::start_finish();
  for (long i = 0; i < n; ++i) co_await slaw::async(escaping, 3, done);
  co_await slaw::end_finish(f);
}

// Between runs no task is live, so the published task gauge must read within its error of 0, run after
// run. Publishing the wrong local count at a band crossing would add an error at every crossing, and
// after a few hundred crossings the gauge would leave that band.
TEST(MemoryAccounting, TaskGaugeReturnsToZeroRunAfterRun) {
  for (unsigned w : {1u, 2u, 8u})
    for (auto m : {slaw::policy::mode::hf, slaw::policy::mode::wf, slaw::policy::mode::dyn}) {
      slaw::runtime rt(cfg_of(w, m));
      for (int r = 0; r < 20; ++r) {
        std::atomic<long> done{0};
        const long n = 50 + 13 * r;
        rt.run(escaping_root(n, &done));
        ASSERT_EQ(done.load(), n * (1 + 4 + 16 + 64));
        const slaw::runtime_stats s = rt.stats();
        ASSERT_LE(s.active_tasks, s.gauge_error_tasks) << w << " workers, run " << r;
      }
      // A help-first root queues its n children before any runs: the peak saw them, within the error
      // (this also catches a gauge that drifts low: stats() reports a negative one as 0).
      if (m == slaw::policy::mode::hf && w == 1) {
        EXPECT_GE(rt.stats().active_tasks_peak, 50 + 13 * 19 - rt.stats().gauge_error_tasks);
      }
    }
}

// The fresh byte peak costs a push one compare until it may rise (worker::new_fresh_bytes_peak): after
// reset_stats both peaks must be seen again from zero, smaller or larger than before, and one frame's
// bytes per queued child.
TEST(MemoryAccounting, FreshPeaksStartAgainAfterAReset) {
  slaw::runtime rt(cfg_of(1, slaw::policy::mode::hf));
  std::uint64_t bytes_per_child = 0;
  for (long n : {3000L, 1000L, 2000L, 2000L, 10L}) {
    rt.reset_stats();
    std::atomic<long> done{0};
    rt.run(flat_loop(n, slaw::dyn, &done));
    ASSERT_EQ(done.load(), n);
    const slaw::runtime_stats s = rt.stats();
    EXPECT_EQ(s.total.max_fresh, static_cast<std::uint64_t>(n)) << n << " children";
    ASSERT_EQ(s.total.fresh_bytes_peak % static_cast<std::uint64_t>(n), 0u) << n << " children";
    if (bytes_per_child == 0) bytes_per_child = s.total.fresh_bytes_peak / static_cast<std::uint64_t>(n);
    EXPECT_GE(bytes_per_child, 32u);
    EXPECT_EQ(s.total.fresh_bytes_peak, bytes_per_child * static_cast<std::uint64_t>(n)) << n << " children";
    EXPECT_EQ(s.total.fresh_bytes_live, 0);
  }
}

// ---------------------------------------------------------------- ADP bounds on deep and wide programs

// Parallel depth-first search of an R x C torus from (0,0): one async per newly visited vertex, so the
// spawn depth follows the DFS tree (depth ~ R*C on a torus).
struct torus {
  int rows, cols;
  std::vector<std::atomic<std::uint8_t>> seen;
  std::atomic<long> visited{0};
  torus(int r, int c) : rows(r), cols(c), seen(static_cast<std::size_t>(r) * c) {}
};
slaw::task<> dfs(torus* t, int v) {
  t->visited.fetch_add(1, std::memory_order_relaxed);
  int r = v / t->cols, c = v % t->cols;
  const int nb[4] = {((r + 1) % t->rows) * t->cols + c, r * t->cols + (c + 1) % t->cols,
                     ((r + t->rows - 1) % t->rows) * t->cols + c, r * t->cols + (c + t->cols - 1) % t->cols};
  for (int u : nb)
    if (!t->seen[u].exchange(1, std::memory_order_relaxed)) co_await slaw::async(dfs, t, u);
}
slaw::task<> pdfs(torus* t) {
  t->seen[0].store(1);
  co_await dfs(t, 0);
}

TEST(SpaceBounds, DynWorkFirstDepthStaysBelowSOnADeepTorusDfs) {
  for (unsigned w : {1u, 2u}) {
    slaw::config c = cfg_of(w);
    c.adp.S = 64;
    slaw::runtime rt(c);
    torus t(300, 300);  // DFS tree depth up to 9e4
    rt.run(pdfs(&t));
    ASSERT_EQ(t.visited.load(), 300L * 300);
    slaw::runtime_stats s = rt.stats();
    for (const auto& ws : s.workers) EXPECT_LE(ws.max_wf_depth, c.adp.S) << w << " workers";
    EXPECT_GT(s.total.spawns_hf, 0u);  // the stack condition fired
  }
}

TEST(SpaceBounds, DynFreshTasksStayBelowFOnAFlatLoop) {
  const long n = 100000;
  for (unsigned w : {1u, 2u}) {
    slaw::config c = cfg_of(w);
    c.adp.F = 32;
    slaw::runtime rt(c);
    std::atomic<long> done{0};
    rt.run(flat_loop(n, slaw::dyn, &done));
    ASSERT_EQ(done.load(), n);
    for (const auto& ws : rt.stats().workers) EXPECT_LE(ws.max_fresh, c.adp.F) << w << " workers";
  }
}

}  // namespace
