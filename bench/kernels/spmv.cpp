// spmv: repeated sparse matrix-vector multiply y_k = A y_{k-1}, A in CSR (Narlikar, "Scheduling Threads
// for Low Space Requirement and Good Locality", SPAA'99: the sparse MVM benchmark, 30K rows, 151K
// nonzeros). Stresses: many small, short tasks that each allocate a scratch buffer, a flat join per
// iteration; memory-bound, irregular reads of x.
// Algorithm: each iteration splits the row range in two recursively (left half spawned, right half
// called, one finish per split) down to ranges of at most 256 rows; a leaf allocates a scratch buffer of
// one double per row, computes its rows' dot products into it (each row summed left to right over its
// sorted columns, the same non-inlined loop in every variant), copies it into y and frees it. The slaw
// variant allocates the scratch with `co_await slaw::make_buffer<double>(rows)` (a DFDeques scheduling
// point), the others with plain new[]. x and y swap between iterations. Locality version (the *-places
// rows): the same rows to the same place or thread every iteration: slaw sends rows [p*rows/P,
// (p+1)*rows/P) to place p (slaw::at) and recurses inside it as above; OpenMP (schedule(static)) and
// oneTBB (one affinity_partitioner) loop over the 256-row leaves.
// Loop version (benchmark spmv-loop): each product one parallel loop over the rows, y[i] = (A x)_i
// written directly (slaw::for_each_index, no grain; oneTBB parallel_for; OpenMP `omp for` inside one
// parallel region; std::for_each(par) over the rows' indices), with no leaves and no scratch buffers; the
// serial elision loops over the rows. The row's dot product is the same inline function in every
// variant, summed in the reference's order. omp-dynamic uses schedule(guided, chunk): rows cost about
// the same (1 to 9 nonzeros), so a dynamic schedule only helps against interference, which guided's
// shrinking chunks absorb with fewer dispatches than a fixed chunk.
// Input: a random graph from std::mt19937_64 with a fixed seed: row i holds the diagonal plus 0..8
// (uniform) columns drawn uniformly, sorted, duplicates merged (about 5 nonzeros a row); the weights are
// uniform in [0.5, 1) and each row is scaled to sum to 1 (a random walk's transition matrix), so the
// iterates stay in [0, 1) without a normalisation step. x_0 is uniform in [0, 1); reset() restores it.
// Oracle: the final vector against the same iteration computed serially row by row at set-up (same
// per-row summation order, so it should match exactly): every entry within a relative 1e-12.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <omp.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_group.h>

#include "harness/benchmark.hpp"
#include "harness/loop_peers.hpp"
#include "slaw/memory.hpp"

