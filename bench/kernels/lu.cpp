// lu: recursive blocked LU decomposition without pivoting (Cilk-5's lu.cilk), doubles, n a power of two.
// Stresses: fork-join with a critical path (lu -> solves -> schur -> lu), shrinking parallelism.
// Algorithm, on quadrants of nb x nb blocks of 64 x 64 (row-major, leading dimension n):
//   lu(M):            lu(M00); { lower_solve(M01, M00) || upper_solve(M10, M00) }; schur(M11, M10, M01); lu(M11)
//   lower_solve(M, L): solve L X = M in place (L unit lower): the two column halves of M in parallel,
//                      each: lower_solve(top, L00); schur(bottom, L10, top); lower_solve(bottom, L11)
//   upper_solve(M, U): solve X U = M in place: the two row halves in parallel, symmetric to lower_solve
//   schur(M, V, W):    M -= V W as two phases of four parallel quadrant updates
// and serial 64 x 64 block kernels (the same in every variant).
// Input: entries in [0, 1) from std::mt19937_64 with a fixed seed plus n on the diagonal (strictly
// diagonally dominant, so no pivoting is needed); reset() restores it. Oracle: ||L U - A||_F / ||A||_F
// < 1e-9 over all rows for n <= 512, over 64 sampled rows otherwise.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <omp.h>
#include <tbb/task_group.h>

#include "harness/benchmark.hpp"

namespace {

constexpr long bs = 64;

struct blk {
  double* p;
  long ld;
  double& operator()(long i, long j) const { return p[i * ld + j]; }
  // quadrant (r, c) of a block of nb x nb blocks
  blk q(int r, int c, long nb) const { return {p + r * (nb / 2) * bs * ld + c * (nb / 2) * bs, ld}; }
};

// ---- serial 64 x 64 kernels
void block_lu(blk M) {
  for (long k = 0; k < bs; ++k)
    for (long i = k + 1; i < bs; ++i) {
      double l = M(i, k) /= M(k, k);
      for (long j = k + 1; j < bs; ++j) M(i, j) -= l * M(k, j);
    }
}
void block_lower_solve(blk M, blk L) {  // M := L^-1 M, L unit lower triangular
  for (long i = 1; i < bs; ++i)
    for (long k = 0; k < i; ++k) {
      double l = L(i, k);
      for (long j = 0; j < bs; ++j) M(i, j) -= l * M(k, j);
    }
}
void block_upper_solve(blk M, blk U) {  // M := M U^-1, U upper triangular
  for (long i = 0; i < bs; ++i)
    for (long k = 0; k < bs; ++k) {
      double x = M(i, k) /= U(k, k);
      for (long j = k + 1; j < bs; ++j) M(i, j) -= x * U(k, j);
    }
}
void block_schur(blk M, blk V, blk W) {  // M -= V W
  for (long i = 0; i < bs; ++i)
    for (long k = 0; k < bs; ++k) {
      double v = V(i, k);
      for (long j = 0; j < bs; ++j) M(i, j) -= v * W(k, j);
    }
}

// ---- serial elision
void schur_serial(blk M, blk V, blk W, long nb) {
  if (nb == 1) return block_schur(M, V, W);
  for (int k = 0; k < 2; ++k)
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 2; ++c) schur_serial(M.q(r, c, nb), V.q(r, k, nb), W.q(k, c, nb), nb / 2);
}
void lower_solve_serial(blk M, blk L, long nb) {
  if (nb == 1) return block_lower_solve(M, L);
  for (int c = 0; c < 2; ++c) {
    lower_solve_serial(M.q(0, c, nb), L.q(0, 0, nb), nb / 2);
    schur_serial(M.q(1, c, nb), L.q(1, 0, nb), M.q(0, c, nb), nb / 2);
    lower_solve_serial(M.q(1, c, nb), L.q(1, 1, nb), nb / 2);
  }
}
void upper_solve_serial(blk M, blk U, long nb) {
  if (nb == 1) return block_upper_solve(M, U);
  for (int r = 0; r < 2; ++r) {
    upper_solve_serial(M.q(r, 0, nb), U.q(0, 0, nb), nb / 2);
    schur_serial(M.q(r, 1, nb), M.q(r, 0, nb), U.q(0, 1, nb), nb / 2);
    upper_solve_serial(M.q(r, 1, nb), U.q(1, 1, nb), nb / 2);
  }
}
void lu_serial(blk M, long nb) {
  if (nb == 1) return block_lu(M);
  lu_serial(M.q(0, 0, nb), nb / 2);
  lower_solve_serial(M.q(0, 1, nb), M.q(0, 0, nb), nb / 2);
  upper_solve_serial(M.q(1, 0, nb), M.q(0, 0, nb), nb / 2);
  schur_serial(M.q(1, 1, nb), M.q(1, 0, nb), M.q(0, 1, nb), nb / 2);
  lu_serial(M.q(1, 1, nb), nb / 2);
}

