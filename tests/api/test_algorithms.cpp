// The parallel algorithms (include/slaw/algorithm.hpp) against the serial std algorithms, on every
// configuration: policy {wf, hf, dyn} x work stealing and DFDeques (K = 1024, 50000, inf), 1, 2 and 8
// workers, each with the default splitting rule and with one that splits at every chunk a thief asks
// for (chunk_ns = split_ns = 0), so that the split, role and fix-up paths run at every size.
// Sizes 0, 1, primes and 10^6 (10^5 under sanitizers); element types int, double (a tolerance where
// the reduction order differs from the serial one), move-only, not default-constructible, and a
// counted type whose live objects must come back to their count (no leak, no double destruction).
// Exceptions from bodies, operations and comparators; nested loops; places. A hang is turned into a
// failure by the watchdog, which prints every thread's stack.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <ranges>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../random/harness.hpp"
#include "../random/watchdog.hpp"
#include "../support/memory_gauge.hpp"
#include "slaw/slaw.hpp"

namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool sanitized = true;
#else
constexpr bool sanitized = false;
#endif
#else
constexpr bool sanitized = false;
#endif

const std::vector<std::size_t>& sizes() {
  static const std::vector<std::size_t> s{0, 1, 2, 3, 7, 101, 1009, 10007, sanitized ? 100000u : 1000000u};
  return s;
}

struct algo_config {
  rp::sched_config sched;
  bool split_always;
};

std::string name_of(const algo_config& c) { return rp::name_of(c.sched) + (c.split_always ? "_splitall" : ""); }

std::vector<algo_config> all_configs() {
  std::vector<algo_config> v;
  for (const rp::sched_config& s : rp::sched_configs({1u, 2u, 8u}, {std::uint64_t{1024}, std::uint64_t{50000}, slaw::quota_infinite}))
    for (bool all : {false, true}) v.push_back({s, all});
  return v;
}

slaw::config runtime_config(const algo_config& c) {
  slaw::config cfg;
  cfg.workers = c.sched.workers;
  cfg.policy = c.sched.policy;
  cfg.scheduler = c.sched.scheduler;
  cfg.quota = c.sched.quota;
  cfg.arbiter.arbiter = slaw::policy::arbiter::off;
  if (c.split_always) cfg.loop = {0, 0};
  return cfg;
}

// A value whose live instances are counted: every construction has its destruction.
struct counted {
  static std::atomic<long> live;
  long v;
  explicit counted(long x) : v(x) { ++live; }
  counted(const counted& o) : v(o.v) { ++live; }
  counted(counted&& o) noexcept : v(o.v) { ++live; }
  counted& operator=(const counted&) = default;
  counted& operator=(counted&&) noexcept = default;
  ~counted() { --live; }
};
std::atomic<long> counted::live{0};

// Not default-constructible.
struct ndc {
  long v;
  explicit ndc(long x) : v(x) {}
  friend bool operator==(const ndc& a, const ndc& b) { return a.v == b.v; }
};

struct boom : std::runtime_error {
  boom() : std::runtime_error("boom") {}
};

std::vector<long> random_longs(std::size_t n, unsigned seed, long mod) {
  std::mt19937_64 g(seed);
  std::vector<long> v(n);
  for (long& x : v) x = static_cast<long>(g() % static_cast<unsigned long>(mod));
  return v;
}

class Algorithms : public ::testing::TestWithParam<algo_config> {
 protected:
  void SetUp() override {
    rp::watchdog::instance().arm(name_of(GetParam()) + " " + ::testing::UnitTest::GetInstance()->current_test_info()->name(),
                                 rp::scaled_limit(240));
    rt_ = std::make_unique<slaw::runtime>(runtime_config(GetParam()));
    memory0_ = rt_->stats().memory_live;
    live0_ = counted::live.load();
  }
  void TearDown() override {
    const slaw::runtime_stats s = rt_->stats();
    EXPECT_LE(std::llabs(s.memory_live - memory0_), slaw_test::live_change_error(s)) << "memory live after the algorithms";
    EXPECT_EQ(counted::live.load(), live0_) << "counted objects leaked or destroyed twice";
    rt_.reset();
    rp::watchdog::instance().disarm();
  }
  template <class T>
  T run(slaw::task<T> t) {
    return rt_->run(std::move(t));
  }
  std::unique_ptr<slaw::runtime> rt_;
  std::int64_t memory0_ = 0;
  long live0_ = 0;
};