namespace {

constexpr long grain = 256;  // rows per leaf

struct csr {
  long rows = 0;
  std::vector<long> rowptr;  // rows + 1
  std::vector<int> col;
  std::vector<double> val;
};

// out[i - lo] = (A x)_i for lo <= i < hi. Not inlined, so that every variant and the reference run the
// identical loop (and the identical per-row summation order).
[[gnu::noinline]] void spmv_rows(const csr& A, const double* __restrict x, double* __restrict out, long lo, long hi) {
  const long* rp = A.rowptr.data();
  const int* c = A.col.data();
  const double* v = A.val.data();
  for (long i = lo; i < hi; ++i) {
    double s = 0.0;
    for (long e = rp[i]; e < rp[i + 1]; ++e) s += v[e] * x[c[e]];
    out[i - lo] = s;
  }
}

// (A x)_i, summed as spmv_rows sums it; inlined into each variant's loop (spmv-loop).
inline double row_dot(const csr& A, const double* __restrict x, long i) {
  const long* rp = A.rowptr.data();
  const int* c = A.col.data();
  const double* v = A.val.data();
  double s = 0.0;
  for (long e = rp[i]; e < rp[i + 1]; ++e) s += v[e] * x[c[e]];
  return s;
}

void leaf_heap(const csr& A, const double* x, double* y, long lo, long hi) {
  std::unique_ptr<double[]> s(new double[hi - lo]);
  spmv_rows(A, x, s.get(), lo, hi);
  std::memcpy(y + lo, s.get(), (hi - lo) * sizeof(double));
}

void rec_serial(const csr& A, const double* x, double* y, long lo, long hi) {
  if (hi - lo <= grain) return leaf_heap(A, x, y, lo, hi);
  long mid = lo + (hi - lo) / 2;
  rec_serial(A, x, y, lo, mid);
  rec_serial(A, x, y, mid, hi);
}

slaw::task<> rec_slaw(const csr* A, const double* x, double* y, long lo, long hi) {
  if (hi - lo <= grain) {
    slaw::buffer<double> s = co_await slaw::make_buffer<double>(static_cast<std::size_t>(hi - lo));
    spmv_rows(*A, x, s.data(), lo, hi);
    std::memcpy(y + lo, s.data(), (hi - lo) * sizeof(double));
    co_return;
  }
  long mid = lo + (hi - lo) / 2;
  auto f = co_await slaw::start_finish();
  co_await slaw::async(rec_slaw, A, x, y, lo, mid);
  co_await rec_slaw(A, x, y, mid, hi);
  co_await slaw::end_finish(f);
}

slaw::task<> spmv_slaw(const csr* A, double* x, double* y, long iters) {
  for (long it = 0; it < iters; ++it) {
    co_await rec_slaw(A, x, y, 0, A->rows);
    std::swap(x, y);
  }
}

void rec_tbb(const csr& A, const double* x, double* y, long lo, long hi) {
  if (hi - lo <= grain) return leaf_heap(A, x, y, lo, hi);
  long mid = lo + (hi - lo) / 2;
  tbb::task_group g;
  g.run([&A, x, y, lo, mid] { rec_tbb(A, x, y, lo, mid); });
  rec_tbb(A, x, y, mid, hi);
  g.wait();
}

void rec_omp(const csr& A, const double* x, double* y, long lo, long hi) {
  if (hi - lo <= grain) return leaf_heap(A, x, y, lo, hi);
  long mid = lo + (hi - lo) / 2;
#pragma omp task firstprivate(x, y, lo, mid) shared(A)
  rec_omp(A, x, y, lo, mid);
  rec_omp(A, x, y, mid, hi);
#pragma omp taskwait
}

// Locality versions: the rows cut into `parts` equal contiguous parts, the same part to the same place
// (slaw::at, then the usual recursion inside it), thread (static schedule) or cache (affinity_partitioner)
// in every iteration.
slaw::task<> spmv_slaw_places(const csr* A, double* x, double* y, long iters) {
  const long P = static_cast<long>(slaw::num_places());
  for (long it = 0; it < iters; ++it) {
    auto f = co_await slaw::start_finish();
    for (long p = 0; p < P; ++p)
      co_await slaw::async(slaw::at(slaw::place(static_cast<std::size_t>(p))), rec_slaw, A, x, y, p * A->rows / P,
                           (p + 1) * A->rows / P);
    co_await slaw::end_finish(f);
    std::swap(x, y);
  }
}

class spmv_instance : public slawbench::instance {
 public:
  explicit spmv_instance(const slawbench::params& p)
      : iters_(p.integer("iters", 1, 1000000)) {
    long rows = p.integer("rows", 1, 1L << 26);
    A_.rows = rows;
    A_.rowptr.assign(rows + 1, 0);
    A_.col.reserve(rows * 5 + 16);
    A_.val.reserve(rows * 5 + 16);
    std::mt19937_64 rng(30151);
    auto uni = [&] { return static_cast<double>(rng() >> 11) * 0x1p-53; };  // [0, 1)
    std::vector<int> cols;
    for (long i = 0; i < rows; ++i) {
      cols.assign(1, static_cast<int>(i));
      long extra = static_cast<long>(rng() % 9);
      for (long e = 0; e < extra; ++e) cols.push_back(static_cast<int>(rng() % rows));
      std::sort(cols.begin(), cols.end());
      cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
      std::size_t first = A_.val.size();
      double sum = 0;
      for (int c : cols) {
        double w = 0.5 + 0.5 * uni();
        A_.col.push_back(c);
        A_.val.push_back(w);
        sum += w;
      }
      for (std::size_t e = first; e < A_.val.size(); ++e) A_.val[e] /= sum;
      A_.rowptr[i + 1] = static_cast<long>(A_.val.size());
    }
    x0_.resize(rows);
    for (double& v : x0_) v = uni();
    v0_.resize(rows), v1_.resize(rows);
    // The reference: the same iteration, serially over all rows at once.
    std::vector<double> x = x0_, y(rows);
    for (long it = 0; it < iters_; ++it) {
      spmv_rows(A_, x.data(), y.data(), 0, rows);
      x.swap(y);
    }
    ref_ = std::move(x);
  }
  void reset() override {
    v0_ = x0_;
    std::fill(v1_.begin(), v1_.end(), std::nan(""));
  }
  void run_serial() override {
    double *x = v0_.data(), *y = v1_.data();
    for (long it = 0; it < iters_; ++it) {
      rec_serial(A_, x, y, 0, A_.rows);
      std::swap(x, y);
    }
  }
  void run_slaw(slaw::runtime& rt) override { rt.run(spmv_slaw(&A_, v0_.data(), v1_.data(), iters_)); }
  bool has_tbb() const override { return true; }
  void run_tbb(unsigned) override {
    double *x = v0_.data(), *y = v1_.data();
    for (long it = 0; it < iters_; ++it) {
      rec_tbb(A_, x, y, 0, A_.rows);
      std::swap(x, y);
    }
  }
  bool has_omp() const override { return true; }
  void run_omp(unsigned) override {
#pragma omp parallel
#pragma omp single
    {
      double *x = v0_.data(), *y = v1_.data();
      for (long it = 0; it < iters_; ++it) {
        rec_omp(A_, x, y, 0, A_.rows);
        std::swap(x, y);
      }
    }
  }
  bool has_locality() const override { return true; }
  void run_slaw_locality(slaw::runtime& rt) override { rt.run(spmv_slaw_places(&A_, v0_.data(), v1_.data(), iters_)); }
  void run_tbb_locality(unsigned) override {
    double *x = v0_.data(), *y = v1_.data();
    const long leaves = (A_.rows + grain - 1) / grain;
    for (long it = 0; it < iters_; ++it) {
      tbb::parallel_for(
          tbb::blocked_range<long>(0, leaves, 1),
          [&, x, y](const tbb::blocked_range<long>& r) {
            for (long l = r.begin(); l < r.end(); ++l) leaf_heap(A_, x, y, l * grain, std::min(A_.rows, (l + 1) * grain));
          },
          affinity_);
      std::swap(x, y);
    }
  }
  void run_omp_locality(unsigned) override {
    const long leaves = (A_.rows + grain - 1) / grain;
    double *x = v0_.data(), *y = v1_.data();
#pragma omp parallel firstprivate(x, y)
    for (long it = 0; it < iters_; ++it) {
#pragma omp for schedule(static)
      for (long l = 0; l < leaves; ++l) leaf_heap(A_, x, y, l * grain, std::min(A_.rows, (l + 1) * grain));
      std::swap(x, y);
    }
  }
  slawbench::outcome check() override {
    const std::vector<double>& got = iters_ % 2 ? v1_ : v0_;
    double worst_rel = 0;
    long bad = 0, worst = 0;
    for (long i = 0; i < A_.rows; ++i) {
      double e = std::fabs(got[i] - ref_[i]);
      double rel = ref_[i] != 0 ? e / std::fabs(ref_[i]) : e;
      if (!(rel <= 1e-12)) ++bad;
      if (!(rel <= worst_rel) && worst_rel == worst_rel) worst_rel = rel, worst = i;  // a NaN is the worst
    }
    char msg[200];
    std::snprintf(msg, sizeof msg, "%ld entries of y after %ld iterations (%ld nonzeros): max relative error %.3g",
                  A_.rows, iters_, A_.rowptr[A_.rows], worst_rel);
    if (bad == 0) return {true, msg};
    return {false, std::string(msg) + ", " + std::to_string(bad) + " entries off, worst at row " + std::to_string(worst)};
  }

