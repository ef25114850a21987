// scan: the inclusive prefix sum of n numbers (doubles, or 64-bit integers with type=int64).
// slaw::inclusive_scan (no grain) against oneTBB's parallel_scan, OpenMP 5's inscan reduction and
// std::inclusive_scan(std::execution::par). Stresses: a memory-bound loop whose parallel version does
// more work than the serial one (a second pass over the parts run in parallel), so that T1/Ts shows
// whether a scan no thief asked for stays one pass.
// Algorithm: the serial elision is std::inclusive_scan. oneTBB: parallel_scan's functional form (a
// pre-scan pass that only sums, a final pass that writes). OpenMP: `parallel for reduction(inscan, +: s)`
// with `#pragma omp scan inclusive(s)`, without a schedule clause (GCC rejects one beside an inscan
// reduction; both runtimes then use the static schedule), over blocks of 2^18 elements (one parallel
// region each, about 380 at the default size) because of the stack temporary noted at run_omp. No
// omp-dynamic row: an inscan reduction allows no schedule clause.
// Input: n values from splitmix64 with a fixed seed: doubles uniform in [0, 1), or integers in
// [0, 2^20) (sums below 2^63 for any n the parameter accepts). A run only reads them; reset() fills the
// output with NaN (or an impossible value) so that an output never written fails the oracle.
// Oracle: every output against the serial scan, recomputed in order as the check reads them: within a
// relative 1e-9 for doubles (the additions are grouped differently; the inputs are positive, so the
// prefixes never cancel), exactly for integers.
#include <cmath>
#include <cstdint>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include <omp.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_scan.h>
#include <tbb/partitioner.h>

#include "harness/benchmark.hpp"
#include "harness/loop_peers.hpp"

namespace {

// tbb-grain: simple_partitioner chunks of [grain/2, grain] elements, tuned at --size default with 2
// workers on the 2-core machine of bench/results/loops/: each candidate side by side with the default
// partitioner in one run, 5 repetitions, 1 to 4 runs each; ratios candidate / default. Other work shared
// the machine (load 3 to 8), so differences under about 10 % are noise. Tried 10^4 (0.96-1.37), 10^5
// (0.86-0.96), 10^6 (0.93-1.09), 4x10^6 (0.88, one run), 10^7 (0.82-1.05), 1.6x10^7 (1.03, one run),
// 5x10^7 (0.71, one run: two pieces, the right one scanned twice). Kept 10^5, ahead of the default
// partitioner in all three of its runs.
constexpr long tbb_grain = 100000;
constexpr long omp_block = 1L << 18;  // elements per OpenMP inscan region (see run_omp)

template <class T>
class scan_instance : public slawbench::instance {
 public:
  explicit scan_instance(long n) : x_(static_cast<std::size_t>(n)), y_(static_cast<std::size_t>(n)) {
    slawbench::splitmix64 g{31415926};
    for (T& v : x_) {
      if constexpr (std::is_floating_point_v<T>) v = g.unit();
      else v = static_cast<T>(g.next() >> 44);
    }
  }
  void reset() override {
    // Never a prefix of these inputs: NaN, or a negative sum of non-negative numbers.
    std::fill(y_.begin(), y_.end(), std::is_floating_point_v<T> ? std::numeric_limits<T>::quiet_NaN() : T(-1));
  }
  void run_serial() override { std::inclusive_scan(x_.begin(), x_.end(), y_.begin()); }
  void run_slaw(slaw::runtime& rt) override { rt.run(slaw::inclusive_scan(x_.begin(), x_.end(), y_.begin())); }
  bool has_tbb() const override { return true; }
  void run_tbb(unsigned) override { tbb_scan(tbb::auto_partitioner(), 1); }
  bool has_tbb_grain() const override { return true; }
  void run_tbb_grain(unsigned) override { tbb_scan(tbb::simple_partitioner(), tbb_grain); }
  bool has_omp() const override { return true; }
  void run_omp(unsigned) override {
    const T* x = x_.data();
    T* y = y_.data();
    const long n = static_cast<long>(x_.size());
    // In blocks: clang's lowering keeps a temporary of one element per iteration on the stack, which
    // overflows an 8 MiB stack past about 10^6 doubles. The carry of the blocks before is added as each
    // output is written (an inscan variable's private copies start from 0).
    T carry = 0;
    for (long b = 0; b < n; b += omp_block) {
      const long e = std::min(n, b + omp_block);
      T s = 0;
#pragma omp parallel for reduction(inscan, + : s)
      for (long i = b; i < e; ++i) {
        s += x[i];
#pragma omp scan inclusive(s)
        y[i] = carry + s;
      }
      carry = y[e - 1];
    }
  }
  bool has_pstl() const override { return true; }
  void run_pstl(unsigned) override { std::inclusive_scan(std::execution::par, x_.begin(), x_.end(), y_.begin()); }
  slawbench::outcome check() override {
    T p = 0;
    double worst = 0;
    std::size_t bad = 0, first_bad = 0;
    for (std::size_t i = 0; i < x_.size(); ++i) {
      p += x_[i];
      bool ok;
      if constexpr (std::is_floating_point_v<T>) {
        const double rel = std::fabs(static_cast<double>(y_[i] - p)) / static_cast<double>(p != 0 ? p : 1);
        ok = rel <= 1e-9;
        if (!(rel <= worst)) worst = rel;  // a NaN is the worst, and stays
      } else {
        ok = y_[i] == p;
      }
      if (!ok && bad++ == 0) first_bad = i;
    }
    char msg[200];
    if constexpr (std::is_floating_point_v<T>)
      std::snprintf(msg, sizeof msg, "%zu prefix sums of doubles, max relative error %.3g against the serial scan",
                    x_.size(), worst);
    else
      std::snprintf(msg, sizeof msg, "%zu prefix sums of int64, exactly the serial scan's", x_.size());
    if (bad == 0) return {true, msg};
    return {false, std::string(msg) + ": " + std::to_string(bad) + " outputs off, the first at index " +
                       std::to_string(first_bad)};
  }

