// fj and fj-rec, as bench/kernels/fj.cpp writes them (after the Java Grande Forum ForkJoin):
//   fj:      for r < reps: finish { for i < N: async task(i) }
//   fj-rec:  for r < reps: rec(0, N);  rec(lo, hi): if hi - lo == 1: task(lo)
//                                         else finish { async rec(lo, mid); rec(mid, hi) }
// and spawncost, as bench/kernels/spawncost.cpp (SLAW Table 5.4): the flat loop with the parent running
// one of the N tasks itself:  for r < reps: finish { for 1 <= i < N: async task(i); task(0) }
// Cost model: a task is a noinline call incrementing a slot, 1.7 ns (t0 of experiment A3,
// bench/results/experiments/summary.md); the loop and an inner node of fj-rec cost 1.15 ns (a call
// of the serial recursion, as fib's). `gap` (fj, spawncost; default 0) is the parent's own work before
// each spawn: A-Deque's constant-parallelism program spawns its N long tasks with "a small delay".
#include "sim/workloads.hpp"

namespace slaw::sim {

namespace {

class fj_source final : public dag_source {
 public:
  fj_source(bool rec, bool own, std::uint64_t n, std::uint64_t reps, double task_ns, double node_ns, double gap_ns,
            std::uint32_t frame)
      : rec_(rec),
        own_(own),
        n_(n),
        reps_(reps),
        task_(from_ns(task_ns)),
        node_(from_ns(node_ns)),
        gap_(from_ns(gap_ns)),
        frame_(frame) {}

  std::string name() const override {
    return std::string(rec_ ? "fj-rec:" : own_ ? "spawncost:" : "fj:") + std::to_string(n_) +
           (reps_ != 1 ? ",reps=" + std::to_string(reps_) : "");
  }
  // The root: a = repetitions left, b = kind (0 root, 1 task, 2 rec node: c = lo, a = hi).
  body root() const override { return body{reps_, 0, 0, 0}; }
  std::uint32_t root_bytes() const override { return frame_; }

  step next(body& t) override {
    step s;
    if (t.b == 1) {  // a task
      s.work = task_;
      return s;
    }
    if (t.b == 2) return rec_node(t);
    // The root.
    if (rec_) {
      if (t.a == 0) return s;
      --t.a;
      s.what = op::call;
      s.child = body{n_, 2, 0, 0};
      s.child_bytes = frame_;
      return s;
    }
    switch (t.pc) {
      case 0:  // a repetition starts
        if (t.a == 0) return s;
        t.pc = 1;
        t.c = 0;
        s.what = op::start_finish;
        return s;
      case 1:
        if (t.c < n_ - (own_ ? 1 : 0)) {
          ++t.c;
          s.work = gap_;
          s.what = op::spawn;
          s.child = body{0, 1, 0, 0};
          s.child_bytes = frame_;
          return s;
        }
        t.pc = 0;
        --t.a;
        if (own_) s.work = task_;  // the parent's own task(0)
        s.what = op::end_finish;
        return s;
    }
    return s;
  }

  std::uint64_t expected_tasks() const override {
    return 1 + reps_ * (rec_ ? 2 * n_ - 1 : own_ ? n_ - 1 : n_);
  }

  std::string cost_model() const override {
    return "task: " + std::to_string(to_ns(task_)) + " ns" +
           (rec_ ? "; inner node: " + std::to_string(to_ns(node_)) + " ns" : "") +
           (gap_ ? "; before each spawn: " + std::to_string(to_ns(gap_)) + " ns" : "") + "; frame " +
           std::to_string(frame_) + " B";
  }

 private:
  // rec(lo = c, hi = a)
  step rec_node(body& t) {
    step s;
    const std::uint64_t lo = t.c, hi = t.a;
    if (hi - lo == 1) {
      s.work = task_;
      return s;
    }
    const std::uint64_t mid = lo + (hi - lo) / 2;
    switch (t.pc++) {
      case 0: s.work = node_; s.what = op::start_finish; break;
      case 1:
        s.what = op::spawn;
        s.child = body{mid, 2, static_cast<std::uint32_t>(lo), 0};
        s.child_bytes = frame_;
        break;
      case 2:
        s.what = op::call;
        s.child = body{hi, 2, static_cast<std::uint32_t>(mid), 0};
        s.child_bytes = frame_;
        break;
      case 3: s.what = op::end_finish; break;
      default: break;
    }
    return s;
  }

  bool rec_, own_;
  std::uint64_t n_, reps_;
  time_ps task_, node_, gap_;
  std::uint32_t frame_;
};

std::unique_ptr<dag_source> make(spec_args& a, bool rec, bool own = false) {
  auto n = static_cast<std::uint64_t>(a.positional("N", 1, rec ? (std::int64_t{1} << 31) : (std::int64_t{1} << 40)));
  auto reps = static_cast<std::uint64_t>(a.integer("reps", 1, 1'000'000'000, 1));
  double task = a.number("task", 0, 1e12, 1.7);
  double node = rec ? a.number("node", 0, 1e12, 1.15) : 0.0;
  double gap = rec ? 0.0 : a.number("gap", 0, 1e12, 0.0);
  auto frame = static_cast<std::uint32_t>(a.integer("frame", 0, 1 << 30, 104));
  return std::make_unique<fj_source>(rec, own, n, reps, task, node, gap, frame);
}

}  // namespace

std::unique_ptr<dag_source> make_fj(spec_args& a) { return make(a, false); }
std::unique_ptr<dag_source> make_fj_rec(spec_args& a) { return make(a, true); }
std::unique_ptr<dag_source> make_spawncost(spec_args& a) { return make(a, false, true); }

}  // namespace slaw::sim
