// densemm: dense matrix multiply C = A*B, doubles, n a power of two, with heap temporaries allocated
// inside the parallel recursion (Narlikar, "Scheduling Threads for Low Space Requirement and Good
// Locality", SPAA'99: the dense MM benchmark). Stresses: memory held live by parallel recursion, so
// schedulers differ in peak memory (a breadth-first order keeps ~n^3/leaf doubles of temporaries live;
// a depth-first one ~4/3 n^2 per worker); compute-bound fork-join with coarse leaves otherwise.
// Algorithm: mm(C, A, B, m): for m > 64 allocate a temporary m x m block T at this level, then run all
// 8 sub-multiplications in parallel under one finish, C_ij = A_i0 B_0j into C's quadrants and
// T_ij = A_i1 B_1j into T's quadrants; after the join add T into C (serially) and free T. An m <= 64
// block is a serial i-k-j loop writing C = A*B (the same leaf, not inlined, in every variant). A and B
// are row-major with leading dimension n; C's leading dimension is n or, inside a temporary, m. The slaw
// variant allocates T with `co_await slaw::make_buffer<double>(m*m)` (a DFDeques scheduling point), the
// others with plain new[]. Input: A and B with entries in [-1, 1) from std::mt19937_64 with a fixed
// seed; reset() fills C with NaN so that an unwritten entry fails. Oracle: for n <= 1024 every entry
// against a blocked serial i-k-j product computed once at set-up; for larger n, 256 random entries each
// computed directly as a dot product; the largest error must be below 1e-9 times the largest reference
// entry.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <omp.h>
#include <tbb/task_group.h>

#include "harness/benchmark.hpp"
#include "harness/matrix_oracle.hpp"
#include "slaw/memory.hpp"

