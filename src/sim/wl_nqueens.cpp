// N-queens as bench/kernels/nqueens.cpp writes it (BOTS nqueens, manual cut-off):
//   nq(j, board, depth): if j == n: return 1
//     finish { for i < n: if depth < cutoff: async child(j, board, i, depth)
//                         else: board[j] = i; if ok(j + 1): serial search below }
//   child(j, board, i, depth): copy the board, place column i in row j; if ok(j + 1): nq(j + 1, copy, depth + 1)
// The search is real: the simulator runs BOTS's ok() on the boards (4 bits per row in a 64-bit word)
// and counts its pair comparisons; a node below the cut-off costs the comparisons of its whole serial
// subtree, computed once per node and remembered across runs.
// Cost model: 0.7157 ns per pair comparison of ok() (latest.md: Ts(n = 13) = 1.4373 s for the
// 2,008,366,167 comparisons of the serial search), nothing else.
#include <unordered_map>

#include "sim/workloads.hpp"

namespace slaw::sim {

namespace {

int col(std::uint64_t board, int row) { return static_cast<int>((board >> (4 * row)) & 15); }
std::uint64_t place(std::uint64_t board, int row, int c) {
  return (board & ~(std::uint64_t{15} << (4 * row))) | (static_cast<std::uint64_t>(c) << (4 * row));
}

// BOTS ok(m, a): no two of the first m queens attack each other. Adds its pair comparisons to `comps`.
bool ok(int m, std::uint64_t a, std::uint64_t& comps) {
  for (int i = 0; i < m; i++) {
    int p = col(a, i);
    for (int j = i + 1; j < m; j++) {
      ++comps;
      int q = col(a, j);
      if (q == p || q == p - (j - i) || q == p + (j - i)) return false;
    }
  }
  return true;
}

class nqueens_source final : public dag_source {
 public:
  nqueens_source(int n, int cutoff, double check_ns, std::uint32_t frame)
      : n_(n), cut_(cutoff), check_ns_(check_ns), frame_(frame) {}

  std::string name() const override { return "nqueens:" + std::to_string(n_) + ",cutoff=" + std::to_string(cut_); }
  // A node: a = board, b = j | depth << 8, c = next column. A child: the same with b |= 1 << 16 and
  // c = its column.
  body root() const override { return body{0, 0, 0, 0}; }
  std::uint32_t root_bytes() const override { return frame_; }

  step next(body& t) override {
    step s;
    const int j = static_cast<int>(t.b & 0xFF), depth = static_cast<int>((t.b >> 8) & 0xFF);
    if (t.b & (1u << 16)) {  // a child task
      if (t.pc++ == 0) {
        std::uint64_t comps = 0;
        const std::uint64_t b = place(t.a, j, static_cast<int>(t.c));
        if (ok(j + 1, b, comps)) {
          s.what = op::call;
          s.child = body{b, static_cast<std::uint64_t>(j + 1) | static_cast<std::uint64_t>(depth + 1) << 8, 0, 0};
          s.child_bytes = frame_;
        }
        s.work = cost(comps);
      }
      return s;
    }
    if (j == n_) return s;
    switch (t.pc) {
      case 0:
        t.pc = 1;
        s.what = op::start_finish;
        return s;
      case 1:
        if (depth < cut_) {
          if (t.c < static_cast<std::uint32_t>(n_)) {
            s.what = op::spawn;
            s.child = body{t.a, t.b | (1u << 16), t.c++, 0};
            s.child_bytes = frame_;
            return s;
          }
        } else {
          s.work = cost(below(t.a, j));
        }
        t.pc = 2;
        s.what = op::end_finish;
        return s;
      default:
        return s;
    }
  }

  std::string cost_model() const override {
    return std::to_string(check_ns_) + " ns per pair comparison of ok(); frame " + std::to_string(frame_) + " B";
  }

 private:
  time_ps cost(std::uint64_t comps) const { return from_ns(check_ns_ * static_cast<double>(comps)); }

  // The comparisons of the serial loop of a node at row j below the cut-off (BOTS nqueens_ser).
  std::uint64_t below(std::uint64_t board, int j) {
    // Rows below j (at most 60 bits: j < n <= 16) and j itself in the top 4 bits.
    const std::uint64_t key = (board & ((std::uint64_t{1} << (4 * j)) - 1)) | static_cast<std::uint64_t>(j) << 60;
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    std::uint64_t comps = 0;
    serial(board, j, comps);
    memo_.emplace(key, comps);
    return comps;
  }
  void serial(std::uint64_t a, int j, std::uint64_t& comps) const {
    if (j == n_) return;
    for (int i = 0; i < n_; i++) {
      a = place(a, j, i);
      if (ok(j + 1, a, comps)) serial(a, j + 1, comps);
    }
  }

  int n_, cut_;
  double check_ns_;
  std::uint32_t frame_;
  std::unordered_map<std::uint64_t, std::uint64_t> memo_;
};

}  // namespace

std::unique_ptr<dag_source> make_nqueens(spec_args& a) {
  int n = static_cast<int>(a.positional("N", 1, 16));
  int cut = static_cast<int>(a.integer("cutoff", 0, 16, 3));
  double check = a.number("check", 0, 1e9, 0.7157);
  auto frame = static_cast<std::uint32_t>(a.integer("frame", 0, 1 << 30, 256));
  return std::make_unique<nqueens_source>(n, cut, check, frame);
}

}  // namespace slaw::sim
