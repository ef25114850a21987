// integrate: adaptive trapezoid quadrature of f(x) = x^3 + x over [0, 10000] (the Cilk/HClib
// "integrate" benchmark). A node compares the trapezoid of its interval with the sum of the trapezoids
// of its two halves; if they differ by less than eps it returns that sum, else it recurses into both
// halves: finish { async left; right } (a finish per node, no cut-off), and returns left + right.
// Stresses fine-grained, irregular (unbalanced: deeper towards x = 10000) binary recursion with
// floating-point results returned through slots.
// Inputs: eps only (interval and f as in the original benchmark). Nodes (= 2*leaves - 1) at
// eps = 1e-2 / 1e-6 / 1e-7 / 5e-8 / 1e-9: 1.7M / 31M / 67M / 97M / 350M; serial elision on the
// 2-core VM: about 0.006 / 0.1 / 0.25 / 0.35 / 3.2 s. Sizes: test 1e-2 (quick, for the oracle test),
// default 5e-8 (not 1e-6, so that the serial run lasts ~0.3 s), large 1e-9.
// Oracle: the result equals the serial reference (computed once, untimed, in check(); every variant
// adds the halves in the same order, so it matches bitwise unless the compiler contracts differently,
// hence a 1e-12 relative margin), and |result - 10000^4/4 - 10000^2/2| <= leaves*eps/3 + rounding
// (for a cubic the accepted two-panel sum's error is exactly |difference|/3; rounding is bounded by
// (depth + 4) ulp-units of the result).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include <omp.h>
#include <tbb/task_group.h>

#include "harness/benchmark.hpp"

