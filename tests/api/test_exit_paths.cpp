// Regression tests for the paths programs take when they leave early: scopes left without end_finish
// (by co_return or by an exception), throwing tasks, dropped results, capturing lambdas, nested
// isolated blocks, and misuse of the task and finish API. Each test here failed (hung, leaked, read
// freed memory or deadlocked) before its fix. A hang is turned into a failure by the watchdog.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "slaw/slaw.hpp"

namespace {

// Aborts the process, naming the test, if a scope of this object lives longer than `limit`.
class watchdog {
 public:
  explicit watchdog(std::chrono::seconds limit) {
    thread_ = std::thread([this, limit] {
      std::unique_lock<std::mutex> lk(m_);
      if (!cv_.wait_for(lk, limit, [this] { return done_; })) {
        const auto* t = ::testing::UnitTest::GetInstance()->current_test_info();
        std::fprintf(stderr, "watchdog: %s.%s still running after %llds: a hang\n", t ? t->test_suite_name() : "?",
                     t ? t->name() : "?", static_cast<long long>(limit.count()));
        std::abort();
      }
    });
  }
  ~watchdog() {
    {
      std::lock_guard<std::mutex> g(m_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

struct config_case {
  slaw::policy::mode policy;
  slaw::scheduler_kind scheduler;
  std::size_t quota;
  unsigned workers;
};

std::string name_of(const config_case& c) {
  std::string s = c.scheduler == slaw::scheduler_kind::dfdeques
                      ? "dfd_K" + (c.quota == slaw::quota_infinite ? std::string("inf") : std::to_string(c.quota))
                      : std::string(c.policy == slaw::policy::mode::wf   ? "wf"
                                    : c.policy == slaw::policy::mode::hf ? "hf"
                                                                         : "dyn");
  return s + "_w" + std::to_string(c.workers);
}

std::vector<config_case> all_configs() {
  std::vector<config_case> v;
  for (unsigned w : {1u, 2u, 8u}) {
    for (auto m : {slaw::policy::mode::wf, slaw::policy::mode::hf, slaw::policy::mode::dyn})
      v.push_back({m, slaw::scheduler_kind::ws, slaw::quota_infinite, w});
    for (std::size_t k : {std::size_t{1024}, std::size_t{50000}, slaw::quota_infinite})
      v.push_back({slaw::policy::mode::wf, slaw::scheduler_kind::dfdeques, k, w});
  }
  return v;
}

slaw::config make_config(const config_case& c) {
  slaw::config cfg;
  cfg.workers = c.workers;
  cfg.policy = c.policy;
  cfg.scheduler = c.scheduler;
  cfg.quota = c.quota;
  cfg.adp.S = 4;
  cfg.adp.F = 4;
  cfg.adp.INT = 8;
  cfg.adp.steal_threshold = 8;
  return cfg;
}

class ExitPaths : public ::testing::TestWithParam<config_case> {};

// ---- a. a scope left without end_finish while one of its tasks threw ----

slaw::task<> child_throws() {
  throw std::runtime_error("child");
  co_return;
}

slaw::task<> leave_by_return() {
  auto s = co_await slaw::start_finish();
  co_await slaw::async(child_throws);
  co_return;  // the scope's destructor waits for child_throws; its exception is dropped
}

slaw::task<> leave_by_exception() {
  auto s = co_await slaw::start_finish();
  co_await slaw::async(slaw::hf, child_throws);
  throw std::logic_error("body");
}

TEST_P(ExitPaths, ScopeLeftByReturnAfterAChildThrew) {
  watchdog wd(std::chrono::seconds(60));
  slaw::runtime rt(make_config(GetParam()));
  for (int i = 0; i < 20; ++i) EXPECT_NO_THROW(rt.run(leave_by_return()));
}

TEST_P(ExitPaths, ScopeLeftByExceptionAfterAChildThrew) {
  watchdog wd(std::chrono::seconds(60));
  slaw::runtime rt(make_config(GetParam()));
  for (int i = 0; i < 20; ++i) EXPECT_THROW(rt.run(leave_by_exception()), std::logic_error);
}

// ---- b. nested scope-exit waits on one thread (the waiting thread ran its parent's continuation) ----

slaw::task<> nap(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  co_return;
}

slaw::task<> leave_b() {
  auto b = co_await slaw::start_finish();
  co_await slaw::async(slaw::hf, nap, 100);  // taken by the idle worker
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  co_await slaw::async(slaw::hf, nap, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  co_return;
}

slaw::task<int> leave_a() {
  try {
    auto a = co_await slaw::start_finish();
    co_await slaw::async(slaw::wf, leave_b);
    throw std::runtime_error("leave A");
  } catch (const std::runtime_error&) {
    co_return 1;
  }
  co_return 0;
}

TEST(ExitPathsNested, WaitingThreadNeverRunsItsParentsContinuation) {
  watchdog wd(std::chrono::seconds(60));
  for (unsigned w : {2u, 3u, 8u}) {
    slaw::config cfg;
    cfg.workers = w;
    slaw::runtime rt(cfg);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(rt.run(leave_a()), 1) << w << " workers";
  }
}

// Many early exits nested in each other, with throwing tasks at every level.
slaw::task<> early_exit_tree(int depth, std::atomic<long>& ran) {
  ran.fetch_add(1, std::memory_order_relaxed);
  if (depth == 0) {
    if (ran.load(std::memory_order_relaxed) % 3 == 0) throw std::runtime_error("leaf");
    co_return;
  }
  auto s = co_await slaw::start_finish();
  co_await slaw::async(slaw::hf, early_exit_tree, depth - 1, std::ref(ran));
  co_await slaw::async(slaw::wf, early_exit_tree, depth - 1, std::ref(ran));
  if (depth % 2) throw std::runtime_error("leave");  // left by an exception
  co_return;                                          // left by co_return
}

slaw::task<long> catch_all(int depth, std::atomic<long>& ran) {
  try {
    co_await early_exit_tree(depth, ran);
  } catch (const std::runtime_error&) {
  }
  co_return ran.load();
}

TEST_P(ExitPaths, NestedEarlyExitsWithThrowingTasks) {
  watchdog wd(std::chrono::seconds(120));
  slaw::runtime rt(make_config(GetParam()));
  for (int i = 0; i < 10; ++i) {
    std::atomic<long> ran{0};
    rt.run(catch_all(8, ran));
    EXPECT_EQ(ran.load(), (1L << 9) - 1);  // every task of the full binary tree of depth 8 ran once
  }
}

// ---- c. DFDeques, finite quota: early scope exits followed by quota give-ups ----

slaw::task<> leaf() { co_return; }

slaw::task<> pusher(int n) {
  for (int i = 0; i < n; ++i) {
    co_await slaw::async(leaf);
    std::this_thread::sleep_for(std::chrono::microseconds(20));  // still pushing when the scope is left
  }
}

slaw::task<> leaves_early() {
  auto s = co_await slaw::start_finish();
  co_await slaw::async(slaw::hf, pusher, 16);  // still pushing when the scope is left
  co_return;
}

slaw::task<> escaping(std::atomic<long>& done) {
  co_await leaves_early();
  auto b1 = co_await slaw::make_buffer<char>(800);
  auto b2 = co_await slaw::make_buffer<char>(800);  // over K = 1024: give-ups
  b1[0] = b2[799] = 1;
  for (int i = 0; i < 64; ++i) co_await slaw::async(leaf);
  done.fetch_add(1, std::memory_order_relaxed);
}

slaw::task<> spawn_escaping(std::atomic<long>& done) {
  for (int i = 0; i < 200; ++i) co_await slaw::async(escaping, std::ref(done));
}

TEST_P(ExitPaths, EarlyExitsThenQuotaGiveUps) {
  watchdog wd(std::chrono::seconds(120));
  slaw::runtime rt(make_config(GetParam()));
  for (int i = 0; i < 3; ++i) {
    std::atomic<long> done{0};
    rt.run(spawn_escaping(done));
    EXPECT_EQ(done.load(), 200);
  }
}

// ---- d. results of spawned tasks: slot, discarded, move-only ----

std::atomic<long> live_objects{0};

struct counted {
  std::string payload = std::string(64, 'x');  // on the heap: a leak shows under ASan too
  counted() { live_objects.fetch_add(1); }
  counted(const counted& o) : payload(o.payload) { live_objects.fetch_add(1); }
  counted(counted&& o) noexcept : payload(std::move(o.payload)) { live_objects.fetch_add(1); }
  counted& operator=(const counted&) = default;
  counted& operator=(counted&&) = default;
  ~counted() { live_objects.fetch_sub(1); }
};

slaw::task<counted> make_counted() { co_return counted{}; }
slaw::task<std::unique_ptr<counted>> make_owned() { co_return std::make_unique<counted>(); }

slaw::task<> spawn_results(int n) {
  std::vector<counted> slots(static_cast<std::size_t>(n));
  std::vector<std::unique_ptr<counted>> owned(static_cast<std::size_t>(n));
  auto f = co_await slaw::start_finish();
  for (int i = 0; i < n; ++i) {
    co_await slaw::async(make_counted);                                  // discarded
    co_await slaw::async(&slots[static_cast<std::size_t>(i)], make_counted);  // slot
    co_await slaw::async(&owned[static_cast<std::size_t>(i)], make_owned);    // move-only slot
    counted c = co_await make_counted();                                  // call
  }
  co_await slaw::end_finish(f);
  for (const auto& o : owned)
    if (!o) throw std::logic_error("a move-only slot is empty");
}

TEST_P(ExitPaths, EveryResultFormIsDestroyed) {
  watchdog wd(std::chrono::seconds(60));
  slaw::runtime rt(make_config(GetParam()));
  long before = live_objects.load();
  rt.run(spawn_results(200));
  EXPECT_EQ(live_objects.load(), before);
}

// A task's parameter copies live in its frame. A frame whose parameters are all trivially
// destructible is freed at its end without its destroy function (release_finished_frame); one with
// a parameter like `counted` must still run that function, or the copy leaks. Every way a task ends:
// called, spawned work-first, help-first and joined, help-first and stolen, a member function.
slaw::task<long> takes_counted(counted c, int k) { co_return static_cast<long>(c.payload.size()) + k; }
slaw::task<long> takes_plain(int k, const counted& c) { co_return static_cast<long>(c.payload.size()) + k; }
struct holder {
  counted c;
  slaw::task<long> member(int k) const { co_return static_cast<long>(c.payload.size()) + k; }
};

slaw::task<long> spawn_with_parameters(int n) {
  std::vector<long> out(static_cast<std::size_t>(4 * n));
  const counted shared;
  const holder h;
  long called = 0;
  auto f = co_await slaw::start_finish();
  for (int i = 0; i < n; ++i) {
    const auto at = static_cast<std::size_t>(4 * i);
    co_await slaw::async(slaw::wf, &out[at], takes_counted, counted{}, i);
    co_await slaw::async(slaw::hf, &out[at + 1], takes_counted, counted{}, i);
    co_await slaw::async(&out[at + 2], takes_plain, i, std::cref(shared));
    co_await slaw::async(&out[at + 3], [&h](int k) { return h.member(k); }, i);
    called += co_await takes_counted(counted{}, i);
  }
  co_await slaw::end_finish(f);
  long sum = called;
  for (long v : out) sum += v;
  co_return sum;
}

TEST_P(ExitPaths, ParameterCopiesAreDestroyedWhenTheTaskEnds) {
  watchdog wd(std::chrono::seconds(60));
  slaw::runtime rt(make_config(GetParam()));
  const int n = 500;
  const long before = live_objects.load();
  const long expected = 5 * (64L * n + static_cast<long>(n) * (n - 1) / 2);
  for (int r = 0; r < 3; ++r) EXPECT_EQ(rt.run(spawn_with_parameters(n)), expected);
  EXPECT_EQ(live_objects.load(), before);
  // Every frame went back, whichever way it was freed. (With more workers a frame freed by another
  // worker is credited only when its owner next drains its remote frees.)
  if (GetParam().workers == 1) EXPECT_EQ(rt.stats().total.frame_bytes_live, 0);
}

// ---- e. callables with state are owned by the task they start ----

slaw::task<long> lambda_sum(int n) {
  long sum = 0;
  std::vector<long> parts(static_cast<std::size_t>(n)), sizes(static_cast<std::size_t>(n));
  auto f = co_await slaw::start_finish();
  for (int i = 0; i < n; ++i) {
    co_await slaw::async([i, &parts]() -> slaw::task<> {
      std::this_thread::yield();
      parts[static_cast<std::size_t>(i)] = i;
      co_return;
    });
    // A capture with a destructor, an argument and a slot. The lambda is a named local that dies at the
    // end of this iteration, before the task runs. (Not written inside the co_await expression: GCC 12
    // miscompiles a by-copy capture of a coroutine local there and frees it twice, slaw or not; README.)
    std::string big(100, static_cast<char>('a' + i % 26));
    auto sized = [big](int k) -> slaw::task<long> { co_return static_cast<long>(big.size()) + k; };
    co_await slaw::async(slaw::hf, &sizes[static_cast<std::size_t>(i)], sized, i);
  }
  co_await slaw::end_finish(f);
  for (int i = 0; i < n; ++i) sum += parts[static_cast<std::size_t>(i)] + sizes[static_cast<std::size_t>(i)];
  co_return sum;
}

TEST_P(ExitPaths, CapturingLambdasOutliveTheSpawnExpression) {
  watchdog wd(std::chrono::seconds(60));
  slaw::runtime rt(make_config(GetParam()));
  const int n = 1000;
  long expected = 100L * n + static_cast<long>(n) * (n - 1);  // parts: i; sizes: 100 + i
  for (int r = 0; r < 3; ++r) EXPECT_EQ(rt.run(lambda_sum(n)), expected);
}

slaw::task<> by_reference(std::vector<int>& v) {
  v.push_back(1);
  co_return;
}

TEST(ExitPathsApi, CallableArgumentsAreCopiedLikeStdThread) {
  slaw::runtime rt(slaw::config{});
  std::vector<int> v;
  auto body = [&]() -> slaw::task<> {
    auto f = co_await slaw::start_finish();
    co_await slaw::async([&v](int k) -> slaw::task<> { v.push_back(k); co_return; }, 7);
    co_await slaw::end_finish(f);
    auto g = co_await slaw::start_finish();
    co_await slaw::async(by_reference, v);  // a function: arguments are bound as in a direct call
    co_await slaw::end_finish(g);
  };
  rt.run(body());
  ASSERT_EQ(v.size(), 2u);
}

// ---- f. nested isolated blocks ----

TEST_P(ExitPaths, NestedIsolatedRunsInsideTheOuterBlock) {
  watchdog wd(std::chrono::seconds(60));
  slaw::runtime rt(make_config(GetParam()));
  long counter = 0;
  auto body = [&]() -> slaw::task<> {
    auto f = co_await slaw::start_finish();
    for (int i = 0; i < 200; ++i)
      co_await slaw::async([&counter]() -> slaw::task<> {
        slaw::isolated([&] {
          ++counter;
          slaw::isolated([&] { ++counter; });
        });
        co_return;
      });
    co_await slaw::end_finish(f);
  };
  rt.run(body());
  EXPECT_EQ(counter, 400);
}

INSTANTIATE_TEST_SUITE_P(AllConfigs, ExitPaths, ::testing::ValuesIn(all_configs()),
                         [](const ::testing::TestParamInfo<config_case>& i) { return name_of(i.param); });

// ---- misuse of the task and finish API: an exception, never a hang or a crash ----

TEST(ExitPathsApi, EndFinishTwiceIsALogicError) {
  slaw::runtime rt(slaw::config{});
  auto body = []() -> slaw::task<int> {
    auto f = co_await slaw::start_finish();
    co_await slaw::end_finish(f);
    try {
      co_await slaw::end_finish(f);
    } catch (const std::logic_error&) {
      co_return 1;
    }
    co_return 0;
  };
  EXPECT_EQ(rt.run(body()), 1);
}

TEST(ExitPathsApi, EndFinishTwiceAfterAnotherScopeOpenedIsALogicError) {
  slaw::runtime rt(slaw::config{});
  auto body = []() -> slaw::task<int> {
    auto f = co_await slaw::start_finish();
    co_await slaw::end_finish(f);
    auto g = co_await slaw::start_finish();
    co_await slaw::async(slaw::hf, nap, 20);
    int r = 0;
    try {
      co_await slaw::end_finish(f);
    } catch (const std::logic_error&) {
      r = 1;
    }
    co_await slaw::end_finish(g);
    co_return r;
  };
  EXPECT_EQ(rt.run(body()), 1);
}

TEST(ExitPathsApi, OuterScopeEndedBeforeInnerIsALogicError) {
  slaw::runtime rt(slaw::config{});
  auto body = []() -> slaw::task<int> {
    auto outer = co_await slaw::start_finish();
    auto inner = co_await slaw::start_finish();
    int r = 0;
    try {
      co_await slaw::end_finish(outer);
    } catch (const std::logic_error&) {
      r = 1;
    }
    co_await slaw::end_finish(inner);
    co_await slaw::end_finish(outer);
    co_return r;
  };
  EXPECT_EQ(rt.run(body()), 1);
}

// A scope belongs to the frame that opened it. A called or spawned task that is handed the scope
// shares its innermost finish (a call inherits it, a spawn's IEF is it), so the innermost-scope test
// alone let its end_finish through: the scope was marked ended, and the opener's own end_finish then
// read the null frame (a crash) or, at one worker, waited for the body unit held by the waiting call (a
// hang). Each end_finish by another frame is a logic_error; the opener's own end still works.
slaw::task<> end_someone_elses(slaw::finish_scope* s) { co_await slaw::end_finish(*s); }

TEST_P(ExitPaths, EndFinishOfTheCallersScopeInACallIsALogicError) {
  watchdog wd(std::chrono::seconds(60));
  slaw::runtime rt(make_config(GetParam()));
  for (const bool pending : {false, true}) {
    auto body = [pending]() -> slaw::task<int> {
      auto f = co_await slaw::start_finish();
      if (pending) co_await slaw::async(slaw::hf, nap, 5);
      int r = 0;
      try {
        co_await end_someone_elses(&f);
      } catch (const std::logic_error&) {
        r = 1;
      }
      co_await slaw::end_finish(f);
      co_return r;
    };
    EXPECT_EQ(rt.run(body()), 1) << "children pending: " << pending;
  }
}

TEST_P(ExitPaths, EndFinishOfTheParentsScopeInASpawnedTaskIsALogicError) {
  watchdog wd(std::chrono::seconds(60));
  slaw::runtime rt(make_config(GetParam()));
  for (const bool pending : {false, true}) {
    for (const auto clause : {slaw::policy::schedule::wf, slaw::policy::schedule::hf}) {
      auto body = [pending, clause]() -> slaw::task<int> {
        auto f = co_await slaw::start_finish();
        if (pending) co_await slaw::async(slaw::hf, nap, 5);
        if (clause == slaw::policy::schedule::wf) co_await slaw::async(slaw::wf, end_someone_elses, &f);
        else co_await slaw::async(slaw::hf, end_someone_elses, &f);
        try {
          co_await slaw::end_finish(f);  // the spawned task's logic_error comes out of its IEF, f
        } catch (const std::logic_error&) {
          co_return 1;
        }
        co_return 0;
      };
      EXPECT_EQ(rt.run(body()), 1) << "children pending: " << pending << ", wf: " << (clause == slaw::policy::schedule::wf);
    }
  }
}

TEST(ExitPathsApi, EmptyTasksAreRejected) {
  slaw::runtime rt(slaw::config{});
  slaw::task<int> empty;
  EXPECT_THROW(rt.run(std::move(empty)), std::invalid_argument);
  auto moved = leaf();
  auto keep = std::move(moved);
  EXPECT_THROW(rt.run(std::move(moved)), std::invalid_argument);
  auto body = []() -> slaw::task<int> {
    int caught = 0;
    slaw::task<> e;
    try {
      co_await std::move(e);
    } catch (const std::invalid_argument&) {
      ++caught;
    }
    try {
      co_await slaw::async(std::move(e));
    } catch (const std::invalid_argument&) {
      ++caught;
    }
    co_return caught;
  };
  EXPECT_EQ(rt.run(body()), 2);
  rt.run(std::move(keep));
}

}  // namespace