 private:
  template <class Partitioner>
  void tbb_scan(const Partitioner& part, long grain) {
    const T* x = x_.data();
    T* y = y_.data();
    tbb::parallel_scan(
        tbb::blocked_range<std::size_t>(0, x_.size(), static_cast<std::size_t>(grain)), T(0),
        [x, y](const tbb::blocked_range<std::size_t>& r, T s, bool is_final) {
          if (is_final) {
            for (std::size_t i = r.begin(); i < r.end(); ++i) y[i] = s += x[i];
          } else {
            for (std::size_t i = r.begin(); i < r.end(); ++i) s += x[i];
          }
          return s;
        },
        std::plus<T>(), part);
  }

  std::vector<T> x_, y_;
};

std::unique_ptr<slawbench::instance> make_scan(const slawbench::params& p) {
  const long n = p.integer("n", 1, 1L << 31);
  const std::string& type = p.text("type");
  if (type == "double") return std::make_unique<scan_instance<double>>(n);
  if (type == "int64") return std::make_unique<scan_instance<std::int64_t>>(n);
  throw slawbench::bench_error("parameter type='" + type + "': expected double or int64");
}

SLAW_BENCHMARK(slawbench::benchmark{
    "scan",
    "parallel loop: the inclusive prefix sum of n numbers (slaw::inclusive_scan, parallel_scan, omp inscan, "
    "std::inclusive_scan(par))",
    {{"n", "100000"}, {"type", "double"}},
    {{"n", "100000000"}, {"type", "double"}},
    {{"n", "400000000"}, {"type", "double"}},
    make_scan,
    {{"n", "elements scanned (8 bytes each, and as many written), in [1, 2^31]"},
     {"type", "double (the oracle allows a relative 1e-9) or int64 (exact)"}}});

}  // namespace
