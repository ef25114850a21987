// Runtime behaviour: results under every policy and worker count, serial order of pure work-first,
// ADP settling on work-first, the S and F bounds, exceptions, parking, and the runtime's lifecycle.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <chrono>
#include <memory>
#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <vector>

#include "slaw/slaw.hpp"

namespace {

slaw::config make_cfg(unsigned workers, slaw::policy::mode m) {
  slaw::config c;
  c.workers = workers;
  c.policy = m;
  return c;
}

slaw::task<long> fib(int n) {
  if (n < 2) co_return n;
  long a, b;
  auto f = co_await slaw::start_finish();
  co_await slaw::async(&a, fib, n - 1);
  b = co_await fib(n - 2);
  co_await slaw::end_finish(f);
  co_return a + b;
}

// The same with the lambda form of finish and a global (escaping) spawn pattern.
slaw::task<> fib_escaping(int n, std::atomic<long>* sum) {
  if (n < 2) {
    sum->fetch_add(n, std::memory_order_relaxed);
    co_return;
  }
  co_await slaw::async(fib_escaping, n - 1, sum);
  co_await slaw::async(fib_escaping, n - 2, sum);
}

TEST(Runtime, FibAllPoliciesAndWorkerCounts) {
  for (auto m : {slaw::policy::mode::wf, slaw::policy::mode::hf, slaw::policy::mode::dyn})
    for (unsigned w : {1u, 2u, 8u}) {
      slaw::runtime rt(make_cfg(w, m));
      EXPECT_EQ(rt.run(fib(22)), 17711) << slaw::to_string(m) << " " << w;
      std::atomic<long> sum{0};
      rt.run([](std::atomic<long>* s) -> slaw::task<> {
        co_await slaw::finish([&]() -> slaw::task<> { co_await fib_escaping(20, s); });
        EXPECT_EQ(s->load(), 6765);
      }(&sum));
      EXPECT_EQ(sum.load(), 6765);
    }
}

// Pure work-first on one worker: execution order is the serial order, with no context switch.
slaw::task<> ordered(int depth, std::vector<int>* log, int* next) {
  log->push_back((*next)++);
  if (depth == 0) co_return;
  auto f = co_await slaw::start_finish();
  for (int i = 0; i < 3; ++i) co_await slaw::async(ordered, depth - 1, log, next);
  co_await slaw::end_finish(f);
  log->push_back(-1);
}

TEST(Runtime, WorkFirstOneWorkerIsSerialOrder) {
  slaw::runtime rt(make_cfg(1, slaw::policy::mode::wf));
  std::vector<int> log;
  int next = 0;
  rt.run(ordered(5, &log, &next));
  // Serial elision: the same recursion as plain calls.
  std::vector<int> ref;
  int rnext = 0;
  auto serial = [&](auto& self, int depth) -> void {
    ref.push_back(rnext++);
    if (depth == 0) return;
    for (int i = 0; i < 3; ++i) self(self, depth - 1);
    ref.push_back(-1);
  };
  serial(serial, 5);
  EXPECT_EQ(log, ref);
  auto s = rt.stats();
  EXPECT_EQ(s.total.context_switches, 0u);
  EXPECT_EQ(s.total.spawns_hf, 0u);
  EXPECT_GT(s.total.spawns_wf, 300u);
}

TEST(Runtime, DynOnOneWorkerStaysWorkFirst) {
  slaw::config c = make_cfg(1, slaw::policy::mode::dyn);
  slaw::runtime rt(c);
  EXPECT_EQ(rt.run(fib(20)), 6765);
  auto s = rt.stats();
  // Starts work-first; with no thief every re-evaluation keeps it.
  EXPECT_EQ(s.total.spawns_hf, 0u);
  EXPECT_EQ(s.total.policy_switches, 0u);
  EXPECT_EQ(s.workers[0].policy, "wf");
  EXPECT_GT(s.total.spawns_wf, 5000u);
}

// A flat loop of asyncs: with S1 < S, dyn never holds more than F fresh tasks per worker.
slaw::task<> leaf(std::atomic<long>* n) {
  n->fetch_add(1, std::memory_order_relaxed);
  co_return;
}
slaw::task<> flat(int n, std::atomic<long>* count) {
  auto f = co_await slaw::start_finish();
  for (int i = 0; i < n; ++i) co_await slaw::async(slaw::dyn, leaf, count);
  co_await slaw::end_finish(f);
}

TEST(Runtime, FreshTasksNeverExceedF) {
  for (unsigned w : {1u, 2u, 4u}) {
    slaw::config c = make_cfg(w, slaw::policy::mode::dyn);
    c.adp.F = 16;
    c.adp.INT = 8;
    c.adp.steal_threshold = 0;  // steal-happy: the heuristic wants help-first as often as it can
    c.adp.start = slaw::policy::spawn_policy::hf;  // help-first intervals from the start, thieves or not
    slaw::runtime rt(c);
    std::atomic<long> count{0};
    rt.run(flat(200000, &count));
    EXPECT_EQ(count.load(), 200000);
    auto s = rt.stats();
    EXPECT_LE(s.total.max_fresh, c.adp.F) << w << " workers";
    EXPECT_GT(s.total.spawns_hf, 0u) << w << " workers";
  }
}

TEST(Runtime, HelpFirstHoldsAllFreshTasks) {
  slaw::runtime rt(make_cfg(1, slaw::policy::mode::hf));
  std::atomic<long> count{0};
  rt.run(flat(50000, &count));
  EXPECT_EQ(count.load(), 50000);
  EXPECT_EQ(rt.stats().total.max_fresh, 50000u);
}

// Help-first on one worker: a frame at end_finish runs its own queued children on top of itself, the
// last spawned first (docs/design/finish.md, "Joining own children"), never suspending.
slaw::task<> labelled(int depth, long label, std::vector<long>* log) {
  log->push_back(label);
  if (depth == 0) co_return;
  auto f = co_await slaw::start_finish();
  for (int i = 0; i < 3; ++i) co_await slaw::async(labelled, depth - 1, label * 4 + i + 1, log);
  co_await slaw::end_finish(f);
  log->push_back(-label);
}

TEST(Runtime, HelpFirstOneWorkerJoinsItsChildrenInPlace) {
  slaw::runtime rt(make_cfg(1, slaw::policy::mode::hf));
  std::vector<long> log;
  rt.run(labelled(5, 1, &log));
  // The oracle: the same recursion, each frame's children visited last spawned first.
  std::vector<long> ref;
  auto serial = [&](auto& self, int depth, long label) -> void {
    ref.push_back(label);
    if (depth == 0) return;
    for (int i = 2; i >= 0; --i) self(self, depth - 1, label * 4 + i + 1);
    ref.push_back(-label);
  };
  serial(serial, 5, 1);
  EXPECT_EQ(log, ref);
  auto s = rt.stats();
  EXPECT_EQ(s.total.context_switches, 0u);  // no frame suspended: every join ran in place
  EXPECT_EQ(s.total.spawns_wf, 0u);
  EXPECT_EQ(s.total.spawns_hf, 363u);  // 3 + 9 + 27 + 81 + 243
  EXPECT_EQ(s.total.local_takes, s.total.spawns_hf);
}

// A join is also a point between tasks where the joining worker answers thieves (take_next_joinable):
// a frame at end_finish of a flat help-first loop exposes part of its queued children to a thief that
// asked, instead of joining every one of them itself. Without that answer the thief got the one child
// that the loop's first push exposed, per finish, and a flat help-first loop ran at one worker's speed at
// any worker count. Each child sleeps, so the thief has time to ask; the arbiter is off, so both
// workers run even where this process may use one core.
slaw::task<> sleepy_child(std::atomic<int>* by_thief, unsigned owner) {
  if (slaw::this_worker() != owner) by_thief->fetch_add(1, std::memory_order_relaxed);
  std::this_thread::sleep_for(std::chrono::microseconds(300));
  co_return;
}
slaw::task<int> flat_sleepy_loop(int n) {
  std::atomic<int> by_thief{0};
  const unsigned owner = slaw::this_worker();
  auto f = co_await slaw::start_finish();
  for (int i = 0; i < n; ++i) co_await slaw::async(slaw::hf, sleepy_child, &by_thief, owner);
  co_await slaw::end_finish(f);
  co_return by_thief.load();
}

TEST(Runtime, HelpFirstJoinAnswersThieves) {
  for (auto m : {slaw::policy::mode::hf, slaw::policy::mode::dyn}) {
    slaw::config c = make_cfg(2, m);
    c.arbiter.arbiter = slaw::policy::arbiter::off;
    slaw::runtime rt(c);
    // The thief's share of each of 15 finishes of 32 children (each takes 10 ms alone). With the answer
    // at the join about half; without it one or none, and more only where the thief's request came
    // during the loop's pushes (a push answers it), one finish in ten or so.
    std::vector<int> share;
    for (int rep = 0; rep < 15; ++rep) share.push_back(rt.run(flat_sleepy_loop(32)));
    std::sort(share.begin(), share.end());
    EXPECT_GE(share[share.size() / 2], 5) << (m == slaw::policy::mode::hf ? "hf" : "dyn")
                                          << ": the median finish had the thief run " << share[share.size() / 2]
                                          << " of its 32 help-first children";
  }
}

// Joined children that open scopes of their own whose children are stolen: a joined child suspends,
// goes on on another worker, and there ends, resumes its waiter or joins that worker's own children
// of the same finish. Every scope checks at its end that all its children ended.
slaw::task<> join_leaf(std::atomic<long>* done) {
  volatile int spin = 0;
  for (int i = 0; i < 200; ++i) spin = spin + i;
  done->fetch_add(1, std::memory_order_relaxed);
  co_return;
}
slaw::task<> join_inner(int n, std::atomic<long>* done, std::atomic<long>* bad) {
  std::atomic<long> mine{0};
  auto f = co_await slaw::start_finish();
  for (int i = 0; i < n; ++i) co_await slaw::async(slaw::hf, join_leaf, &mine);
  co_await slaw::end_finish(f);
  if (mine.load() != n) bad->fetch_add(1);
  done->fetch_add(mine.load(), std::memory_order_relaxed);
}
slaw::task<> join_outer(int n, std::atomic<long>* done, std::atomic<long>* bad) {
  std::atomic<long> mine{0};
  auto f = co_await slaw::start_finish();
  for (int i = 0; i < n; ++i) co_await slaw::async(slaw::hf, join_inner, 8, &mine, bad);
  co_await slaw::end_finish(f);
  if (mine.load() != 8L * n) bad->fetch_add(1);
  done->fetch_add(mine.load(), std::memory_order_relaxed);
}

TEST(Runtime, JoinedChildrenThatSuspendEndAnywhere) {
  const int reps = std::getenv("SLAW_TEST_SCALE") ? 20 : 100;
  for (auto m : {slaw::policy::mode::hf, slaw::policy::mode::dyn})
    for (unsigned w : {1u, 2u, 8u}) {
      slaw::runtime rt(make_cfg(w, m));
      std::atomic<long> done{0}, bad{0};
      for (int r = 0; r < reps; ++r) rt.run(join_outer(16, &done, &bad));
      EXPECT_EQ(done.load(), 16L * 8 * reps) << slaw::to_string(m) << " " << w;
      EXPECT_EQ(bad.load(), 0) << slaw::to_string(m) << " " << w;
    }
}

// A recursion 10^6 deep (each level spawns the next, escaping): WF depth per worker stays <= S.
slaw::task<> deep(int n, std::atomic<int>* reached, slaw::schedule_clause clause) {
  if (n == 0) {
    reached->store(1);
    co_return;
  }
  co_await slaw::async(clause, deep, n - 1, reached, clause);
}

TEST(Runtime, DeepRecursionRespectsStackBound) {
  for (auto clause : {slaw::dyn, slaw::wf}) {
    for (unsigned w : {1u, 2u}) {
      slaw::config c = make_cfg(w, slaw::policy::mode::dyn);
      slaw::runtime rt(c);
      std::atomic<int> reached{0};
      rt.run(deep(1'000'000, &reached, clause));
      EXPECT_EQ(reached.load(), 1);
      auto s = rt.stats();
      EXPECT_LE(s.total.max_wf_depth, c.adp.S);
      EXPECT_GE(s.total.max_wf_depth, c.adp.S - 1);  // the bound was reached, and held
      EXPECT_GT(s.total.spawns_hf, 1000u);           // the stack condition forced help-first
    }
  }
}

// The spawn fast path (worker.hpp, choose) skips the depth test while armed and relies on the
// preempted deque's watch to report the push that reaches depth S. Random trees whose paths climb past
// S and fall back again many times, with short intervals (the worker arms and disarms often) and some
// explicit clauses: every node runs once (the count comes from the tree's text) and no worker ever
// goes deeper than S.
std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ull;
  x ^= x >> 27;
  x *= 0x81dadef4bc2dd44dull;
  return x ^ (x >> 33);
}
unsigned children_of(std::uint64_t id, int level) { return level >= 24 ? 0 : mix(id) % 16 < 11 ? 1 : mix(id) % 16 < 15 ? 2 : 0; }
slaw::schedule_clause clause_of(std::uint64_t id) {
  const std::uint64_t r = mix(id ^ 0x5bd1e995) % 16;
  return r == 0 ? slaw::wf : r == 1 ? slaw::hf : slaw::dyn;
}
long tree_size(std::uint64_t id, int level) {
  long n = 1;
  for (unsigned i = 0; i < children_of(id, level); ++i) n += tree_size(id * 3 + i + 1, level + 1);
  return n;
}
slaw::task<> tree(std::uint64_t id, int level, std::atomic<long>* ran) {
  ran->fetch_add(1, std::memory_order_relaxed);
  for (unsigned i = 0; i < children_of(id, level); ++i) {
    const std::uint64_t child = id * 3 + i + 1;
    co_await slaw::async(clause_of(child), tree, child, level + 1, ran);
  }
}
slaw::task<> forest(unsigned roots, std::atomic<long>* ran) {
  for (unsigned r = 0; r < roots; ++r) co_await slaw::async(tree, mix(r) % 1000003 * 1000, 0, ran);
}

