// skynet, as bench/kernels/skynet.cpp writes it: node(size): if size == 1 return num; finish { for i < 10:
// async node(size / 10) } and sum the 10 slots.
// Cost model: the serial elision takes 1.44 ns per call (latest.md: Ts = 0.0016 s for 10^6 leaves,
// 1,111,111 calls): a leaf costs that, an inner node that plus the sum of its 10 slots (3 ns).
#include "sim/workloads.hpp"

namespace slaw::sim {

namespace {

class skynet_source final : public dag_source {
 public:
  skynet_source(std::uint64_t leaves, double leaf_ns, double node_ns, std::uint32_t frame)
      : leaves_(leaves), leaf_(from_ns(leaf_ns)), node_(from_ns(node_ns)), frame_(frame) {}

  std::string name() const override { return "skynet:" + std::to_string(leaves_); }
  body root() const override { return body{leaves_, 0, 0, 0}; }  // a = size
  std::uint32_t root_bytes() const override { return frame_; }

  step next(body& t) override {
    step s;
    if (t.a == 1) {
      s.work = leaf_;
      return s;
    }
    if (t.pc == 0) {
      t.pc = 1;
      s.what = op::start_finish;
      return s;
    }
    if (t.pc == 1) {
      if (t.c < 10) {
        ++t.c;
        s.what = op::spawn;
        s.child = body{t.a / 10, 0, 0, 0};
        s.child_bytes = frame_;
        return s;
      }
      t.pc = 2;
      s.what = op::end_finish;
      return s;
    }
    s.work = node_;
    return s;
  }

  std::uint64_t expected_tasks() const override { return (10 * leaves_ - 1) / 9; }
  std::string cost_model() const override {
    return "leaf: " + std::to_string(to_ns(leaf_)) + " ns; inner node: " + std::to_string(to_ns(node_)) + " ns; frame " +
           std::to_string(frame_) + " B";
  }

 private:
  std::uint64_t leaves_;
  time_ps leaf_, node_;
  std::uint32_t frame_;
};

}  // namespace

std::unique_ptr<dag_source> make_skynet(spec_args& a) {
  std::int64_t n = a.positional("N", 1, 10'000'000'000LL);
  std::int64_t p = 1;
  while (p < n) p *= 10;
  if (p != n) throw std::invalid_argument("N='" + a.value() + "': expected a power of 10");
  double leaf = a.number("leaf", 0, 1e12, 1.44);
  double node = a.number("node", 0, 1e12, 4.44);
  auto frame = static_cast<std::uint32_t>(a.integer("frame", 0, 1 << 30, 320));
  return std::make_unique<skynet_source>(static_cast<std::uint64_t>(n), leaf, node, frame);
}

}  // namespace slaw::sim
