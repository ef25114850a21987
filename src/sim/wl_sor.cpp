// SOR-like flat loops, as bench/kernels/sor.cpp writes them (Java Grande Forum SOR, red-black rows):
//   for it < iterations: for parity in (odd, even): finish { for b < blocks: async sweep(b, parity) }
// Cost model: a sweep updates half of its block's rows, (n-2)^2 / 2 / blocks cells, at 2.72 ns per
// cell (latest.md: Ts = 0.3267 s for n = 2000, 30 iterations, i.e. 1.2e8 cell updates). The
// simulator does not model memory bandwidth: SOR is memory-bound and scales worse than predicted.
#include "sim/workloads.hpp"

namespace slaw::sim {

namespace {

class sor_source final : public dag_source {
 public:
  sor_source(std::uint64_t n, std::uint64_t iterations, std::uint64_t blocks, double cell_ns, std::uint32_t frame)
      : n_(n), iterations_(iterations), blocks_(blocks), cell_ns_(cell_ns), frame_(frame) {}

  std::string name() const override {
    return "sor:" + std::to_string(n_) + ",iterations=" + std::to_string(iterations_) + ",blocks=" + std::to_string(blocks_);
  }
  // The root: b = 0, a = half-steps done, c = blocks spawned in this one. A sweep: b = 1, a = block.
  body root() const override { return body{0, 0, 0, 0}; }
  std::uint32_t root_bytes() const override { return frame_; }

  step next(body& t) override {
    step s;
    if (t.b == 1) {
      s.work = sweep_cost(t.a);
      return s;
    }
    if (t.pc == 0) {
      if (t.a == 2 * iterations_) return s;
      t.pc = 1;
      t.c = 0;
      s.what = op::start_finish;
      return s;
    }
    if (t.c < blocks_) {
      s.what = op::spawn;
      s.child = body{t.c++, 1, 0, 0};
      s.child_bytes = frame_;
      return s;
    }
    t.pc = 0;
    ++t.a;
    s.what = op::end_finish;
    return s;
  }

  std::uint64_t expected_tasks() const override { return 1 + 2 * iterations_ * blocks_; }
  std::string cost_model() const override {
    return std::to_string(cell_ns_) + " ns per cell, a sweep of block b updates half of its rows; frame " +
           std::to_string(frame_) + " B";
  }

 private:
  time_ps sweep_cost(std::uint64_t b) const {
    const std::uint64_t rows = n_ - 2, lo = 1 + b * rows / blocks_, hi = 1 + (b + 1) * rows / blocks_;
    return from_ns(cell_ns_ * static_cast<double>((hi - lo) * (n_ - 2)) / 2.0);
  }

  std::uint64_t n_, iterations_, blocks_;
  double cell_ns_;
  std::uint32_t frame_;
};

}  // namespace

std::unique_ptr<dag_source> make_sor(spec_args& a) {
  auto n = static_cast<std::uint64_t>(a.positional("N", 3, 1'000'000));
  auto it = static_cast<std::uint64_t>(a.integer("iterations", 1, 1'000'000'000, 30));
  auto blocks = static_cast<std::uint64_t>(a.integer("blocks", 1, 1 << 30, 64));
  if (blocks > n - 2) throw std::invalid_argument("blocks=" + std::to_string(blocks) + ": expected at most N - 2 = " + std::to_string(n - 2));
  double cell = a.number("cell", 0, 1e9, 2.72);
  auto frame = static_cast<std::uint32_t>(a.integer("frame", 0, 1 << 30, 104));
  return std::make_unique<sor_source>(n, it, blocks, cell, frame);
}

}  // namespace slaw::sim