// ---- for_each ----

TEST_P(Algorithms, ForEachVisitsEveryElementOnce) {
  for (std::size_t n : sizes()) {
    std::vector<int> v(n, 0);
    run(slaw::for_each(v.begin(), v.end(), [](int& x) { ++x; }));
    EXPECT_EQ(std::count(v.begin(), v.end(), 1), static_cast<long>(n)) << "iterators, n = " << n;
    run(slaw::for_each(v, [](int& x) { ++x; }));  // an lvalue range
    EXPECT_EQ(std::count(v.begin(), v.end(), 2), static_cast<long>(n)) << "range, n = " << n;
    run(slaw::for_each(slaw::grain(7), slaw::hf, v.begin(), v.end(), [](int& x) -> slaw::task<> {
      ++x;
      co_return;
    }));
    EXPECT_EQ(std::count(v.begin(), v.end(), 3), static_cast<long>(n)) << "coroutine body, n = " << n;
    std::atomic<long> sum{0};
    run(slaw::for_each(std::views::iota(0L, static_cast<long>(n)), [&](long i) { sum += i; }));
    EXPECT_EQ(sum.load(), static_cast<long>(n) * (static_cast<long>(n) - 1) / 2) << "iota view, n = " << n;
    sum = 0;
    run(slaw::for_each(std::vector<long>(n, 2), [&](long x) { sum += x; }));  // an rvalue range, owned by the task
    EXPECT_EQ(sum.load(), 2 * static_cast<long>(n)) << "rvalue range, n = " << n;
  }
}

TEST_P(Algorithms, ForEachIndexCoversTheIndices) {
  for (std::size_t n : sizes()) {
    std::vector<std::atomic<int>> hits(n + 10);
    run(slaw::for_each_index(slaw::wf, 5, static_cast<int>(n) + 5, [&](int i) { ++hits[static_cast<std::size_t>(i)]; }));
    for (std::size_t i = 0; i < n + 10; ++i) ASSERT_EQ(hits[i].load(), i >= 5 && i < n + 5 ? 1 : 0) << "i = " << i << ", n = " << n;
    std::atomic<long> sum{0};
    run(slaw::for_each_index(-static_cast<long>(n), 0L, [&](long i) { sum += i; }));
    EXPECT_EQ(sum.load(), -static_cast<long>(n) * (static_cast<long>(n) + 1) / 2) << "negative indices, n = " << n;
    run(slaw::for_each_index(10u, 5u, [&](unsigned) { sum += 1000; }));  // end before begin: nothing
  }
}

TEST_P(Algorithms, ForEachOverMoveOnlyAndCountedElements) {
  for (std::size_t n : sizes()) {
    std::vector<std::unique_ptr<long>> v;
    for (std::size_t i = 0; i < n; ++i) v.push_back(std::make_unique<long>(static_cast<long>(i)));
    run(slaw::for_each(v.begin(), v.end(), [](std::unique_ptr<long>& p) { *p *= 2; }));
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(*v[i], 2 * static_cast<long>(i));
    std::vector<counted> c;
    c.reserve(n);
    for (std::size_t i = 0; i < n; ++i) c.emplace_back(static_cast<long>(i));
    run(slaw::for_each(c, [](counted& x) { x.v += 1; }));
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(c[i].v, static_cast<long>(i) + 1);
  }
}

// ---- reduce and transform_reduce ----