// ---- slaw
slaw::task<> schur_slaw(blk M, blk V, blk W, long nb) {
  if (nb == 1) {
    block_schur(M, V, W);
    co_return;
  }
  for (int k = 0; k < 2; ++k) {
    auto f = co_await slaw::start_finish();
    co_await slaw::async(schur_slaw, M.q(0, 0, nb), V.q(0, k, nb), W.q(k, 0, nb), nb / 2);
    co_await slaw::async(schur_slaw, M.q(0, 1, nb), V.q(0, k, nb), W.q(k, 1, nb), nb / 2);
    co_await slaw::async(schur_slaw, M.q(1, 0, nb), V.q(1, k, nb), W.q(k, 0, nb), nb / 2);
    co_await schur_slaw(M.q(1, 1, nb), V.q(1, k, nb), W.q(k, 1, nb), nb / 2);
    co_await slaw::end_finish(f);
  }
}
slaw::task<> lower_aux_slaw(blk top, blk bot, blk L, long hnb);
slaw::task<> lower_solve_slaw(blk M, blk L, long nb) {
  if (nb == 1) {
    block_lower_solve(M, L);
    co_return;
  }
  auto f = co_await slaw::start_finish();
  co_await slaw::async(lower_aux_slaw, M.q(0, 0, nb), M.q(1, 0, nb), L, nb);
  co_await lower_aux_slaw(M.q(0, 1, nb), M.q(1, 1, nb), L, nb);
  co_await slaw::end_finish(f);
}
slaw::task<> lower_aux_slaw(blk top, blk bot, blk L, long nb) {
  co_await lower_solve_slaw(top, L.q(0, 0, nb), nb / 2);
  co_await schur_slaw(bot, L.q(1, 0, nb), top, nb / 2);
  co_await lower_solve_slaw(bot, L.q(1, 1, nb), nb / 2);
}
slaw::task<> upper_aux_slaw(blk left, blk right, blk U, long nb);
slaw::task<> upper_solve_slaw(blk M, blk U, long nb) {
  if (nb == 1) {
    block_upper_solve(M, U);
    co_return;
  }
  auto f = co_await slaw::start_finish();
  co_await slaw::async(upper_aux_slaw, M.q(0, 0, nb), M.q(0, 1, nb), U, nb);
  co_await upper_aux_slaw(M.q(1, 0, nb), M.q(1, 1, nb), U, nb);
  co_await slaw::end_finish(f);
}
slaw::task<> upper_aux_slaw(blk left, blk right, blk U, long nb) {
  co_await upper_solve_slaw(left, U.q(0, 0, nb), nb / 2);
  co_await schur_slaw(right, left, U.q(0, 1, nb), nb / 2);
  co_await upper_solve_slaw(right, U.q(1, 1, nb), nb / 2);
}
slaw::task<> lu_slaw(blk M, long nb) {
  if (nb == 1) {
    block_lu(M);
    co_return;
  }
  co_await lu_slaw(M.q(0, 0, nb), nb / 2);
  auto f = co_await slaw::start_finish();
  co_await slaw::async(lower_solve_slaw, M.q(0, 1, nb), M.q(0, 0, nb), nb / 2);
  co_await upper_solve_slaw(M.q(1, 0, nb), M.q(0, 0, nb), nb / 2);
  co_await slaw::end_finish(f);
  co_await schur_slaw(M.q(1, 1, nb), M.q(1, 0, nb), M.q(0, 1, nb), nb / 2);
  co_await lu_slaw(M.q(1, 1, nb), nb / 2);
}

