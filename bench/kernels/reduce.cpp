// reduce: the sum of n doubles. slaw::reduce (no grain) against oneTBB's parallel_reduce, OpenMP's
// reduction clause and std::reduce(std::execution::par). Stresses: a flat, regular, memory-bound loop
// with a reduction: the loop's per-chunk overhead (T1/Ts) and its speedup where memory bandwidth, not
// the cores, may be the limit.
// Algorithm: every variant but OpenMP sums its pieces with std::reduce (the serial elision is one
// std::reduce over the whole array) and adds the pieces' sums; OpenMP sums with `parallel for simd
// reduction(+:s)`: without `simd` the compiler must keep each thread's additions in order, one dependent
// add per element, where std::reduce's unrolled loop has four independent sums.
// Input: n doubles uniform in [0, 1) from splitmix64 with a fixed seed (a run only reads them).
// Oracle: the sum within a relative 1e-9 of the serial std::reduce computed at set-up (the order of
// the additions differs between variants and runs).
#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>
#include <vector>

#include <omp.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>
#include <tbb/partitioner.h>

#include "harness/benchmark.hpp"
#include "harness/loop_peers.hpp"

namespace {

// The peers' hand-tuned chunks, tuned at --size default with 2 workers on the 2-core machine of
// bench/results/loops/: each candidate side by side with the default row (tbb, omp) in one run, 5
// repetitions, 1 to 4 runs each; the ratios below are candidate / default row. Other work shared the
// machine (load 3 to 8), so differences under about 10 % are noise.
// tbb-grain: simple_partitioner chunks of [grain/2, grain] elements. Tried 10^4 (1.04-1.16: a task and a
// std::reduce call per 40-80 KB), 10^5 (0.97-1.02), 10^6 (0.99-1.06), 10^7 (0.92-1.03): a memory-bound
// sum, where bandwidth, not the pieces, decides. Kept 10^5: the smallest grain on the plateau, the most
// pieces for balance.
constexpr long tbb_grain = 100000;
// omp-dynamic: schedule(guided, chunk): the elements cost the same, so a dynamic schedule only helps
// against interference (another process on a core), which guided's shrinking chunks absorb with fewer
// dispatches than a fixed chunk. Chunks of at least 10^3 (0.95-1.02), 10^4 (0.95-1.19), 10^5 (0.84-0.94),
// 10^6 (0.98-1.04). Kept 10^5, the only one ahead of the static schedule in every run.
constexpr long omp_chunk = 100000;

class reduce_instance : public slawbench::instance {
 public:
  explicit reduce_instance(const slawbench::params& p) : x_(static_cast<std::size_t>(p.integer("n", 1, 1L << 31))) {
    slawbench::splitmix64 g{20240101};
    for (double& v : x_) v = g.unit();
    want_ = std::reduce(x_.begin(), x_.end(), 0.0);
  }
  void reset() override { got_ = std::nan(""); }
  void run_serial() override { got_ = std::reduce(x_.begin(), x_.end(), 0.0); }
  void run_slaw(slaw::runtime& rt) override { got_ = rt.run(slaw::reduce(x_.begin(), x_.end(), 0.0)); }
  bool has_tbb() const override { return true; }
  void run_tbb(unsigned) override { got_ = tbb_sum(tbb::auto_partitioner(), 1); }
  bool has_tbb_grain() const override { return true; }
  void run_tbb_grain(unsigned) override { got_ = tbb_sum(tbb::simple_partitioner(), tbb_grain); }
  bool has_omp() const override { return true; }
  void run_omp(unsigned) override {
    const double* x = x_.data();
    const long n = static_cast<long>(x_.size());
    double s = 0;
#pragma omp parallel for simd schedule(static) reduction(+ : s)
    for (long i = 0; i < n; ++i) s += x[i];
    got_ = s;
  }
  bool has_omp_dynamic() const override { return true; }
  void run_omp_dynamic(unsigned) override {
    const double* x = x_.data();
    const long n = static_cast<long>(x_.size());
    const long chunk = omp_chunk;
    double s = 0;
#pragma omp parallel for simd schedule(guided, chunk) reduction(+ : s)
    for (long i = 0; i < n; ++i) s += x[i];
    got_ = s;
  }
  bool has_pstl() const override { return true; }
  void run_pstl(unsigned) override { got_ = std::reduce(std::execution::par, x_.begin(), x_.end(), 0.0); }
  slawbench::outcome check() override {
    const double err = std::fabs(got_ - want_);
    const bool ok = err <= 1e-9 * std::fabs(want_);
    char msg[160];
    std::snprintf(msg, sizeof msg, "sum of %zu doubles %.17g, serial %.17g: relative error %.3g", x_.size(), got_,
                  want_, want_ != 0 ? err / std::fabs(want_) : err);
    return {ok, msg};
  }

 private:
  template <class Partitioner>
  double tbb_sum(const Partitioner& part, long grain) const {
    const double* x = x_.data();
    return tbb::parallel_reduce(
        tbb::blocked_range<std::size_t>(0, x_.size(), static_cast<std::size_t>(grain)), 0.0,
        [x](const tbb::blocked_range<std::size_t>& r, double s) { return std::reduce(x + r.begin(), x + r.end(), s); },
        std::plus<>(), part);
  }

  std::vector<double> x_;
  double want_ = 0, got_ = 0;
};

SLAW_BENCHMARK(slawbench::benchmark{
    "reduce",
    "parallel loop: the sum of n doubles (slaw::reduce, parallel_reduce, reduction(+), std::reduce(par))",
    {{"n", "100000"}},
    {{"n", "100000000"}},
    {{"n", "400000000"}},
    [](const slawbench::params& p) { return std::make_unique<reduce_instance>(p); },
    {{"n", "doubles summed (8 bytes each), in [1, 2^31]"}}});

}  // namespace