 protected:
  tbb::affinity_partitioner affinity_;  // kept across repetitions, as an application keeps it across sweeps
  long iters_;
  csr A_;
  std::vector<double> x0_, v0_, v1_, ref_;
};

// ---- spmv-loop: each product one parallel loop over the rows ----

// The peers' hand-tuned chunks, tuned at --size default with 2 workers on the 2-core machine of
// bench/results/loops/: each candidate side by side with the default row (tbb, omp) in one run, 5
// repetitions, 1 to 4 runs each; the ratios below are candidate / default row. Other work shared the
// machine (load 3 to 8), so differences under about 10 % are noise.
// A product is 30000 rows of about 20 ns.
// tbb-grain: simple_partitioner chunks of [grain/2, grain] rows. Tried 64 (0.95-1.22), 256 (1.03, one
// run), 512 (0.89-1.13), 1024 (0.83, one run), 2048 (1.12, one run), 4096 (0.96-1.16), 16384 (0.93-1.00).
// Kept 1024, the fastest run; about 30 pieces of 10 to 20 µs per product.
constexpr long loop_tbb_grain = 1024;
// omp-dynamic: schedule(guided, chunk) rows, chunks of at least this many. Tried 16 (0.89-1.00), 64 (1.22,
// one run), 128 (1.00, one run), 256 (0.88-1.10), 512 (0.94, one run), 2048 (0.99-1.13), 8192
// (1.03-1.21). Kept 256: ahead of the static schedule in two of its four runs by over 10 %.
constexpr long loop_omp_chunk = 256;

slaw::task<> spmv_loop_slaw(const csr* A, double* x, double* y, long iters) {
  for (long it = 0; it < iters; ++it) {
    co_await slaw::for_each_index(0L, A->rows, [A, x, y](long i) { y[i] = row_dot(*A, x, i); });
    std::swap(x, y);
  }
}

// The same matrix, vectors and oracle as spmv; the variants' loops replace the leaves.
class spmv_loop_instance : public spmv_instance {
 public:
  explicit spmv_loop_instance(const slawbench::params& p) : spmv_instance(p), rows_(slawbench::index_vector(A_.rows)) {}
  void run_serial() override {
    double *x = v0_.data(), *y = v1_.data();
    for (long it = 0; it < iters_; ++it) {
      for (long i = 0; i < A_.rows; ++i) y[i] = row_dot(A_, x, i);
      std::swap(x, y);
    }
  }
  void run_slaw(slaw::runtime& rt) override { rt.run(spmv_loop_slaw(&A_, v0_.data(), v1_.data(), iters_)); }
  void run_tbb(unsigned) override { tbb_loop(tbb::auto_partitioner(), 1); }
  bool has_tbb_grain() const override { return true; }
  void run_tbb_grain(unsigned) override { tbb_loop(tbb::simple_partitioner(), loop_tbb_grain); }
  void run_omp(unsigned) override {
    const csr& A = A_;
    const long rows = A_.rows;
    double *x = v0_.data(), *y = v1_.data();
#pragma omp parallel firstprivate(x, y)
    for (long it = 0; it < iters_; ++it) {
#pragma omp for schedule(static)
      for (long i = 0; i < rows; ++i) y[i] = row_dot(A, x, i);
      std::swap(x, y);
    }
  }
  bool has_omp_dynamic() const override { return true; }
  void run_omp_dynamic(unsigned) override {
    const csr& A = A_;
    const long rows = A_.rows, chunk = loop_omp_chunk;
    double *x = v0_.data(), *y = v1_.data();
#pragma omp parallel firstprivate(x, y)
    for (long it = 0; it < iters_; ++it) {
#pragma omp for schedule(guided, chunk)
      for (long i = 0; i < rows; ++i) y[i] = row_dot(A, x, i);
      std::swap(x, y);
    }
  }
  bool has_pstl() const override { return true; }
  void run_pstl(unsigned) override {
    const csr* A = &A_;
    double *x = v0_.data(), *y = v1_.data();
    for (long it = 0; it < iters_; ++it) {
      std::for_each(std::execution::par, rows_.begin(), rows_.end(), [A, x, y](long i) { y[i] = row_dot(*A, x, i); });
      std::swap(x, y);
    }
  }
  bool has_locality() const override { return false; }