// ---- oneTBB
void schur_tbb(blk M, blk V, blk W, long nb) {
  if (nb == 1) return block_schur(M, V, W);
  tbb::task_group g;
  for (int k = 0; k < 2; ++k) {
    g.run([=] { schur_tbb(M.q(0, 0, nb), V.q(0, k, nb), W.q(k, 0, nb), nb / 2); });
    g.run([=] { schur_tbb(M.q(0, 1, nb), V.q(0, k, nb), W.q(k, 1, nb), nb / 2); });
    g.run([=] { schur_tbb(M.q(1, 0, nb), V.q(1, k, nb), W.q(k, 0, nb), nb / 2); });
    schur_tbb(M.q(1, 1, nb), V.q(1, k, nb), W.q(k, 1, nb), nb / 2);
    g.wait();
  }
}
void lower_solve_tbb(blk M, blk L, long nb) {
  if (nb == 1) return block_lower_solve(M, L);
  auto aux = [=](blk top, blk bot) {
    lower_solve_tbb(top, L.q(0, 0, nb), nb / 2);
    schur_tbb(bot, L.q(1, 0, nb), top, nb / 2);
    lower_solve_tbb(bot, L.q(1, 1, nb), nb / 2);
  };
  tbb::task_group g;
  g.run([=] { aux(M.q(0, 0, nb), M.q(1, 0, nb)); });
  aux(M.q(0, 1, nb), M.q(1, 1, nb));
  g.wait();
}
void upper_solve_tbb(blk M, blk U, long nb) {
  if (nb == 1) return block_upper_solve(M, U);
  auto aux = [=](blk left, blk right) {
    upper_solve_tbb(left, U.q(0, 0, nb), nb / 2);
    schur_tbb(right, left, U.q(0, 1, nb), nb / 2);
    upper_solve_tbb(right, U.q(1, 1, nb), nb / 2);
  };
  tbb::task_group g;
  g.run([=] { aux(M.q(0, 0, nb), M.q(0, 1, nb)); });
  aux(M.q(1, 0, nb), M.q(1, 1, nb));
  g.wait();
}
void lu_tbb(blk M, long nb) {
  if (nb == 1) return block_lu(M);
  lu_tbb(M.q(0, 0, nb), nb / 2);
  tbb::task_group g;
  g.run([=] { lower_solve_tbb(M.q(0, 1, nb), M.q(0, 0, nb), nb / 2); });
  upper_solve_tbb(M.q(1, 0, nb), M.q(0, 0, nb), nb / 2);
  g.wait();
  schur_tbb(M.q(1, 1, nb), M.q(1, 0, nb), M.q(0, 1, nb), nb / 2);
  lu_tbb(M.q(1, 1, nb), nb / 2);
}

// ---- OpenMP
void schur_omp(blk M, blk V, blk W, long nb) {
  if (nb == 1) return block_schur(M, V, W);
  for (int k = 0; k < 2; ++k) {
#pragma omp task firstprivate(M, V, W, nb, k)
    schur_omp(M.q(0, 0, nb), V.q(0, k, nb), W.q(k, 0, nb), nb / 2);
#pragma omp task firstprivate(M, V, W, nb, k)
    schur_omp(M.q(0, 1, nb), V.q(0, k, nb), W.q(k, 1, nb), nb / 2);
#pragma omp task firstprivate(M, V, W, nb, k)
    schur_omp(M.q(1, 0, nb), V.q(1, k, nb), W.q(k, 0, nb), nb / 2);
    schur_omp(M.q(1, 1, nb), V.q(1, k, nb), W.q(k, 1, nb), nb / 2);
#pragma omp taskwait
  }
}
void lower_solve_omp(blk M, blk L, long nb);
void upper_solve_omp(blk M, blk U, long nb);
void lower_aux_omp(blk top, blk bot, blk L, long nb) {
  lower_solve_omp(top, L.q(0, 0, nb), nb / 2);
  schur_omp(bot, L.q(1, 0, nb), top, nb / 2);
  lower_solve_omp(bot, L.q(1, 1, nb), nb / 2);
}
void lower_solve_omp(blk M, blk L, long nb) {
  if (nb == 1) return block_lower_solve(M, L);
#pragma omp task firstprivate(M, L, nb)
  lower_aux_omp(M.q(0, 0, nb), M.q(1, 0, nb), L, nb);
  lower_aux_omp(M.q(0, 1, nb), M.q(1, 1, nb), L, nb);
#pragma omp taskwait
}
void upper_aux_omp(blk left, blk right, blk U, long nb) {
  upper_solve_omp(left, U.q(0, 0, nb), nb / 2);
  schur_omp(right, left, U.q(0, 1, nb), nb / 2);
  upper_solve_omp(right, U.q(1, 1, nb), nb / 2);
}
void upper_solve_omp(blk M, blk U, long nb) {
  if (nb == 1) return block_upper_solve(M, U);
#pragma omp task firstprivate(M, U, nb)
  upper_aux_omp(M.q(0, 0, nb), M.q(0, 1, nb), U, nb);
  upper_aux_omp(M.q(1, 0, nb), M.q(1, 1, nb), U, nb);
#pragma omp taskwait
}
void lu_omp(blk M, long nb) {
  if (nb == 1) return block_lu(M);
  lu_omp(M.q(0, 0, nb), nb / 2);
#pragma omp task firstprivate(M, nb)
  lower_solve_omp(M.q(0, 1, nb), M.q(0, 0, nb), nb / 2);
  upper_solve_omp(M.q(1, 0, nb), M.q(0, 0, nb), nb / 2);
#pragma omp taskwait
  schur_omp(M.q(1, 1, nb), M.q(1, 0, nb), M.q(0, 1, nb), nb / 2);
  lu_omp(M.q(1, 1, nb), nb / 2);
}

