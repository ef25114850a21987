// fib: spawn overhead with no cut-off (SLAW Figs 5.8/5.9). Two forms:
//   form=call   a finish per call: finish { async fib(n-1); fib(n-2) }         (Fig 5.9, HJ Fig 4.5)
//   form=global one global finish, escaping asyncs accumulate into a sum      (Fig 5.8)
// Oracle: the iterative Fibonacci number. Every variant uses the same recursion and no cut-off.
#include <atomic>
#include <string>

#include <omp.h>
#include <tbb/task_group.h>

#include "harness/benchmark.hpp"

namespace {

long fib_serial(int n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

slaw::task<long> fib_slaw(int n) {
  if (n < 2) co_return n;
  long a, b;
  auto f = co_await slaw::start_finish();
  co_await slaw::async(&a, fib_slaw, n - 1);
  b = co_await fib_slaw(n - 2);
  co_await slaw::end_finish(f);
  co_return a + b;
}

// Fig 5.8: every leaf adds into one counter; no finish below the root. A per-run counter padded to
// its own cache line (leaves add 0 or 1, most add nothing to keep the comparison about spawning).
slaw::task<> fib_global(int n, std::atomic<long>* sum) {
  if (n < 2) {
    if (n) sum->fetch_add(1, std::memory_order_relaxed);
    co_return;
  }
  co_await slaw::async(fib_global, n - 1, sum);
  co_await fib_global(n - 2, sum);
}

long fib_tbb(int n) {
  if (n < 2) return n;
  long a, b;
  tbb::task_group g;
  g.run([&] { a = fib_tbb(n - 1); });
  b = fib_tbb(n - 2);
  g.wait();
  return a + b;
}

long fib_omp(int n) {
  if (n < 2) return n;
  long a, b;
#pragma omp task shared(a) firstprivate(n)
  a = fib_omp(n - 1);
  b = fib_omp(n - 2);
#pragma omp taskwait
  return a + b;
}

long fib_reference(int n) {
  long a = 0, b = 1;
  for (int i = 0; i < n; ++i) {
    long t = a + b;
    a = b;
    b = t;
  }
  return a;
}

class fib_instance : public slawbench::instance {
 public:
  explicit fib_instance(const slawbench::params& p)
      : n_(static_cast<int>(p.integer("n", 0, 60))), global_(p.text("form") == "global") {
    if (p.text("form") != "call" && p.text("form") != "global")
      throw slawbench::bench_error("form='" + p.text("form") + "': expected call or global");
  }
  void reset() override { result_ = -1; }
  void run_serial() override { result_ = fib_serial(n_); }
  void run_slaw(slaw::runtime& rt) override {
    if (global_) {
      alignas(64) std::atomic<long> sum{0};
      rt.run(fib_global(n_, &sum));
      result_ = sum.load();
    } else {
      result_ = rt.run(fib_slaw(n_));
    }
  }
  bool has_tbb() const override { return !global_; }
  void run_tbb(unsigned) override { result_ = fib_tbb(n_); }
  bool has_omp() const override { return !global_; }
  void run_omp(unsigned) override {
    long r = 0;
#pragma omp parallel
#pragma omp single
    r = fib_omp(n_);
    result_ = r;
  }
  slawbench::outcome check() override {
    long want = fib_reference(n_);
    return {result_ == want, "fib(" + std::to_string(n_) + ") = " + std::to_string(result_) +
                                 (result_ == want ? "" : ", expected " + std::to_string(want))};
  }

 private:
  int n_;
  bool global_;
  long result_ = -1;
};

SLAW_BENCHMARK(slawbench::benchmark{
    "fib",
    "spawn overhead, no cut-off; form=call: a finish per call, form=global: one global finish",
    {{"n", "25"}, {"form", "call"}},
    {{"n", "35"}, {"form", "call"}},
    {{"n", "40"}, {"form", "call"}},
    [](const slawbench::params& p) { return std::make_unique<fib_instance>(p); },
    {{"n", "the Fibonacci index, in [0, 60] (about 1.6^n tasks)"},
     {"form", "call (a finish per call) or global (one finish for all, the leaves summed into a counter; "
              "no tbb or omp variant)"}}});

}  // namespace
