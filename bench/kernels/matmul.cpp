// matmul: recursive (cache-oblivious) dense matrix multiply C += A*B, doubles, n a power of two.
// Stresses: regular compute-bound fork-join with coarse leaves (few, large tasks).
// Algorithm: divide C, A, B into quadrants; C's four quadrants are updated in parallel in two phases
// (C_ij += A_i0 B_0j, then C_ij += A_i1 B_1j), so no temporaries and no races; an n <= 64 block is a
// serial i-k-j triple loop (the same leaf in every variant). Row-major storage, leading dimension n.
// Input: A and B with entries in [-1, 1) from std::mt19937_64 with a fixed seed; C starts at zero
// (reset() zeroes it). Oracle: for n <= 1024 every entry against a plain i-k-j product computed once at
// set-up; for larger n, 256 random entries each computed directly as a dot product; the largest error
// must be below 1e-9 times the largest reference entry.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <omp.h>
#include <tbb/task_group.h>

#include "harness/benchmark.hpp"
#include "harness/matrix_oracle.hpp"

namespace {

constexpr long leaf = 64;

// C[m x m] += A[m x m] * B[m x m], all with leading dimension ld.
// Not inlined, so that every variant runs the identical, equally optimised leaf loop.
[[gnu::noinline]] void leaf_mm(double* __restrict C, const double* __restrict A, const double* __restrict B, long m, long ld) {
  for (long i = 0; i < m; ++i)
    for (long k = 0; k < m; ++k) {
      double a = A[i * ld + k];
      for (long j = 0; j < m; ++j) C[i * ld + j] += a * B[k * ld + j];
    }
}

// The quadrant q (0..3, row-major) of an m x m block at X.
template <class T>
T* quad(T* X, int q, long m, long ld) {
  return X + (q >> 1) * (m / 2) * ld + (q & 1) * (m / 2);
}

void mm_serial(double* C, const double* A, const double* B, long m, long ld) {
  if (m <= leaf) return leaf_mm(C, A, B, m, ld);
  for (int k = 0; k < 2; ++k)
    for (int q = 0; q < 4; ++q)
      mm_serial(quad(C, q, m, ld), quad(A, (q & 2) | k, m, ld), quad(B, k << 1 | (q & 1), m, ld), m / 2, ld);
}

slaw::task<> mm_slaw(double* C, const double* A, const double* B, long m, long ld) {
  if (m <= leaf) {
    leaf_mm(C, A, B, m, ld);
    co_return;
  }
  for (int k = 0; k < 2; ++k) {
    auto f = co_await slaw::start_finish();
    for (int q = 0; q < 3; ++q)
      co_await slaw::async(mm_slaw, quad(C, q, m, ld), quad(A, (q & 2) | k, m, ld), quad(B, k << 1 | (q & 1), m, ld),
                           m / 2, ld);
    co_await mm_slaw(quad(C, 3, m, ld), quad(A, 2 | k, m, ld), quad(B, k << 1 | 1, m, ld), m / 2, ld);
    co_await slaw::end_finish(f);
  }
}

void mm_tbb(double* C, const double* A, const double* B, long m, long ld) {
  if (m <= leaf) return leaf_mm(C, A, B, m, ld);
  tbb::task_group g;
  for (int k = 0; k < 2; ++k) {
    for (int q = 0; q < 3; ++q)
      g.run([=] { mm_tbb(quad(C, q, m, ld), quad(A, (q & 2) | k, m, ld), quad(B, k << 1 | (q & 1), m, ld), m / 2, ld); });
    mm_tbb(quad(C, 3, m, ld), quad(A, 2 | k, m, ld), quad(B, k << 1 | 1, m, ld), m / 2, ld);
    g.wait();
  }
}

void mm_omp(double* C, const double* A, const double* B, long m, long ld) {
  if (m <= leaf) return leaf_mm(C, A, B, m, ld);
  for (int k = 0; k < 2; ++k) {
    for (int q = 0; q < 3; ++q) {
#pragma omp task firstprivate(C, A, B, m, ld, q, k)
      mm_omp(quad(C, q, m, ld), quad(A, (q & 2) | k, m, ld), quad(B, k << 1 | (q & 1), m, ld), m / 2, ld);
    }
    mm_omp(quad(C, 3, m, ld), quad(A, 2 | k, m, ld), quad(B, k << 1 | 1, m, ld), m / 2, ld);
#pragma omp taskwait
  }
}

class matmul_instance : public slawbench::instance {
 public:
  explicit matmul_instance(const slawbench::params& p) : n_(p.integer("n", leaf, 16384)) {
    if (n_ & (n_ - 1)) throw slawbench::bench_error("n=" + std::to_string(n_) + ": expected a power of two >= 64");
    A_.resize(n_ * n_), B_.resize(n_ * n_), C_.resize(n_ * n_);
    std::mt19937_64 rng(4242);
    auto uni = [&] { return static_cast<double>(rng() >> 11) * 0x1p-52 - 1.0; };
    for (double& x : A_) x = uni();
    for (double& x : B_) x = uni();
    if (n_ <= 1024) {  // the reference product, plain i-k-j
      ref_.assign(n_ * n_, 0.0);
      for (long i = 0; i < n_; ++i)
        for (long k = 0; k < n_; ++k)
          for (long j = 0; j < n_; ++j) ref_[i * n_ + j] += A_[i * n_ + k] * B_[k * n_ + j];
    }
  }
  void reset() override { std::fill(C_.begin(), C_.end(), 0.0); }
  void run_serial() override { mm_serial(C_.data(), A_.data(), B_.data(), n_, n_); }
  void run_slaw(slaw::runtime& rt) override { rt.run(mm_slaw(C_.data(), A_.data(), B_.data(), n_, n_)); }
  bool has_tbb() const override { return true; }
  void run_tbb(unsigned) override { mm_tbb(C_.data(), A_.data(), B_.data(), n_, n_); }
  bool has_omp() const override { return true; }
  void run_omp(unsigned) override {
#pragma omp parallel
#pragma omp single
    mm_omp(C_.data(), A_.data(), B_.data(), n_, n_);
  }
  slawbench::outcome check() override { return slawbench::check_product(C_.data(), A_.data(), B_.data(), n_, ref_); }


 private:
  long n_;
  std::vector<double> A_, B_, C_, ref_;
};

SLAW_BENCHMARK(slawbench::benchmark{
    "matmul",
    "recursive matrix multiply C += A*B (doubles, 64x64 serial leaves), compute-bound fork-join",
    {{"n", "256"}},
    {{"n", "1024"}},
    {{"n", "2048"}},
    [](const slawbench::params& p) { return std::make_unique<matmul_instance>(p); },
    {{"n", "the matrices' order, a power of two in [64, 16384]"}}});

}  // namespace
