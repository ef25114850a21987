// psort: sorting n 64-bit keys. slaw::sort against oneTBB's parallel_sort, libstdc++'s parallel mode
// (OpenMP) and std::sort(std::execution::par); the serial elision is std::sort. Stresses: a
// divide-and-conquer algorithm behind a loop-like call: partitions in parallel, leaves of std::sort.
// No tbb-grain row (parallel_sort takes no partitioner nor grain) and no omp-dynamic row. The omp row
// is __gnu_parallel::sort, libstdc++'s OpenMP sort (a multiway mergesort over omp_get_max_threads()
// threads, so --workers): OpenMP's loop constructs have no sort of their own.
// Input: n keys from splitmix64 with a fixed seed (uniform 64-bit); reset() restores them.
// Oracle: the output is non-decreasing and a permutation of the input: its multiset hash (the count,
// the sum and the xor of a mixed image of each key) equals the input's, computed at set-up.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

// libstdc++'s parallel mode derives from std::binary_function, which clang marks deprecated.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <parallel/algorithm>
#pragma GCC diagnostic pop

#include <omp.h>
#include <tbb/parallel_sort.h>

#include "harness/benchmark.hpp"
#include "harness/loop_peers.hpp"

namespace {

using key = std::uint64_t;

class psort_instance : public slawbench::instance {
 public:
  explicit psort_instance(const slawbench::params& p)
      : input_(static_cast<std::size_t>(p.integer("n", 1, 1L << 30))), v_(input_.size()) {
    slawbench::splitmix64 g{27182818};
    for (key& k : input_) {
      k = g.next();
      want_.add(k);
    }
  }
  void reset() override { std::memcpy(v_.data(), input_.data(), input_.size() * sizeof(key)); }
  void run_serial() override { std::sort(v_.begin(), v_.end()); }
  void run_slaw(slaw::runtime& rt) override { rt.run(slaw::sort(v_.begin(), v_.end())); }
  bool has_tbb() const override { return true; }
  void run_tbb(unsigned) override { tbb::parallel_sort(v_.begin(), v_.end()); }
  bool has_omp() const override { return true; }
  void run_omp(unsigned) override {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    __gnu_parallel::sort(v_.begin(), v_.end());
#pragma GCC diagnostic pop
  }
  bool has_pstl() const override { return true; }
  void run_pstl(unsigned) override { std::sort(std::execution::par, v_.begin(), v_.end()); }
  slawbench::outcome check() override {
    slawbench::multiset_hash got;
    std::size_t unsorted = 0, first = 0;
    for (std::size_t i = 0; i < v_.size(); ++i) {
      got.add(v_[i]);
      if (i > 0 && v_[i - 1] > v_[i] && unsorted++ == 0) first = i;
    }
    std::string msg = std::to_string(v_.size()) + " keys";
    if (unsorted)
      return {false, msg + ": " + std::to_string(unsorted) + " descents, the first at index " + std::to_string(first)};
    if (!(got == want_)) return {false, msg + " sorted, but not a permutation of the input (multiset hash differs)"};
    return {true, msg + " sorted, a permutation of the input (multiset hash equal)"};
  }

 private:
  std::vector<key> input_, v_;
  slawbench::multiset_hash want_;
};

SLAW_BENCHMARK(slawbench::benchmark{
    "psort",
    "parallel algorithm: sort of n uint64 keys (slaw::sort, tbb::parallel_sort, __gnu_parallel::sort on "
    "OpenMP, std::sort(par))",
    {{"n", "20000"}},
    {{"n", "10000000"}},
    {{"n", "100000000"}},
    [](const slawbench::params& p) { return std::make_unique<psort_instance>(p); },
    {{"n", "keys sorted (uniform 64-bit), in [1, 2^30]"}}});

}  // namespace