TEST(Runtime, StackBoundHoldsWhileTheDepthCrossesItOften) {
  constexpr unsigned roots = 3000;
  long expected = 0;
  for (unsigned r = 0; r < roots; ++r) expected += tree_size(mix(r) % 1000003 * 1000, 0);
  for (std::uint32_t INT : {1u, 3u, 64u}) {
    for (unsigned w : {1u, 2u, 8u}) {
      slaw::config c = make_cfg(w, slaw::policy::mode::dyn);
      c.adp.S = 5;
      c.adp.INT = INT;
      c.adp.steal_threshold = INT;
      slaw::runtime rt(c);
      std::atomic<long> ran{0};
      rt.run(forest(roots, &ran));
      EXPECT_EQ(ran.load(), expected) << "INT " << INT << ", " << w << " workers";
      auto s = rt.stats();
      EXPECT_LE(s.total.max_wf_depth, c.adp.S) << "INT " << INT << ", " << w << " workers";
      EXPECT_EQ(s.total.max_wf_depth, c.adp.S) << "the bound was never reached";
      EXPECT_GT(s.total.spawns_wf, static_cast<std::uint64_t>(expected) / 4);
    }
  }
}

TEST(Runtime, PureWorkFirstHasNoStackBound) {
  slaw::runtime rt(make_cfg(1, slaw::policy::mode::wf));
  std::atomic<int> reached{0};
  rt.run(deep(20000, &reached, slaw::dyn));
  EXPECT_EQ(reached.load(), 1);
  EXPECT_EQ(rt.stats().total.max_wf_depth, 20000u);
}