 private:
  template <class Partitioner>
  void tbb_loop(const Partitioner& part, long grain) {
    const csr* A = &A_;
    double *x = v0_.data(), *y = v1_.data();
    for (long it = 0; it < iters_; ++it) {
      tbb::parallel_for(
          tbb::blocked_range<long>(0, A_.rows, static_cast<std::size_t>(grain)),
          [A, x, y](const tbb::blocked_range<long>& r) {
            for (long i = r.begin(); i < r.end(); ++i) y[i] = row_dot(*A, x, i);
          },
          part);
      std::swap(x, y);
    }
  }

  std::vector<long> rows_;  // the pstl row's indices
};

SLAW_BENCHMARK(slawbench::benchmark{
    "spmv",
    "repeated sparse y = A x (CSR, ~5 nonzeros a row), 256-row leaves each allocating a scratch buffer",
    {{"rows", "2000"}, {"iters", "5"}},
    {{"rows", "30000"}, {"iters", "1000"}},
    {{"rows", "300000"}, {"iters", "50"}},
    [](const slawbench::params& p) { return std::make_unique<spmv_instance>(p); },
    {{"rows", "the matrix's rows (about 5 nonzeros each), in [1, 2^26]"},
     {"iters", "products y = A x per run, in [1, 10^6]"}}});

SLAW_BENCHMARK(slawbench::benchmark{
    "spmv-loop",
    "repeated sparse y = A x (CSR, ~5 nonzeros a row) as one parallel loop over the rows per product "
    "(slaw::for_each_index, parallel_for, omp for, std::for_each(par))",
    {{"rows", "2000"}, {"iters", "5"}},
    {{"rows", "30000"}, {"iters", "1000"}},
    {{"rows", "300000"}, {"iters", "50"}},
    [](const slawbench::params& p) { return std::make_unique<spmv_loop_instance>(p); },
    {{"rows", "the matrix's rows (about 5 nonzeros each), in [1, 2^26]"},
     {"iters", "products y = A x per run, in [1, 10^6]"}}});

}  // namespace