TEST_P(Algorithms, ReduceMatchesTheSerialResult) {
  for (std::size_t n : sizes()) {
    const std::vector<long> v = random_longs(n, 7, 1000);
    EXPECT_EQ(run(slaw::reduce(v.begin(), v.end())), std::reduce(v.begin(), v.end())) << "n = " << n;
    EXPECT_EQ(run(slaw::reduce(v.begin(), v.end(), 17L)), std::reduce(v.begin(), v.end(), 17L)) << "n = " << n;
    EXPECT_EQ(run(slaw::reduce(slaw::grain(3), v.begin(), v.end(), -1L, [](long a, long b) { return std::max(a, b); })),
              std::reduce(v.begin(), v.end(), -1L, [](long a, long b) { return std::max(a, b); }))
        << "max, n = " << n;
    std::vector<double> d(n);
    for (std::size_t i = 0; i < n; ++i) d[i] = std::sin(static_cast<double>(i));
    const double want = std::reduce(d.begin(), d.end(), 0.0);
    EXPECT_NEAR(run(slaw::reduce(d.begin(), d.end(), 0.0)), want, 1e-9 * (1.0 + static_cast<double>(n))) << "double, n = " << n;
    // Not default-constructible, and counted: every partial result is destroyed.
    std::vector<counted> c;
    for (long x : v) c.emplace_back(x);
    const auto add = [](const counted& a, const counted& b) { return counted(a.v + b.v); };
    EXPECT_EQ(run(slaw::reduce(c.begin(), c.end(), counted(5), add)).v, std::reduce(v.begin(), v.end(), 5L)) << "n = " << n;
  }
}

TEST_P(Algorithms, TransformReduceMatchesTheSerialResult) {
  for (std::size_t n : sizes()) {
    const std::vector<long> a = random_longs(n, 1, 100), b = random_longs(n, 2, 100);
    EXPECT_EQ(run(slaw::transform_reduce(a.begin(), a.end(), b.begin(), 3L)),
              std::transform_reduce(a.begin(), a.end(), b.begin(), 3L))
        << "inner product, n = " << n;
    const auto diff = [](long x, long y) { return std::abs(x - y); };
    EXPECT_EQ(run(slaw::transform_reduce(a.begin(), a.end(), b.begin(), 0L, std::plus<>(), diff)),
              std::transform_reduce(a.begin(), a.end(), b.begin(), 0L, std::plus<>(), diff))
        << "two ranges, n = " << n;
    const auto square = [](long x) { return x * x; };
    EXPECT_EQ(run(slaw::transform_reduce(a.begin(), a.end(), 0L, std::plus<>(), square)),
              std::transform_reduce(a.begin(), a.end(), 0L, std::plus<>(), square))
        << "one range, n = " << n;
    std::vector<std::unique_ptr<long>> m;
    for (long x : a) m.push_back(std::make_unique<long>(x));
    EXPECT_EQ(run(slaw::transform_reduce(m.begin(), m.end(), 0L, std::plus<>(), [](const std::unique_ptr<long>& p) { return *p; })),
              std::reduce(a.begin(), a.end(), 0L))
        << "move-only elements, n = " << n;
    const auto nd = run(slaw::transform_reduce(a.begin(), a.end(), ndc(0), [](ndc x, ndc y) { return ndc(x.v + y.v); },
                                               [](long x) { return ndc(x); }));
    EXPECT_EQ(nd.v, std::reduce(a.begin(), a.end(), 0L)) << "not default-constructible, n = " << n;
  }
}

// ---- scans ----

