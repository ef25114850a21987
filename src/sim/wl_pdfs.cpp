// PDFS: a spanning tree of a SIDE x SIDE torus by parallel depth-first search with escaping asyncs, as
// bench/kernels/pdfs.cpp and examples/pdfs.cpp write it:
//   root: finish { compute(0) }      compute(v): for each neighbour e of v: if label(e, v): async compute(e)
// Whoever labels a vertex first spawns its visit, so the tree (and the DAG) depends on the schedule:
// here the simulated schedule decides it, deterministically (a label happens when the simulated
// worker reaches that step). Every vertex is visited exactly once: SIDE^2 tasks plus the root.
// Cost model: the serial elision takes 30 ns per vertex at SIDE = 1000 (latest.md: Ts = 0.0301 s);
// a label attempt (the compare-and-swap) costs `label` = 7 ns, the rest of a visit `visit` = 2 ns.
#include <vector>

#include "sim/workloads.hpp"

namespace slaw::sim {

namespace {

class pdfs_source final : public dag_source {
 public:
  pdfs_source(std::uint32_t side, double label_ns, double visit_ns, std::uint32_t frame)
      : side_(side), label_(from_ns(label_ns)), visit_(from_ns(visit_ns)), frame_(frame) {
    reset();
  }

  std::string name() const override { return "pdfs:" + std::to_string(side_); }
  // The root: b = 1. A visit: a = vertex, c = next neighbour.
  body root() const override { return body{0, 1, 0, 0}; }
  std::uint32_t root_bytes() const override { return frame_; }
  void reset() override {
    labelled_.assign(static_cast<std::size_t>(side_) * side_, 0);
    labelled_[0] = 1;  // the root vertex is its own parent
  }

  step next(body& t) override {
    step s;
    if (t.b == 1) {  // the root
      switch (t.pc++) {
        case 0: s.what = op::start_finish; break;
        case 1: s.what = op::call; s.child = body{0, 0, 0, 0}; s.child_bytes = frame_; break;
        case 2: s.what = op::end_finish; break;
        default: break;
      }
      return s;
    }
    if (t.pc == 0) {
      t.pc = 1;
      s.work = visit_;
    }
    std::uint64_t nb[4];
    const int k = neighbours(t.a, nb);
    while (t.c < static_cast<std::uint32_t>(k)) {
      const std::uint64_t e = nb[t.c++];
      s.work += label_;
      if (!labelled_[e]) {
        labelled_[e] = 1;
        s.what = op::spawn;
        s.child = body{e, 0, 0, 0};
        s.child_bytes = frame_;
        return s;
      }
    }
    s.what = op::ret;
    return s;
  }

  std::uint64_t expected_tasks() const override { return static_cast<std::uint64_t>(side_) * side_ + 1; }
  std::string cost_model() const override {
    return "visit: " + std::to_string(to_ns(visit_)) + " ns + " + std::to_string(to_ns(label_)) +
           " ns per neighbour tried; frame " + std::to_string(frame_) + " B";
  }

 private:
  // The distinct neighbours (fewer when side <= 2), in the kernel's order: up, down, left, right.
  int neighbours(std::uint64_t v, std::uint64_t (&nb)[4]) const {
    const std::uint64_t side = side_, r = v / side, c = v % side;
    const std::uint64_t cand[4] = {(r + side - 1) % side * side + c, (r + 1) % side * side + c,
                                   r * side + (c + side - 1) % side, r * side + (c + 1) % side};
    int k = 0;
    for (std::uint64_t e : cand) {
      bool dup = false;
      for (int j = 0; j < k; ++j) dup |= nb[j] == e;
      if (!dup) nb[k++] = e;
    }
    return k;
  }

  std::uint32_t side_;
  time_ps label_, visit_;
  std::uint32_t frame_;
  std::vector<std::uint8_t> labelled_;
};

}  // namespace

std::unique_ptr<dag_source> make_pdfs(spec_args& a) {
  auto side = static_cast<std::uint32_t>(a.positional("SIDE", 1, 30000));
  double label = a.number("label", 0, 1e12, 7.0);
  double visit = a.number("visit", 0, 1e12, 2.0);
  auto frame = static_cast<std::uint32_t>(a.integer("frame", 0, 1 << 30, 184));
  return std::make_unique<pdfs_source>(side, label, visit, frame);
}

}  // namespace slaw::sim
