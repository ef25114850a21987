// A program outside slaw's tree, built against an installed slaw (tests/package/check.sh): it uses the
// public API across the library boundary and exits non-zero, saying what, when a result is wrong.
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <utility>
#include <vector>

#include "slaw/slaw.hpp"

namespace {

int failures = 0;
void expect(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "consumer: FAILED: %s\n", what);
    ++failures;
  }
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

long fib_iterative(int n) {
  long a = 0, b = 1;
  for (int i = 0; i < n; ++i) b = std::exchange(a, b) + b;
  return a;
}

using slaw_vector = std::vector<long, slaw::allocator<long>>;  // user memory through slaw::allocate

// Divide and conquer over [lo, hi), the halves as help-first and work-first children.
slaw::task<long> sum(const slaw_vector* v, std::size_t lo, std::size_t hi) {
  if (hi - lo <= 1024) co_return std::accumulate(v->begin() + lo, v->begin() + hi, 0L);
  std::size_t mid = lo + (hi - lo) / 2;
  long left = 0, right = 0;
  co_await slaw::finish([&]() -> slaw::task<> {
    co_await slaw::async(slaw::hf, &left, sum, v, lo, mid);
    co_await slaw::async(slaw::wf, &right, sum, v, mid, hi);
  });
  co_return left + right;
}

// n flat asyncs, each adding one under isolation.
slaw::task<> count_isolated(long* counter, int n) {
  co_await slaw::finish([&]() -> slaw::task<> {
    for (int i = 0; i < n; ++i)
      co_await slaw::async([counter]() -> slaw::task<> {
        slaw::isolated([&] { ++*counter; });
        co_return;
      });
  });
}

slaw::task<> thrower() {
  throw std::runtime_error("from a spawned task");
  co_return;
}

slaw::task<bool> exception_reaches_finish() {
  try {
    co_await slaw::finish([]() -> slaw::task<> { co_await slaw::async(thrower); });
  } catch (const std::runtime_error&) {
    co_return true;
  }
  co_return false;
}

// A buffer larger than the DFDeques quota: reserve() (a task made inside the library and handed out
// as a handle, so that it crosses between a library and a program built by different compilers) runs
// its dummy tasks first. Returns the sum of the buffer's elements.
slaw::task<long> reserved_buffer_sum(std::size_t n) {
  slaw::buffer<long> b = co_await slaw::make_buffer<long>(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<long>(i);
  co_await slaw::reserve(64);
  co_return std::accumulate(b.begin(), b.end(), 0L);
}

// Chains of 10^6 nested frames: each step a work-first spawn (under the wf policy, which sets no stack
// bound) or a sequential call. Each transfer must leave the native stack as it was (symmetric transfer
// as a tail call, or the headers' resume loop where the compiler may not make one:
// include/slaw/detail/transfer.hpp), whatever the optimisation level and the sanitizers.
constexpr long chain_depth = 1000000;

slaw::task<long> work_first_chain(long n) {
  if (n == 0) co_return 0;
  long below = 0;
  auto f = co_await slaw::start_finish();
  co_await slaw::async(slaw::wf, &below, work_first_chain, n - 1);
  co_await slaw::end_finish(f);
  co_return below + 1;
}

slaw::task<long> call_chain(long n) {
  if (n == 0) co_return 0;
  co_return co_await call_chain(n - 1) + 1;
}

}  // namespace

int main() {
  slaw::config cfg;
  cfg.workers = 4;
  slaw::runtime rt{cfg};
  expect(rt.workers() == 4, "runtime::workers() is the configured 4");

  expect(rt.run(fib(24)) == fib_iterative(24), "fib(24) with async/finish");

  slaw_vector v(1 << 20);
  std::iota(v.begin(), v.end(), 1L);
  const long n = static_cast<long>(v.size());
  expect(rt.run(sum(&v, 0, v.size())) == n * (n + 1) / 2, "parallel sum of 1..2^20");

  const int asyncs = 10000;
  long counter = 0;
  rt.reset_stats();
  rt.run(count_isolated(&counter, asyncs));
  expect(counter == asyncs, "every async of the flat loop ran once, isolated");
  slaw::runtime_stats st = rt.stats();
  expect(st.total.spawns_wf + st.total.spawns_hf == static_cast<std::uint64_t>(asyncs),
         "the counters saw every spawn of the flat loop");

  expect(rt.run(exception_reaches_finish()), "a spawned task's exception is rethrown at its finish");

  {
    slaw::config dfd;
    dfd.workers = 2;
    dfd.scheduler = slaw::scheduler_kind::dfdeques;
    dfd.quota = 4096;
    slaw::runtime rt_dfd{dfd};
    const long m = 10000;  // 80 000 bytes: about 19 dummy tasks at K = 4096
    expect(rt_dfd.run(reserved_buffer_sum(m)) == m * (m - 1) / 2, "reserve and make_buffer under DFDeques");
    expect(rt_dfd.stats().total.dummy_tasks > 0, "a reservation larger than K ran dummy tasks");
  }

  {
    slaw::config wf;
    wf.workers = 2;
    wf.policy = slaw::policy::mode::wf;
    slaw::runtime rt_wf{wf};
    expect(rt_wf.run(work_first_chain(chain_depth)) == chain_depth, "a chain of 10^6 nested work-first spawns");
    expect(rt_wf.stats().total.max_wf_depth >= static_cast<std::uint64_t>(chain_depth) / 2,
           "the chain ran work-first (its depth is in max_wf_depth)");
    expect(rt.run(call_chain(chain_depth)) == chain_depth, "a chain of 10^6 nested calls");
  }

  bool rejected = false;
  try {
    slaw::config bad;
    bad.workers = 100000;
    bad.validate();
  } catch (const slaw::config_error&) {  // thrown inside the library, caught here by its type
    rejected = true;
  }
  expect(rejected, "config::validate throws slaw::config_error for workers = 100000");

  if (failures) return 1;
  std::printf("consumer: all checks passed (%u workers)\n", rt.workers());
  return 0;
}