TEST_P(Algorithms, ScansMatchTheSerialResult) {
  for (std::size_t n : sizes()) {
    const std::vector<long> v = random_longs(n, 3, 1000);
    std::vector<long> got(n), want(n);
    std::inclusive_scan(v.begin(), v.end(), want.begin());
    EXPECT_EQ(run(slaw::inclusive_scan(v.begin(), v.end(), got.begin())), got.end());
    EXPECT_EQ(got, want) << "inclusive, n = " << n;
    const auto mx = [](long a, long b) { return std::max(a, b); };
    std::inclusive_scan(v.begin(), v.end(), want.begin(), mx);
    run(slaw::inclusive_scan(v.begin(), v.end(), got.begin(), mx));
    EXPECT_EQ(got, want) << "inclusive max, n = " << n;
    std::inclusive_scan(v.begin(), v.end(), want.begin(), std::plus<>(), 100L);
    run(slaw::inclusive_scan(slaw::grain(5), v.begin(), v.end(), got.begin(), std::plus<>(), 100L));
    EXPECT_EQ(got, want) << "inclusive with init, n = " << n;
    std::exclusive_scan(v.begin(), v.end(), want.begin(), 7L);
    run(slaw::exclusive_scan(v.begin(), v.end(), got.begin(), 7L));
    EXPECT_EQ(got, want) << "exclusive, n = " << n;
    std::exclusive_scan(v.begin(), v.end(), want.begin(), -5L, mx);
    run(slaw::exclusive_scan(slaw::hf, v.begin(), v.end(), got.begin(), -5L, mx));
    EXPECT_EQ(got, want) << "exclusive max, n = " << n;
    // The output in place of the input, as std allows.
    std::vector<long> inplace = v;
    std::inclusive_scan(v.begin(), v.end(), want.begin());
    run(slaw::inclusive_scan(inplace.begin(), inplace.end(), inplace.begin()));
    EXPECT_EQ(inplace, want) << "in place, n = " << n;
    // double: the serial order within a chain, so that only the fix-up's association differs.
    std::vector<double> d(n), dg(n), dw(n);
    for (std::size_t i = 0; i < n; ++i) d[i] = 1.0 / (1.0 + static_cast<double>(i % 97));
    std::inclusive_scan(d.begin(), d.end(), dw.begin());
    run(slaw::inclusive_scan(d.begin(), d.end(), dg.begin()));
    for (std::size_t i = 0; i < n; ++i) ASSERT_NEAR(dg[i], dw[i], 1e-9 * (1.0 + dw[i])) << "double, i = " << i;
    // Not default-constructible elements and results.
    std::vector<ndc> nv, ng, nw;
    for (long x : v) nv.emplace_back(x), ng.emplace_back(0), nw.emplace_back(0);
    const auto addn = [](const ndc& a, const ndc& b) { return ndc(a.v + b.v); };
    std::exclusive_scan(nv.begin(), nv.end(), nw.begin(), ndc(1), addn);
    run(slaw::exclusive_scan(nv.begin(), nv.end(), ng.begin(), ndc(1), addn));
    EXPECT_EQ(ng, nw) << "not default-constructible, n = " << n;
  }
}

// ---- sorts ----

TEST_P(Algorithms, SortsMatchTheSerialResult) {
  for (std::size_t n : sizes()) {
    for (int shape = 0; shape < 4; ++shape) {
      std::vector<long> v = random_longs(n, 11, shape == 3 ? 3 : 1000000);  // shape 3: few distinct keys
      if (shape == 1) std::sort(v.begin(), v.end());
      if (shape == 2) std::sort(v.begin(), v.end(), std::greater<>());
      std::vector<long> want = v, got = v;
      std::sort(want.begin(), want.end());
      run(slaw::sort(got.begin(), got.end()));
      ASSERT_EQ(got, want) << "sort, shape " << shape << ", n = " << n;
      got = v;
      std::sort(want.begin(), want.end(), std::greater<>());
      run(slaw::sort(slaw::wf, got.begin(), got.end(), std::greater<>()));
      ASSERT_EQ(got, want) << "sort with greater, shape " << shape << ", n = " << n;
    }
    // Stability: pairs (key, position) by key only.
    const std::vector<long> keys = random_longs(n, 5, 50);
    std::vector<std::pair<long, std::size_t>> p(n);
    for (std::size_t i = 0; i < n; ++i) p[i] = {keys[i], i};
    auto q = p;
    const auto by_key = [](const std::pair<long, std::size_t>& a, const std::pair<long, std::size_t>& b) { return a.first < b.first; };
    std::stable_sort(q.begin(), q.end(), by_key);
    run(slaw::stable_sort(p.begin(), p.end(), by_key));
    ASSERT_EQ(p, q) << "stable_sort, n = " << n;
    // Move-only, not default-constructible and counted elements.
    std::vector<std::unique_ptr<long>> m;
    for (long k : keys) m.push_back(std::make_unique<long>(k));
    const auto deref_less = [](const std::unique_ptr<long>& a, const std::unique_ptr<long>& b) { return *a < *b; };
    run(slaw::sort(m.begin(), m.end(), deref_less));
    ASSERT_TRUE(std::is_sorted(m.begin(), m.end(), deref_less)) << "move-only sort, n = " << n;
    std::shuffle(m.begin(), m.end(), std::mt19937(3));
    run(slaw::stable_sort(m.begin(), m.end(), deref_less));
    ASSERT_TRUE(std::is_sorted(m.begin(), m.end(), deref_less)) << "move-only stable_sort, n = " << n;
    std::vector<counted> c;
    for (long k : keys) c.emplace_back(k);
    const auto cless = [](const counted& a, const counted& b) { return a.v < b.v; };
    run(slaw::stable_sort(c.begin(), c.end(), cless));
    ASSERT_TRUE(std::is_sorted(c.begin(), c.end(), cless)) << "counted stable_sort, n = " << n;
    std::vector<ndc> d;
    for (long k : keys) d.emplace_back(-k);
    run(slaw::sort(d.begin(), d.end(), [](const ndc& a, const ndc& b) { return a.v < b.v; }));
    ASSERT_TRUE(std::is_sorted(d.begin(), d.end(), [](const ndc& a, const ndc& b) { return a.v < b.v; })) << "n = " << n;
  }
}