class lu_instance : public slawbench::instance {
 public:
  explicit lu_instance(const slawbench::params& p) : n_(p.integer("n", bs, 16384)) {
    if (n_ & (n_ - 1)) throw slawbench::bench_error("n=" + std::to_string(n_) + ": expected a power of two >= 64");
    input_.resize(n_ * n_), M_.resize(n_ * n_);
    std::mt19937_64 rng(2718);
    for (long i = 0; i < n_; ++i)
      for (long j = 0; j < n_; ++j)
        input_[i * n_ + j] = static_cast<double>(rng() >> 11) * 0x1p-53 + (i == j ? static_cast<double>(n_) : 0.0);
  }
  void reset() override { std::memcpy(M_.data(), input_.data(), n_ * n_ * sizeof(double)); }
  void run_serial() override { lu_serial(whole(), n_ / bs); }
  void run_slaw(slaw::runtime& rt) override { rt.run(lu_slaw(whole(), n_ / bs)); }
  bool has_tbb() const override { return true; }
  void run_tbb(unsigned) override { lu_tbb(whole(), n_ / bs); }
  bool has_omp() const override { return true; }
  void run_omp(unsigned) override {
#pragma omp parallel
#pragma omp single
    lu_omp(whole(), n_ / bs);
  }
  slawbench::outcome check() override {
    long step = n_ <= 512 ? 1 : n_ / 64;
    double num = 0, den = 0;
    std::vector<double> row(n_);
    for (long i = (n_ / 3) % step; i < n_; i += step) {  // row i of L U: sum over k < i of L(i,k) U(k,:), plus U(i,:)
      std::fill(row.begin(), row.end(), 0.0);
      for (long k = 0; k < i; ++k) {
        double l = M_[i * n_ + k];
        for (long j = k; j < n_; ++j) row[j] += l * M_[k * n_ + j];
      }
      for (long j = i; j < n_; ++j) row[j] += M_[i * n_ + j];
      for (long j = 0; j < n_; ++j) {
        double a = input_[i * n_ + j], d = row[j] - a;
        num += d * d, den += a * a;
      }
    }
    double res = std::sqrt(num / den);
    bool ok = res < 1e-9;  // false for NaN too
    char msg[128];
    std::snprintf(msg, sizeof msg, "||LU - A||/||A|| = %.3g over %s rows (n=%ld)", res, step == 1 ? "all" : "64 sampled", n_);
    return {ok, msg};
  }

 private:
  blk whole() { return {M_.data(), n_}; }
  long n_;
  std::vector<double> input_, M_;
};

SLAW_BENCHMARK(slawbench::benchmark{
    "lu",
    "recursive blocked LU without pivoting (64x64 blocks), fork-join with a long critical path",
    {{"n", "256"}},
    {{"n", "1024"}},
    {{"n", "2048"}},
    [](const slawbench::params& p) { return std::make_unique<lu_instance>(p); },
    {{"n", "the matrix's order, a power of two in [64, 16384] (64 x 64 blocks)"}}});

}  // namespace