namespace {

constexpr long leaf = 64;

// C[m x m] = A[m x m] * B[m x m]; C has leading dimension ldc, A and B ld.
// Not inlined, so that every variant runs the identical, equally optimised leaf loop.
[[gnu::noinline]] void leaf_mm(double* __restrict C, long ldc, const double* __restrict A, const double* __restrict B,
                               long m, long ld) {
  for (long i = 0; i < m; ++i) {
    double* c = C + i * ldc;
    for (long j = 0; j < m; ++j) c[j] = 0.0;
    for (long k = 0; k < m; ++k) {
      double a = A[i * ld + k];
      const double* b = B + k * ld;
      for (long j = 0; j < m; ++j) c[j] += a * b[j];
    }
  }
}

// C[m x m] (leading dimension ldc) += T[m x m] (leading dimension m).
[[gnu::noinline]] void add_into(double* __restrict C, long ldc, const double* __restrict T, long m) {
  for (long i = 0; i < m; ++i)
    for (long j = 0; j < m; ++j) C[i * ldc + j] += T[i * m + j];
}

// The quadrant q (0..3, row-major) of an m x m block at X with leading dimension ld.
template <class T>
T* quad(T* X, int q, long m, long ld) {
  return X + (q >> 1) * (m / 2) * ld + (q & 1) * (m / 2);
}

// Sub-multiplication s (0..7) of an m x m product: s < 4 is C_q = A_q0 B_0q' into C's quadrant q = s,
// s >= 4 is T_q = A_q1 B_1q' into T's quadrant q = s - 4. Spawned in the order s = 0..7 everywhere.
struct sub {
  double* C;
  long ldc;
  const double* A;
  const double* B;
};
inline sub subproblem(int s, double* C, long ldc, double* T, const double* A, const double* B, long m, long ld) {
  int q = s & 3, k = s >> 2;
  return {k ? quad(T, q, m, m) : quad(C, q, m, ldc), k ? m : ldc, quad(A, (q & 2) | k, m, ld),
          quad(B, k << 1 | (q & 1), m, ld)};
}

void mm_serial(double* C, long ldc, const double* A, const double* B, long m, long ld) {
  if (m <= leaf) return leaf_mm(C, ldc, A, B, m, ld);
  std::unique_ptr<double[]> t(new double[m * m]);
  for (int s = 0; s < 8; ++s) {
    sub x = subproblem(s, C, ldc, t.get(), A, B, m, ld);
    mm_serial(x.C, x.ldc, x.A, x.B, m / 2, ld);
  }
  add_into(C, ldc, t.get(), m);
}

slaw::task<> mm_slaw(double* C, long ldc, const double* A, const double* B, long m, long ld) {
  if (m <= leaf) {
    leaf_mm(C, ldc, A, B, m, ld);
    co_return;
  }
  slaw::buffer<double> t = co_await slaw::make_buffer<double>(static_cast<std::size_t>(m * m));
  auto f = co_await slaw::start_finish();
  for (int s = 0; s < 7; ++s) {
    sub x = subproblem(s, C, ldc, t.data(), A, B, m, ld);
    co_await slaw::async(mm_slaw, x.C, x.ldc, x.A, x.B, m / 2, ld);
  }
  sub x = subproblem(7, C, ldc, t.data(), A, B, m, ld);
  co_await mm_slaw(x.C, x.ldc, x.A, x.B, m / 2, ld);
  co_await slaw::end_finish(f);
  add_into(C, ldc, t.data(), m);
}  // t freed here

void mm_tbb(double* C, long ldc, const double* A, const double* B, long m, long ld) {
  if (m <= leaf) return leaf_mm(C, ldc, A, B, m, ld);
  std::unique_ptr<double[]> t(new double[m * m]);
  tbb::task_group g;
  for (int s = 0; s < 7; ++s) {
    sub x = subproblem(s, C, ldc, t.get(), A, B, m, ld);
    g.run([=] { mm_tbb(x.C, x.ldc, x.A, x.B, m / 2, ld); });
  }
  sub x = subproblem(7, C, ldc, t.get(), A, B, m, ld);
  mm_tbb(x.C, x.ldc, x.A, x.B, m / 2, ld);
  g.wait();
  add_into(C, ldc, t.get(), m);
}

void mm_omp(double* C, long ldc, const double* A, const double* B, long m, long ld) {
  if (m <= leaf) return leaf_mm(C, ldc, A, B, m, ld);
  std::unique_ptr<double[]> t(new double[m * m]);
  double* T = t.get();
  for (int s = 0; s < 7; ++s) {
    sub x = subproblem(s, C, ldc, T, A, B, m, ld);
#pragma omp task firstprivate(x, m, ld)
    mm_omp(x.C, x.ldc, x.A, x.B, m / 2, ld);
  }
  sub x = subproblem(7, C, ldc, T, A, B, m, ld);
  mm_omp(x.C, x.ldc, x.A, x.B, m / 2, ld);
#pragma omp taskwait
  add_into(C, ldc, T, m);
}

class densemm_instance : public slawbench::instance {
 public:
  explicit densemm_instance(const slawbench::params& p) : n_(p.integer("n", leaf, 16384)) {
    if (n_ & (n_ - 1))
      throw slawbench::bench_error("n=" + std::to_string(n_) + ": expected a power of two in [64, 16384]");
    A_.resize(n_ * n_), B_.resize(n_ * n_), C_.resize(n_ * n_);
    std::mt19937_64 rng(4243);
    auto uni = [&] { return static_cast<double>(rng() >> 11) * 0x1p-52 - 1.0; };
    for (double& x : A_) x = uni();
    for (double& x : B_) x = uni();
    if (n_ <= 1024) {  // the reference product: i-k-j, blocked over k and j so that a B tile stays in cache
      ref_.assign(n_ * n_, 0.0);
      constexpr long bk = 128, bj = 256;
      for (long k0 = 0; k0 < n_; k0 += bk)
        for (long j0 = 0; j0 < n_; j0 += bj) {
          long k1 = std::min(n_, k0 + bk), j1 = std::min(n_, j0 + bj);
          for (long i = 0; i < n_; ++i) {
            double* r = ref_.data() + i * n_;
            for (long k = k0; k < k1; ++k) {
              double a = A_[i * n_ + k];
              const double* b = B_.data() + k * n_;
              for (long j = j0; j < j1; ++j) r[j] += a * b[j];
            }
          }
        }
    }
  }
  void reset() override { std::fill(C_.begin(), C_.end(), std::numeric_limits<double>::quiet_NaN()); }
  void run_serial() override { mm_serial(C_.data(), n_, A_.data(), B_.data(), n_, n_); }
  void run_slaw(slaw::runtime& rt) override { rt.run(mm_slaw(C_.data(), n_, A_.data(), B_.data(), n_, n_)); }
  bool has_tbb() const override { return true; }
  void run_tbb(unsigned) override { mm_tbb(C_.data(), n_, A_.data(), B_.data(), n_, n_); }
  bool has_omp() const override { return true; }
  void run_omp(unsigned) override {
#pragma omp parallel
#pragma omp single
    mm_omp(C_.data(), n_, A_.data(), B_.data(), n_, n_);
  }
  slawbench::outcome check() override { return slawbench::check_product(C_.data(), A_.data(), B_.data(), n_, ref_); }


 private:
  long n_;
  std::vector<double> A_, B_, C_, ref_;
};

SLAW_BENCHMARK(slawbench::benchmark{
    "densemm",
    "matrix multiply C = A*B with an m x m heap temporary per recursive call (8-way parallel), peak memory",
    {{"n", "128"}},
    {{"n", "1024"}},
    {{"n", "2048"}},
    [](const slawbench::params& p) { return std::make_unique<densemm_instance>(p); },
    {{"n", "the matrices' order, a power of two in [64, 16384]"}}});

}  // namespace