// ---- invoke ----

slaw::task<> add_later(std::atomic<int>* x, int k) {
  *x += k;
  co_return;
}

TEST_P(Algorithms, InvokeRunsEveryCallable) {
  std::atomic<int> x{0};
  run(slaw::invoke([&] { x += 1; }));
  EXPECT_EQ(x.load(), 1);
  run(slaw::invoke([&] { x += 2; }, [&]() -> slaw::task<> { co_await add_later(&x, 4); }));
  EXPECT_EQ(x.load(), 7);
  run(slaw::invoke([&] { x += 8; }, [&] { x += 16; }, [&]() -> slaw::task<> {
    co_await slaw::invoke([&] { x += 32; }, [&] { x += 64; });
  }, [&] { x += 128; }, [&] { x += 256; }));
  EXPECT_EQ(x.load(), 511);
}

// ---- exceptions ----

TEST_P(Algorithms, AnExceptionFromABodyReachesTheCaller) {
  for (std::size_t n : sizes()) {
    if (n == 0) continue;
    std::atomic<long> ran{0};
    const std::size_t bad = n / 2;
    std::vector<counted> c;
    for (std::size_t i = 0; i < n; ++i) c.emplace_back(static_cast<long>(i));
    EXPECT_THROW(run(slaw::for_each(c.begin(), c.end(), [&](counted& x) {
                   if (static_cast<std::size_t>(x.v) == bad) throw boom();
                   ++ran;
                 })),
                 boom)
        << "n = " << n;
    EXPECT_LT(ran.load(), static_cast<long>(n));
    EXPECT_THROW(run(slaw::for_each_index(std::size_t{0}, n, [&](std::size_t i) -> slaw::task<> {
                   if (i == bad) throw boom();
                   co_return;
                 })),
                 boom);
    // Operations that throw when they meet the element `bad` (marked -1): called at least once for it.
    c[bad].v = -1;
    EXPECT_THROW(run(slaw::reduce(c.begin(), c.end(), counted(0), [&](const counted& a, const counted& b) {
                   if (a.v == -1 || b.v == -1) throw boom();
                   return counted(a.v + b.v);
                 })),
                 boom)
        << "n = " << n;
    c[bad].v = static_cast<long>(bad);
    std::vector<long> v = random_longs(n, 9, 1000), out(n);
    v[bad] = -1;
    EXPECT_THROW(run(slaw::inclusive_scan(v.begin(), v.end(), out.begin(), [&](long a, long b) {
                   if (b == -1) throw boom();
                   return a + b;
                 }, 0L)),
                 boom)
        << "n = " << n;
    // Comparators that throw: the elements are all still there (live counts), in some order.
    std::atomic<int> acalls{0};
    const auto cmp = [&](const counted& a, const counted& b) {
      if (++acalls == static_cast<int>(n)) throw boom();
      return a.v < b.v;
    };
    if (n > 2) {
      std::shuffle(c.begin(), c.end(), std::mt19937(1));
      acalls = 0;
      EXPECT_THROW(run(slaw::sort(c.begin(), c.end(), cmp)), boom) << "n = " << n;
      acalls = 0;
      EXPECT_THROW(run(slaw::stable_sort(c.begin(), c.end(), cmp)), boom) << "n = " << n;
    }
    EXPECT_THROW(run(slaw::invoke([] {}, [] { throw boom(); }, [] {})), boom);
  }
  // The runtime is still fine afterwards.
  std::vector<int> v(1000, 1);
  EXPECT_EQ(run(slaw::reduce(v.begin(), v.end())), 1000);
}

