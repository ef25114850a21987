// sort: cilksort (BOTS sort, after Cilk-5's cilksort.cilk). Stresses: nested fork-join with a lot of
// memory traffic, parallel divide and conquer in both the sort and the merge.
// Algorithm: sort(A, n): below 2048 elements a serial quicksort (median of three, insertion sort below
// 20); otherwise sort the four quarters in parallel (using tmp as scratch), merge quarters 1+2 and 3+4
// into tmp in parallel, then merge the two halves back. merge(X, Y): the larger run is split at its
// median, the other is binary-searched for it, and the two sides are merged in parallel; below 2048
// elements in the smaller run a serial merge. Same cut-offs (BOTS defaults) in every variant.
// Input: n pseudo-random 32-bit ints from std::mt19937 with a fixed seed; reset() restores them.
// Oracle: the output is non-decreasing and has the input's element count, sum and xor.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <omp.h>
#include <tbb/task_group.h>

#include "harness/benchmark.hpp"

namespace {

using elm = std::int32_t;
constexpr long quick_cutoff = 2048, merge_cutoff = 2048, insertion_cutoff = 20;

void insertion_sort(elm* lo, elm* hi) {
  for (elm* p = lo + 1; p < hi; ++p) {
    elm v = *p;
    elm* q = p;
    for (; q > lo && q[-1] > v; --q) *q = q[-1];
    *q = v;
  }
}

elm med3(elm a, elm b, elm c) { return a < b ? (b < c ? b : (a < c ? c : a)) : (b > c ? b : (a < c ? a : c)); }

// Quicksort of [lo, hi): Hoare partition around the median of three; both sides are non-empty.
void seqquick(elm* lo, elm* hi) {
  while (hi - lo > insertion_cutoff) {
    elm pivot = med3(lo[0], lo[(hi - lo) / 2], hi[-1]);
    elm* i = lo - 1;
    elm* j = hi;
    for (;;) {
      do ++i; while (*i < pivot);
      do --j; while (*j > pivot);
      if (i >= j) break;
      std::swap(*i, *j);
    }
    seqquick(lo, j + 1);
    lo = j + 1;
  }
  insertion_sort(lo, hi);
}

void seqmerge(const elm* a, long na, const elm* b, long nb, elm* d) {
  const elm *ea = a + na, *eb = b + nb;
  while (a < ea && b < eb) *d++ = *b < *a ? *b++ : *a++;
  d = std::copy(a, ea, d);
  std::copy(b, eb, d);
}

// The serial part of a merge: puts the larger run first; returns true if the merge was done serially.
// Otherwise *h is the split point in a (its median) and *s the number of b's elements below a[h].
bool merge_base(const elm*& a, long& na, const elm*& b, long& nb, elm* d, long* h, long* s) {
  if (nb > na) std::swap(a, b), std::swap(na, nb);
  if (nb == 0) {
    std::copy(a, a + na, d);
    return true;
  }
  if (nb <= merge_cutoff) {
    seqmerge(a, na, b, nb, d);
    return true;
  }
  *h = na / 2;
  *s = std::lower_bound(b, b + nb, a[*h]) - b;
  d[*h + *s] = a[*h];
  return false;
}

// ---- serial elision
void merge_serial(const elm* a, long na, const elm* b, long nb, elm* d) {
  long h, s;
  if (merge_base(a, na, b, nb, d, &h, &s)) return;
  merge_serial(a, h, b, s, d);
  merge_serial(a + h + 1, na - h - 1, b + s, nb - s, d + h + s + 1);
}

void sort_serial(elm* A, elm* T, long n) {
  if (n < quick_cutoff) return seqquick(A, A + n);
  long q = n / 4;
  sort_serial(A, T, q);
  sort_serial(A + q, T + q, q);
  sort_serial(A + 2 * q, T + 2 * q, q);
  sort_serial(A + 3 * q, T + 3 * q, n - 3 * q);
  merge_serial(A, q, A + q, q, T);
  merge_serial(A + 2 * q, q, A + 3 * q, n - 3 * q, T + 2 * q);
  merge_serial(T, 2 * q, T + 2 * q, n - 2 * q, A);
}

// ---- slaw
slaw::task<> merge_slaw(const elm* a, long na, const elm* b, long nb, elm* d) {
  long h, s;
  if (merge_base(a, na, b, nb, d, &h, &s)) co_return;
  auto f = co_await slaw::start_finish();
  co_await slaw::async(merge_slaw, a, h, b, s, d);
  co_await merge_slaw(a + h + 1, na - h - 1, b + s, nb - s, d + h + s + 1);
  co_await slaw::end_finish(f);
}

slaw::task<> sort_slaw(elm* A, elm* T, long n) {
  if (n < quick_cutoff) {
    seqquick(A, A + n);
    co_return;
  }
  long q = n / 4;
  {
    auto f = co_await slaw::start_finish();
    co_await slaw::async(sort_slaw, A, T, q);
    co_await slaw::async(sort_slaw, A + q, T + q, q);
    co_await slaw::async(sort_slaw, A + 2 * q, T + 2 * q, q);
    co_await sort_slaw(A + 3 * q, T + 3 * q, n - 3 * q);
    co_await slaw::end_finish(f);
  }
  {
    auto f = co_await slaw::start_finish();
    co_await slaw::async(merge_slaw, A, q, A + q, q, T);
    co_await merge_slaw(A + 2 * q, q, A + 3 * q, n - 3 * q, T + 2 * q);
    co_await slaw::end_finish(f);
  }
  co_await merge_slaw(T, 2 * q, T + 2 * q, n - 2 * q, A);
}

// ---- oneTBB
void merge_tbb(const elm* a, long na, const elm* b, long nb, elm* d) {
  long h, s;
  if (merge_base(a, na, b, nb, d, &h, &s)) return;
  tbb::task_group g;
  g.run([=] { merge_tbb(a, h, b, s, d); });
  merge_tbb(a + h + 1, na - h - 1, b + s, nb - s, d + h + s + 1);
  g.wait();
}

void sort_tbb(elm* A, elm* T, long n) {
  if (n < quick_cutoff) return seqquick(A, A + n);
  long q = n / 4;
  tbb::task_group g;
  g.run([=] { sort_tbb(A, T, q); });
  g.run([=] { sort_tbb(A + q, T + q, q); });
  g.run([=] { sort_tbb(A + 2 * q, T + 2 * q, q); });
  sort_tbb(A + 3 * q, T + 3 * q, n - 3 * q);
  g.wait();
  g.run([=] { merge_tbb(A, q, A + q, q, T); });
  merge_tbb(A + 2 * q, q, A + 3 * q, n - 3 * q, T + 2 * q);
  g.wait();
  merge_tbb(T, 2 * q, T + 2 * q, n - 2 * q, A);
}

// ---- OpenMP
void merge_omp(const elm* a, long na, const elm* b, long nb, elm* d) {
  long h, s;
  if (merge_base(a, na, b, nb, d, &h, &s)) return;
#pragma omp task firstprivate(a, h, b, s, d)
  merge_omp(a, h, b, s, d);
  merge_omp(a + h + 1, na - h - 1, b + s, nb - s, d + h + s + 1);
#pragma omp taskwait
}

void sort_omp(elm* A, elm* T, long n) {
  if (n < quick_cutoff) return seqquick(A, A + n);
  long q = n / 4;
#pragma omp task firstprivate(A, T, q)
  sort_omp(A, T, q);
#pragma omp task firstprivate(A, T, q)
  sort_omp(A + q, T + q, q);
#pragma omp task firstprivate(A, T, q)
  sort_omp(A + 2 * q, T + 2 * q, q);
  sort_omp(A + 3 * q, T + 3 * q, n - 3 * q);
#pragma omp taskwait
#pragma omp task firstprivate(A, T, q)
  merge_omp(A, q, A + q, q, T);
  merge_omp(A + 2 * q, q, A + 3 * q, n - 3 * q, T + 2 * q);
#pragma omp taskwait
  merge_omp(T, 2 * q, T + 2 * q, n - 2 * q, A);
}

class sort_instance : public slawbench::instance {
 public:
  explicit sort_instance(const slawbench::params& p)
      : n_(p.integer("n", 1, 1L << 31)), input_(n_), data_(n_), tmp_(n_) {
    std::mt19937 rng(12345);
    for (elm& x : input_) {
      x = static_cast<elm>(rng());
      sum_ += x;
      xor_ ^= static_cast<std::uint32_t>(x);
    }
  }
  void reset() override { std::memcpy(data_.data(), input_.data(), n_ * sizeof(elm)); }
  void run_serial() override { sort_serial(data_.data(), tmp_.data(), n_); }
  void run_slaw(slaw::runtime& rt) override { rt.run(sort_slaw(data_.data(), tmp_.data(), n_)); }
  bool has_tbb() const override { return true; }
  void run_tbb(unsigned) override { sort_tbb(data_.data(), tmp_.data(), n_); }
  bool has_omp() const override { return true; }
  void run_omp(unsigned) override {
#pragma omp parallel
#pragma omp single
    sort_omp(data_.data(), tmp_.data(), n_);
  }
  slawbench::outcome check() override {
    std::int64_t sum = 0;
    std::uint32_t x = 0;
    for (long i = 0; i < n_; ++i) {
      if (i && data_[i] < data_[i - 1])
        return {false, "not sorted at index " + std::to_string(i) + " of " + std::to_string(n_)};
      sum += data_[i];
      x ^= static_cast<std::uint32_t>(data_[i]);
    }
    if (sum != sum_ || x != xor_) return {false, "sorted, but not the input's elements (sum/xor differ)"};
    return {true, std::to_string(n_) + " ints sorted, sum and xor as the input's"};
  }

 private:
  long n_;
  std::vector<elm> input_, data_, tmp_;
  std::int64_t sum_ = 0;
  std::uint32_t xor_ = 0;
};

SLAW_BENCHMARK(slawbench::benchmark{
    "sort",
    "cilksort: parallel merge sort with parallel merge, memory-bound nested fork-join",
    {{"n", "1000000"}},
    {{"n", "16000000"}},
    {{"n", "50000000"}},
    [](const slawbench::params& p) { return std::make_unique<sort_instance>(p); },
    {{"n", "32-bit integers to sort, in [1, 2^31]"}}});

}  // namespace