// Exceptions reach the finish's waiter; the first one wins; nothing leaks.
struct boom : std::runtime_error {
  using std::runtime_error::runtime_error;
};
slaw::task<long> thrower(int n) {
  if (n == 0) throw boom("boom");
  long a = 0, b = 0;
  auto f = co_await slaw::start_finish();
  co_await slaw::async(&a, thrower, n - 1);
  b = co_await fib(5);
  co_await slaw::end_finish(f);
  co_return a + b;
}

TEST(Runtime, ExceptionsReachTheFinishWaiter) {
  for (auto m : {slaw::policy::mode::wf, slaw::policy::mode::hf, slaw::policy::mode::dyn})
    for (unsigned w : {1u, 2u, 8u}) {
      slaw::runtime rt(make_cfg(w, m));
      EXPECT_THROW(rt.run(thrower(30)), boom);
      // Caught inside a task by the finish's waiter.
      bool caught = rt.run([]() -> slaw::task<bool> {
        try {
          co_await slaw::finish([]() -> slaw::task<> {
            for (int i = 0; i < 20; ++i) co_await slaw::async(thrower, i % 3);
          });
        } catch (const boom&) {
          co_return true;
        }
        co_return false;
      }());
      EXPECT_TRUE(caught);
      // A sequential call that throws inside an open scope: the scope waits for its tasks first.
      std::atomic<long> done{0};
      EXPECT_THROW(rt.run([](std::atomic<long>* d) -> slaw::task<> {
        auto f = co_await slaw::start_finish();
        for (int i = 0; i < 50; ++i) co_await slaw::async(leaf, d);
        (void)co_await thrower(0);
        co_await slaw::end_finish(f);
      }(&done)),
                   boom);
      EXPECT_EQ(done.load(), 50);
      EXPECT_EQ(rt.run(fib(15)), 610);  // still usable
    }
}