// ---- nesting ----

TEST_P(Algorithms, NestedLoopsInsideFinishScopesAndEscapingAsyncs) {
  const std::size_t rows = sanitized ? 50 : 200, cols = sanitized ? 200 : 2000;
  std::vector<std::vector<long>> m(rows, std::vector<long>(cols, 1));
  std::atomic<long> escaped{0};
  const long total = run([&]() -> slaw::task<long> {
    long sum = 0;
    auto f = co_await slaw::start_finish();
    co_await slaw::async([&]() -> slaw::task<> {  // an escaping async that loops too
      co_await slaw::for_each_index(0, 1000, [&](int) { ++escaped; });
    });
    co_await slaw::for_each(m.begin(), m.end(), [&](std::vector<long>& row) -> slaw::task<> {
      co_await slaw::for_each(row.begin(), row.end(), [](long& x) { x *= 3; });
      co_await slaw::async([&escaped]() -> slaw::task<> {  // joins f, not the loop
        ++escaped;
        co_return;
      });
    });
    std::vector<long> sums(rows);
    co_await slaw::for_each_index(std::size_t{0}, rows, [&](std::size_t r) -> slaw::task<> {
      sums[r] = co_await slaw::reduce(m[r].begin(), m[r].end());
    });
    sum = co_await slaw::reduce(sums.begin(), sums.end());
    co_await slaw::end_finish(f);
    co_return sum;
  }());
  EXPECT_EQ(total, 3 * static_cast<long>(rows * cols));
  EXPECT_EQ(escaped.load(), 1000 + static_cast<long>(rows));
}

INSTANTIATE_TEST_SUITE_P(All, Algorithms, ::testing::ValuesIn(all_configs()),
                         [](const ::testing::TestParamInfo<algo_config>& i) { return name_of(i.param); });

// ---- places: block i of a placed loop runs inside child i of the place, every time ----

TEST(AlgorithmsPlaces, BlocksStayOnTheirPlaces) {
  rp::watchdog::instance().arm("AlgorithmsPlaces.BlocksStayOnTheirPlaces", rp::scaled_limit(120));
  for (unsigned workers : {2u, 8u}) {
    slaw::config cfg;
    cfg.workers = workers;
    cfg.topology = "synthetic:pack:2 core:4 pu:1";
    cfg.places = "cores";
    cfg.arbiter.arbiter = slaw::policy::arbiter::off;
    slaw::runtime rt(cfg);
    const std::size_t n = 100000;
    using places = std::vector<std::optional<slaw::place>>;
    places where(n), again(n);
    std::vector<slaw::place> kids;
    auto loop = [&](places* w) -> slaw::task<> {
      if (kids.empty()) kids = slaw::root_place().children();
      co_await slaw::for_each_index(slaw::at(slaw::root_place()), std::size_t{0}, n,
                                    [w](std::size_t i) { (*w)[i].emplace(slaw::here()); });
    };
    rt.run(loop(&where));
    rt.run(loop(&again));
    ASSERT_FALSE(kids.empty());
    const std::size_t k = kids.size();
    std::size_t b = 0;  // element i belongs to block b = [b*n/k, (b+1)*n/k), which runs inside child b
    for (std::size_t i = 0; i < n; ++i) {
      while ((b + 1) * n / k <= i) ++b;
      ASSERT_TRUE(where[i] && again[i]) << "element " << i << " did not run";
      ASSERT_TRUE(kids[b].contains(*where[i])) << "element " << i << " ran at " << where[i]->name() << ", outside "
                                              << kids[b].name() << " (workers " << workers << ")";
      ASSERT_TRUE(kids[b].contains(*again[i])) << "element " << i << ", second run";
    }
  }
  rp::watchdog::instance().disarm();
}

}  // namespace
