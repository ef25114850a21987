// spmv, as bench/kernels/spmv.cpp writes it (repeated sparse matrix-vector multiply over ROWS rows):
//   for it < iters: rec(0, ROWS)
//   rec(lo, hi): if hi - lo <= 256: a scratch buffer of (hi - lo) doubles (slaw::make_buffer, a
//                DFDeques scheduling point), the rows' dot products, freed
//                else finish { async rec(lo, mid); rec(mid, hi) }
// Per iteration a recursive-halving fork-join of ceil(ROWS/256)-ish leaves (30,000 rows: 128 leaves of
// 234 rows). Cost model: `row` ns per row, the same for every row (the kernel's rows hold 1-9 nonzeros,
// about 5; a leaf's 234 rows average them out); default 19.2 ns (Ts = 0.864 s for 30,000 rows and 1,500
// iterations on the 16-core VM; calibrate it from the serial time). Memory-bound on the machine; not here.
#include "sim/workloads.hpp"

namespace slaw::sim {

namespace {

class spmv_source final : public dag_source {
 public:
  spmv_source(std::uint64_t rows, std::uint64_t iters, std::uint64_t grain, double row_ns, double node_ns,
              std::uint32_t frame)
      : rows_(rows), iters_(iters), grain_(grain), row_ns_(row_ns), node_(from_ns(node_ns)), frame_(frame) {}

  std::string name() const override {
    return "spmv:" + std::to_string(rows_) + ",iters=" + std::to_string(iters_);
  }
  // The root: b = 0, a = iterations done. A range: b = 1, c = lo, a = hi.
  body root() const override { return body{0, 0, 0, 0}; }
  std::uint32_t root_bytes() const override { return frame_; }

  step next(body& t) override {
    step s;
    if (t.b == 0) {  // the iterations, each a call of rec(0, rows)
      if (t.a == iters_) return s;
      ++t.a;
      s.what = op::call;
      s.child = body{rows_, 1, 0, 0};
      s.child_bytes = frame_;
      return s;
    }
    const std::uint64_t lo = t.c, hi = t.a;
    if (hi - lo <= grain_) {
      const auto bytes = static_cast<std::int64_t>((hi - lo) * sizeof(double));
      switch (t.pc++) {
        case 0: s.what = op::alloc; s.bytes = bytes; return s;
        case 1:
          s.work = from_ns(row_ns_ * static_cast<double>(hi - lo));
          s.what = op::free;
          s.bytes = bytes;
          return s;
        default: return s;
      }
    }
    const std::uint64_t mid = lo + (hi - lo) / 2;
    switch (t.pc++) {
      case 0: s.work = node_; s.what = op::start_finish; break;
      case 1:
        s.what = op::spawn;
        s.child = body{mid, 1, static_cast<std::uint32_t>(lo), 0};
        s.child_bytes = frame_;
        break;
      case 2:
        s.what = op::call;
        s.child = body{hi, 1, static_cast<std::uint32_t>(mid), 0};
        s.child_bytes = frame_;
        break;
      case 3: s.what = op::end_finish; break;
      default: break;
    }
    return s;
  }

  std::uint64_t expected_tasks() const override { return 1 + iters_ * (2 * leaves(0, rows_) - 1); }
  std::string cost_model() const override {
    return std::to_string(row_ns_) + " ns per row; inner node " + std::to_string(to_ns(node_)) +
           " ns; a leaf of at most " + std::to_string(grain_) + " rows allocates 8 B per row; frame " +
           std::to_string(frame_) + " B";
  }

 private:
  std::uint64_t leaves(std::uint64_t lo, std::uint64_t hi) const {
    if (hi - lo <= grain_) return 1;
    const std::uint64_t mid = lo + (hi - lo) / 2;
    return leaves(lo, mid) + leaves(mid, hi);
  }

  std::uint64_t rows_, iters_, grain_;
  double row_ns_;
  time_ps node_;
  std::uint32_t frame_;
};

}  // namespace

std::unique_ptr<dag_source> make_spmv(spec_args& a) {
  auto rows = static_cast<std::uint64_t>(a.positional("ROWS", 1, std::int64_t{1} << 31));
  auto iters = static_cast<std::uint64_t>(a.integer("iters", 1, 1'000'000'000, 1000));
  auto grain = static_cast<std::uint64_t>(a.integer("grain", 1, std::int64_t{1} << 31, 256));
  double row = a.number("row", 0, 1e12, 19.2);
  double node = a.number("node", 0, 1e12, 1.15);
  auto frame = static_cast<std::uint32_t>(a.integer("frame", 0, 1 << 30, 104));
  return std::make_unique<spmv_source>(rows, iters, grain, row, node, frame);
}

}  // namespace slaw::sim