TEST(Runtime, ManyShortRunsWithIdleGaps) {
  slaw::runtime rt(make_cfg(4, slaw::policy::mode::dyn));
  for (int i = 0; i < 3000; ++i) {
    ASSERT_EQ(rt.run(fib(8)), 21);
    if (i % 100 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(3));  // workers park
    else if (i % 10 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  EXPECT_GT(rt.stats().total.parks, 0u);
}

TEST(Runtime, ConcurrentRunsAndSeveralRuntimes) {
  slaw::runtime a(make_cfg(2, slaw::policy::mode::dyn));
  slaw::runtime b(make_cfg(3, slaw::policy::mode::wf));
  std::vector<std::thread> ts;
  std::atomic<int> bad{0};
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&, t] {
      slaw::runtime& rt = t % 2 ? a : b;
      for (int i = 0; i < 30; ++i)
        if (rt.run(fib(16)) != 987) bad.fetch_add(1);
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(a.workers(), 2u);
  EXPECT_EQ(b.workers(), 3u);
}

TEST(Runtime, RunFromOwnWorkerIsRejected) {
  slaw::runtime rt(make_cfg(2, slaw::policy::mode::dyn));
  bool rejected = rt.run([](slaw::runtime* r) -> slaw::task<bool> {
    try {
      r->run(fib(3));
    } catch (const std::logic_error&) {
      co_return true;
    }
    co_return false;
  }(&rt));
  EXPECT_TRUE(rejected);
}

TEST(Runtime, CreateAndDestroyRepeatedly) {
  for (int i = 0; i < 50; ++i) {
    slaw::runtime rt(make_cfg(1 + i % 4, slaw::policy::mode::dyn));
    if (i % 2) {
      EXPECT_EQ(rt.run(fib(10)), 55);
    }
  }
}

TEST(Runtime, FrameBytesAreAccounted) {
  slaw::runtime rt(make_cfg(2, slaw::policy::mode::dyn));
  rt.run(fib(18));
  auto s = rt.stats();
  EXPECT_GT(s.total.frame_bytes_peak, 0);
  EXPECT_GE(s.total.frame_chunk_bytes, 64u * 1024u);
  std::string json = s.to_json();
  EXPECT_NE(json.find("\"spawns_wf\""), std::string::npos);
  EXPECT_NE(json.find("\"per_worker\""), std::string::npos);
}

TEST(Runtime, IsolatedExcludesOtherIsolatedBlocks) {
  slaw::runtime rt(make_cfg(8, slaw::policy::mode::hf));
  long counter = 0;  // plain: only touched inside isolated
  rt.run([](long* c) -> slaw::task<> {
    auto f = co_await slaw::start_finish();
    for (int i = 0; i < 2000; ++i)
      co_await slaw::async([](long* c) -> slaw::task<> {
        slaw::isolated([&] { ++*c; });
        co_return;
      }(c));
    co_await slaw::end_finish(f);
  }(&counter));
  EXPECT_EQ(counter, 2000);
}

}  // namespace

namespace {
struct no_default {
  explicit no_default(int v) : v(v) {}
  int v;
};
slaw::task<no_default> make_nd(int v) { co_return no_default(v); }
slaw::task<std::unique_ptr<int>> make_ptr(int v) { co_return std::make_unique<int>(v); }

TEST(Runtime, RunReturnsNonDefaultConstructibleAndMoveOnlyResults) {
  slaw::runtime rt(make_cfg(2, slaw::policy::mode::dyn));
  EXPECT_EQ(rt.run(make_nd(7)).v, 7);
  EXPECT_EQ(*rt.run(make_ptr(9)), 9);
  EXPECT_EQ(rt.run([]() -> slaw::task<int> { co_return (co_await make_nd(3)).v + *co_await make_ptr(4); }()), 7);
}

// A result aligned beyond 16 bytes lies in a buffer aligned at run time (result_cell), so that every
// promise lies 16 bytes into its frame (promise_base::frame_offset). Returned by a call, through a
// spawn's slot, dropped, and by the run itself; the frame's handle is where self() says.
struct alignas(64) wide {
  long v[8];
};
struct frame_handle_check {
  bool ok = false;
  bool await_ready() const noexcept { return false; }
  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) noexcept {
    ok = h.address() == h.promise().self().address();
    return false;  // goes on at once
  }
  bool await_resume() const noexcept { return ok; }
};
slaw::task<wide> make_wide(long x) {
  EXPECT_TRUE(co_await frame_handle_check{});
  wide w;
  for (int i = 0; i < 8; ++i) w.v[i] = x + i;
  co_return w;
}
slaw::task<long> sum_wides(int n) {
  EXPECT_TRUE(co_await frame_handle_check{});
  std::vector<wide> slots(static_cast<std::size_t>(n));
  auto f = co_await slaw::start_finish();
  for (int i = 0; i < n; ++i) co_await slaw::async(&slots[static_cast<std::size_t>(i)], make_wide, i);
  co_await slaw::async(make_wide(100));  // dropped
  const wide c = co_await make_wide(1000);
  co_await slaw::end_finish(f);
  long s = 0;
  for (const wide& w : slots) s += w.v[7];
  co_return s + c.v[7];
}

TEST(Runtime, OverAlignedResultsAndFrameLayout) {
  for (auto mode : {slaw::policy::mode::wf, slaw::policy::mode::hf, slaw::policy::mode::dyn}) {
    slaw::runtime rt(make_cfg(2, mode));
    EXPECT_EQ(rt.run(sum_wides(50)), 50 * 7 + 49 * 50 / 2 + 1007);
    const wide w = rt.run(make_wide(5));
    EXPECT_EQ(w.v[0], 5);
    EXPECT_EQ(w.v[7], 12);
  }
}
}  // namespace
