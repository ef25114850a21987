// integrate, as bench/kernels/integrate.cpp writes it (adaptive trapezoid quadrature of x^3 + x over
// [0, 10000], the Cilk/HClib benchmark):
//   integ(x1, x2, area): split at the midpoint; if |a1 + a2 - area| < eps: return a1 + a2
//                        else finish { async integ(x1, x0, a1); integ(x0, x2, a2) }
// The recursion is real: the simulator computes the same floating-point splits as the kernel, so the
// tree (unbalanced, deeper towards x = 10000) has the kernel's nodes (eps 5e-8: 97 M; 1e-2: 1.7 M).
// Cost model: every node costs `node` ns (its midpoint, f and the two trapezoids; default 2.4 ns:
// latest.md's Ts(5e-8) = 0.2334 s over 97 M nodes; calibrate it from the serial time).
#include <bit>
#include <cmath>
#include <cstdlib>

#include "sim/workloads.hpp"

namespace slaw::sim {

namespace {

inline double f(double x) { return (x * x + 1.0) * x; }

struct split {  // the kernel's split, bit for bit
  double x0, a1, a2;
  split(double x1, double x2) {
    const double y1 = f(x1), y2 = f(x2), half = (x2 - x1) / 2;
    x0 = x1 + half;
    const double y0 = f(x0);
    a1 = (y1 + y0) / 2 * half;
    a2 = (y0 + y2) / 2 * half;
  }
};

class integrate_source final : public dag_source {
 public:
  integrate_source(double eps, std::string text, double node_ns, std::uint32_t frame)
      : eps_(eps), text_(std::move(text)), node_(from_ns(node_ns)), frame_(frame) {}

  std::string name() const override { return "integrate:" + text_; }
  // a, b: the interval's ends, d: its trapezoid (the parent's a1 or a2), as double bits.
  body root() const override { return node(0.0, 10000.0, (f(0.0) + f(10000.0)) / 2 * 10000.0); }
  std::uint32_t root_bytes() const override { return frame_; }

  step next(body& t) override {
    step s;
    const double x1 = std::bit_cast<double>(t.a), x2 = std::bit_cast<double>(t.b);
    const split sp(x1, x2);
    switch (t.pc++) {
      case 0:
        s.work = node_;
        if (std::fabs(sp.a1 + sp.a2 - std::bit_cast<double>(t.d)) < eps_) return s;  // a leaf
        s.what = op::start_finish;
        break;
      case 1: s.what = op::spawn; s.child = node(x1, sp.x0, sp.a1); s.child_bytes = frame_; break;
      case 2: s.what = op::call; s.child = node(sp.x0, x2, sp.a2); s.child_bytes = frame_; break;
      case 3: s.what = op::end_finish; break;
      default: break;
    }
    return s;
  }

  std::string cost_model() const override {
    return std::to_string(to_ns(node_)) + " ns per node; frame " + std::to_string(frame_) + " B";
  }

 private:
  static body node(double x1, double x2, double area) {
    return body{std::bit_cast<std::uint64_t>(x1), std::bit_cast<std::uint64_t>(x2), 0, 0,
                std::bit_cast<std::uint64_t>(area)};
  }
  double eps_;
  std::string text_;
  time_ps node_;
  std::uint32_t frame_;
};

}  // namespace

std::unique_ptr<dag_source> make_integrate(spec_args& a) {
  char* end = nullptr;
  const double eps = std::strtod(a.value().c_str(), &end);
  if (a.value().empty() || *end != '\0' || !(eps >= 1e-10 && eps <= 1e6))
    throw std::invalid_argument("EPS='" + a.value() + "': expected a number in [1e-10, 1e6]");
  double node = a.number("node", 0, 1e12, 2.4);
  auto frame = static_cast<std::uint32_t>(a.integer("frame", 0, 1 << 30, 192));
  return std::make_unique<integrate_source>(eps, a.value(), node, frame);
}

}  // namespace slaw::sim
