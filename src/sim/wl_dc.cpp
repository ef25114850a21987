// DFDeques' synthetic benchmark (Narlikar, SPAA 1999, §6): a binary divide-and-conquer whose work and
// memory per node decrease geometrically down the recursion, each drawn uniformly around its level's
// mean. A node at level l (the root at 0, leaves at DEPTH):
//   node(l): buf = make_buffer(m_l); work w_l / 2;
//            if l < DEPTH: finish { async node(l+1); node(l+1) }
//            work w_l / 2; free buf
// m_l = mem * mratio^l and w_l = work * wratio^l, each times a factor uniform in [1 - jitter, 1 + jitter]
// drawn per node from a hash of (seed, node number, level): the same DAG in every run. The buffer
// waits for quota under DFDeques(K) (slaw::make_buffer), so a processor allocates at most K between
// steals; the memory is freed at the node's end (Narlikar leaves the point open; docs/simulation.md).
// S1, the serial depth-first run's peak, is the largest sum of m_l along a root-to-leaf path (the
// simulator measures it: the 1-worker work-first run).
#include <algorithm>
#include <cmath>

#include "sim/workloads.hpp"

namespace slaw::sim {

namespace {

class dc_source final : public dag_source {
 public:
  dc_source(int depth, double work, double wratio, double mem, double mratio, double jitter, std::uint64_t seed,
            std::uint32_t frame)
      : depth_(depth), work_(work), wratio_(wratio), mem_(mem), mratio_(mratio), jitter_(jitter), seed_(seed), frame_(frame) {}

  std::string name() const override { return "dc:" + std::to_string(depth_); }
  // a = node number (root 1, children 2i and 2i + 1), b = level.
  body root() const override { return body{1, 0, 0, 0}; }
  std::uint32_t root_bytes() const override { return frame_; }

  step next(body& t) override {
    step s;
    const bool leaf = static_cast<int>(t.b) == depth_;
    switch (t.pc++) {
      case 0:
        s.what = op::alloc;
        s.bytes = memory(t.a, t.b);
        return s;
      case 1:
        if (leaf) {
          s.work = work(t.a, t.b);
          s.what = op::free;
          s.bytes = memory(t.a, t.b);
          t.pc = 6;
          return s;
        }
        s.work = work(t.a, t.b) / 2;
        s.what = op::start_finish;
        return s;
      case 2:
        s.what = op::spawn;
        s.child = body{2 * t.a, t.b + 1, 0, 0};
        s.child_bytes = frame_;
        return s;
      case 3:
        s.what = op::call;
        s.child = body{2 * t.a + 1, t.b + 1, 0, 0};
        s.child_bytes = frame_;
        return s;
      case 4:
        s.what = op::end_finish;
        return s;
      case 5:
        s.work = work(t.a, t.b) - work(t.a, t.b) / 2;
        s.what = op::free;
        s.bytes = memory(t.a, t.b);
        return s;
      default:
        return s;
    }
  }

  std::uint64_t expected_tasks() const override { return (std::uint64_t{2} << depth_) - 1; }

  std::string cost_model() const override {
    return "level l: work " + std::to_string(work_) + " ns * " + std::to_string(wratio_) + "^l, buffer " +
           std::to_string(mem_) + " B * " + std::to_string(mratio_) + "^l, each times U[" + std::to_string(1 - jitter_) +
           ", " + std::to_string(1 + jitter_) + "]; frame " + std::to_string(frame_) + " B";
  }

 private:
  double draw(std::uint64_t id, std::uint64_t level, std::uint64_t which) const {
    const double u = unit_interval(mix64(seed_ ^ mix64(id * 4 + which) ^ (level << 56)));
    return 1.0 + jitter_ * (2.0 * u - 1.0);
  }
  std::int64_t memory(std::uint64_t id, std::uint64_t level) const {
    return std::max<std::int64_t>(1, std::llround(mem_ * std::pow(mratio_, static_cast<double>(level)) * draw(id, level, 1)));
  }
  time_ps work(std::uint64_t id, std::uint64_t level) const {
    return from_ns(work_ * std::pow(wratio_, static_cast<double>(level)) * draw(id, level, 2));
  }

  int depth_;
  double work_, wratio_, mem_, mratio_, jitter_;
  std::uint64_t seed_;
  std::uint32_t frame_;
};

}  // namespace

std::unique_ptr<dag_source> make_dc(spec_args& a) {
  int depth = static_cast<int>(a.positional("DEPTH", 0, 40));
  double work = a.number("work", 0, 1e15, 1e6);
  double wratio = a.number("wratio", 0, 1, 0.5);
  double mem = a.number("mem", 1, 1e15, 65536);
  double mratio = a.number("mratio", 0, 1, 0.5);
  double jitter = a.number("jitter", 0, 1, 0.5);
  auto seed = static_cast<std::uint64_t>(a.integer("seed", 0, std::int64_t{1} << 62, 1));
  auto frame = static_cast<std::uint32_t>(a.integer("frame", 0, 1 << 30, 320));
  return std::make_unique<dc_source>(depth, work, wratio, mem, mratio, jitter, seed, frame);
}

}  // namespace slaw::sim
