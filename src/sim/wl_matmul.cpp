// matmul, as bench/kernels/matmul.cpp writes it (recursive, cache-oblivious C += A*B, 64 x 64 leaves):
//   mm(m): if m <= 64: leaf_mm (m^3 multiply-adds)
//          else for k < 2: finish { async mm(m/2) x 3; mm(m/2) }      (C's four quadrants, two phases)
// N is the matrices' order, a power of two >= 64: (N/64)^3 leaves, 8 children per inner node.
// Cost model: a leaf costs `leaf` ns (default 55,600 ns: latest.md's Ts(1024) = 0.2276 s over 4,096
// leaves; calibrate it from the serial time), an inner node's own strands nothing. The simulator has no
// caches or memory bandwidth: the leaves' time is the same at every worker count.
#include "sim/workloads.hpp"

namespace slaw::sim {

namespace {

class matmul_source final : public dag_source {
 public:
  matmul_source(std::uint64_t n, std::uint64_t leaf_order, double leaf_ns, std::uint32_t frame)
      : n_(n), leaf_order_(leaf_order), leaf_(from_ns(leaf_ns)), frame_(frame) {}

  std::string name() const override { return "matmul:" + std::to_string(n_); }
  // a = the block's order m; c = the phase k (0, 1) and pc the step within it.
  body root() const override { return body{n_, 0, 0, 0}; }
  std::uint32_t root_bytes() const override { return frame_; }

  step next(body& t) override {
    step s;
    if (t.a <= leaf_order_) {
      s.work = leaf_;
      return s;
    }
    if (t.c == 2) return s;  // both phases done
    switch (t.pc++) {
      case 0: s.what = op::start_finish; break;
      case 1: case 2: case 3:
        s.what = op::spawn;
        s.child = body{t.a / 2, 0, 0, 0};
        s.child_bytes = frame_;
        break;
      case 4:
        s.what = op::call;
        s.child = body{t.a / 2, 0, 0, 0};
        s.child_bytes = frame_;
        break;
      default:
        s.what = op::end_finish;
        t.pc = 0;
        ++t.c;
        break;
    }
    return s;
  }

  // 1 + 8 + ... + 8^L nodes, L = log2(N / leaf_order).
  std::uint64_t expected_tasks() const override {
    std::uint64_t total = 0, level = 1;
    for (std::uint64_t m = n_; m >= leaf_order_; m /= 2, level *= 8) total += level;
    return total;
  }
  std::string cost_model() const override {
    return "leaf (" + std::to_string(leaf_order_) + "^3 multiply-adds): " + std::to_string(to_ns(leaf_)) +
           " ns; inner nodes free; frame " + std::to_string(frame_) + " B";
  }

 private:
  std::uint64_t n_, leaf_order_;
  time_ps leaf_;
  std::uint32_t frame_;
};

}  // namespace

std::unique_ptr<dag_source> make_matmul(spec_args& a) {
  auto n = static_cast<std::uint64_t>(a.positional("N", 64, 16384));
  if (n & (n - 1)) throw std::invalid_argument("N='" + a.value() + "': expected a power of two in [64, 16384]");
  double leaf = a.number("leaf", 0, 1e15, 55600.0);
  auto frame = static_cast<std::uint32_t>(a.integer("frame", 0, 1 << 30, 192));
  return std::make_unique<matmul_source>(n, 64, leaf, frame);
}

}  // namespace slaw::sim