namespace {

inline double f(double x) { return (x * x + 1.0) * x; }

constexpr double lo_x = 0.0, hi_x = 10000.0;
constexpr double analytic = hi_x * hi_x * hi_x * hi_x / 4 + hi_x * hi_x / 2;  // 2.50000005e15

// One node: the midpoint and the two half-interval trapezoids; true if they are accepted.
struct split {
  double x0, y0, a1, a2;
  split(double x1, double y1, double x2, double y2) {
    double half = (x2 - x1) / 2;
    x0 = x1 + half;
    y0 = f(x0);
    a1 = (y1 + y0) / 2 * half;
    a2 = (y0 + y2) / 2 * half;
  }
  bool done(double area, double eps) const { return std::fabs(a1 + a2 - area) < eps; }
};

double integ_serial(double x1, double y1, double x2, double y2, double area, double eps) {
  split s(x1, y1, x2, y2);
  if (s.done(area, eps)) return s.a1 + s.a2;
  double l = integ_serial(x1, y1, s.x0, s.y0, s.a1, eps);
  double r = integ_serial(s.x0, s.y0, x2, y2, s.a2, eps);
  return l + r;
}

slaw::task<double> integ_slaw(double x1, double y1, double x2, double y2, double area, double eps) {
  split s(x1, y1, x2, y2);
  if (s.done(area, eps)) co_return s.a1 + s.a2;
  double l, r;
  auto fs = co_await slaw::start_finish();
  co_await slaw::async(&l, integ_slaw, x1, y1, s.x0, s.y0, s.a1, eps);
  r = co_await integ_slaw(s.x0, s.y0, x2, y2, s.a2, eps);
  co_await slaw::end_finish(fs);
  co_return l + r;
}

double integ_tbb(double x1, double y1, double x2, double y2, double area, double eps) {
  split s(x1, y1, x2, y2);
  if (s.done(area, eps)) return s.a1 + s.a2;
  double l, r;
  tbb::task_group g;
  g.run([&] { l = integ_tbb(x1, y1, s.x0, s.y0, s.a1, eps); });
  r = integ_tbb(s.x0, s.y0, x2, y2, s.a2, eps);
  g.wait();
  return l + r;
}

double integ_omp(double x1, double y1, double x2, double y2, double area, double eps) {
  split s(x1, y1, x2, y2);
  if (s.done(area, eps)) return s.a1 + s.a2;
  double l, r;
#pragma omp task shared(l) firstprivate(x1, y1, s, eps)
  l = integ_omp(x1, y1, s.x0, s.y0, s.a1, eps);
  r = integ_omp(s.x0, s.y0, x2, y2, s.a2, eps);
#pragma omp taskwait
  return l + r;
}

// The reference: the serial recursion, also counting accepted leaves and the maximum depth.
struct reference {
  double value;
  std::int64_t leaves = 0;
  int depth = 0;
};
double integ_ref(double x1, double y1, double x2, double y2, double area, double eps, int d, reference& ref) {
  split s(x1, y1, x2, y2);
  if (d > ref.depth) ref.depth = d;
  if (s.done(area, eps)) return ++ref.leaves, s.a1 + s.a2;
  double l = integ_ref(x1, y1, s.x0, s.y0, s.a1, eps, d + 1, ref);
  double r = integ_ref(s.x0, s.y0, x2, y2, s.a2, eps, d + 1, ref);
  return l + r;
}

class integrate_instance : public slawbench::instance {
 public:
  explicit integrate_instance(const slawbench::params& p) : eps_(p.real("eps", 0, 1e6)) {
    if (!(eps_ >= 1e-10))  // smaller eps: billions of nodes; 0 would never stop
      throw slawbench::bench_error("eps=" + p.text("eps") + ": expected a number in [1e-10, 1e6]");
  }
  void reset() override { result_ = NAN; }
  void run_serial() override { result_ = integ_serial(lo_x, f(lo_x), hi_x, f(hi_x), whole(), eps_); }
  void run_slaw(slaw::runtime& rt) override {
    result_ = rt.run(integ_slaw(lo_x, f(lo_x), hi_x, f(hi_x), whole(), eps_));
  }
  bool has_tbb() const override { return true; }
  void run_tbb(unsigned) override { result_ = integ_tbb(lo_x, f(lo_x), hi_x, f(hi_x), whole(), eps_); }
  bool has_omp() const override { return true; }
  void run_omp(unsigned) override {
    double r = NAN;
    const double eps = eps_, area = whole();
#pragma omp parallel
#pragma omp single
    r = integ_omp(lo_x, f(lo_x), hi_x, f(hi_x), area, eps);
    result_ = r;
  }
  slawbench::outcome check() override {
    if (!ref_) {
      ref_.emplace();
      ref_->value = integ_ref(lo_x, f(lo_x), hi_x, f(hi_x), whole(), eps_, 0, *ref_);
    }
    const double ulp = std::ldexp(1.0, std::ilogb(analytic) - 52);
    const double tol = static_cast<double>(ref_->leaves) * eps_ / 3 + (ref_->depth + 4) * ulp;
    const bool same = result_ == ref_->value || std::fabs(result_ - ref_->value) <= 1e-12 * std::fabs(ref_->value);
    const bool close = std::fabs(result_ - analytic) <= tol;
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "integral = %.17g (%s the serial reference %.17g), |error| = %.3g vs tolerance %.3g "
                  "(%lld leaves, depth %d, eps %g)",
                  result_, result_ == ref_->value ? "bitwise equal to" : same ? "within 1e-12 of" : "DIFFERS from",
                  ref_->value, std::fabs(result_ - analytic), tol, static_cast<long long>(ref_->leaves),
                  ref_->depth, eps_);
    return {same && close, buf};
  }

 private:
  static double whole() { return (f(lo_x) + f(hi_x)) / 2 * (hi_x - lo_x); }
  double eps_;
  double result_ = NAN;
  std::optional<reference> ref_;
};

SLAW_BENCHMARK(slawbench::benchmark{
    "integrate",
    "adaptive quadrature: irregular fine-grained binary recursion, a finish per node, double results",
    {{"eps", "1e-2"}},
    {{"eps", "5e-8"}},
    {{"eps", "1e-9"}},
    [](const slawbench::params& p) { return std::make_unique<integrate_instance>(p); },
    {{"eps", "the tolerance between a node's trapezoid and its halves', in [1e-10, 1e6]; smaller means more "
             "nodes (1e-2: 1.7M, 5e-8: 97M, 1e-9: 350M)"}}});

}  // namespace
