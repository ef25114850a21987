// fib(n) with no cut-off, as bench/kernels/fib.cpp (form=call) and examples/fib.cpp write it:
//   fib(n): if n < 2 return n; finish { async fib(n-1); fib(n-2) }; return a + b
// Cost model: the serial elision of this recursion takes 1.15 ns per call on this machine
// (bench/results/experiments/summary.md A1: Ts(fib 35) = 0.0343 s over 29,860,703 calls), split
// evenly before the finish and after it for an inner call (`node`), all of it for a leaf (`leaf`).
#include "sim/workloads.hpp"

namespace slaw::sim {

namespace {

class fib_source final : public dag_source {
 public:
  fib_source(int n, double node_ns, double leaf_ns, std::uint32_t frame)
      : n_(n), half_(from_ns(node_ns / 2)), rest_(from_ns(node_ns) - from_ns(node_ns / 2)), leaf_(from_ns(leaf_ns)),
        frame_(frame) {}

  std::string name() const override { return "fib:" + std::to_string(n_); }
  body root() const override { return body{static_cast<std::uint64_t>(n_), 0, 0, 0}; }
  std::uint32_t root_bytes() const override { return frame_; }

  step next(body& t) override {
    const std::uint64_t n = t.a;
    step s;
    if (n < 2) {
      s.work = leaf_;
      s.what = op::ret;
      return s;
    }
    switch (t.pc++) {
      case 0: s.work = half_; s.what = op::start_finish; break;
      case 1: s.what = op::spawn; s.child.a = n - 1; s.child_bytes = frame_; break;
      case 2: s.what = op::call; s.child.a = n - 2; s.child_bytes = frame_; break;
      case 3: s.what = op::end_finish; break;
      default: s.work = rest_; s.what = op::ret; break;
    }
    return s;
  }

  // 2 F(n+1) - 1 calls.
  std::uint64_t expected_tasks() const override {
    std::uint64_t a = 0, b = 1;  // F(0), F(1)
    for (int i = 0; i < n_ + 1; ++i) {
      std::uint64_t t = a + b;
      a = b;
      b = t;
    }
    return 2 * a - 1;
  }

  std::string cost_model() const override {
    return "inner call: " + std::to_string(to_ns(half_ + rest_)) + " ns (half before the finish, half after); leaf: " +
           std::to_string(to_ns(leaf_)) + " ns; frame " + std::to_string(frame_) + " B";
  }

 private:
  int n_;
  time_ps half_, rest_, leaf_;
  std::uint32_t frame_;
};

}  // namespace

std::unique_ptr<dag_source> make_fib(spec_args& a) {
  int n = static_cast<int>(a.positional("N", 0, 60));
  double node = a.number("node", 0, 1e12, 1.15);
  double leaf = a.number("leaf", 0, 1e12, 1.15);
  auto frame = static_cast<std::uint32_t>(a.integer("frame", 0, 1 << 30, 320));
  return std::make_unique<fib_source>(n, node, leaf, frame);
}

}  // namespace slaw::sim
