// nqueens: count all placements of n non-attacking queens, as in BOTS nqueens (manual cut-off
// version, nqueens_manual). A node at row j tries every column i; above the cut-off (depth < cutoff)
// each try is a task that copies the parent's partial board into its own array, places the queen,
// checks the whole board with BOTS's O(j^2) ok() and recurses; results go to a per-node array of n
// counters summed after the join (a finish per node). At depth >= cutoff the node runs BOTS's serial
// in-place search (nqueens_ser). Stresses irregular search with per-task state copying and a
// moderate number of coarse tasks (about n^cutoff).
// Inputs: n and cutoff (BOTS: n up to 14 for the "medium"/"large" inputs, cut-off 3).
// Oracle: the known solution counts (OEIS A000170) for n = 1..16.
#include <cstdint>
#include <cstring>
#include <string>

#include <omp.h>
#include <tbb/task_group.h>

#include "harness/benchmark.hpp"

namespace {

constexpr int max_n = 16;
constexpr std::int64_t known[max_n + 1] = {1,     1,     0,      0,      2,       10,       4,       40,      92,
                                           352,   724,   2680,   14200,  73712,   365596,   2279184, 14772512};

// BOTS ok(): no two of the first n queens attack each other.
bool ok(int n, const char* a) {
  for (int i = 0; i < n; i++) {
    char p = a[i];
    for (int j = i + 1; j < n; j++) {
      char q = a[j];
      if (q == p || q == p - (j - i) || q == p + (j - i)) return false;
    }
  }
  return true;
}

// BOTS nqueens_ser: in place, below the cut-off (the same in every variant).
int nq_ser(int n, int j, char* a) {
  if (n == j) return 1;
  int sols = 0;
  for (int i = 0; i < n; i++) {
    a[j] = static_cast<char>(i);
    if (ok(j + 1, a)) sols += nq_ser(n, j + 1, a);
  }
  return sols;
}

// A node at row j whose board `a` belongs to it; `cut` is the cut-off depth.
int nq_serial(int n, int j, char* a, int depth, int cut) {
  if (n == j) return 1;
  int csols[max_n] = {};
  for (int i = 0; i < n; i++) {
    if (depth < cut) {
      char b[max_n];
      std::memcpy(b, a, j);
      b[j] = static_cast<char>(i);
      if (ok(j + 1, b)) csols[i] = nq_serial(n, j + 1, b, depth + 1, cut);
    } else {
      a[j] = static_cast<char>(i);
      if (ok(j + 1, a)) csols[i] = nq_ser(n, j + 1, a);
    }
  }
  int sols = 0;
  for (int i = 0; i < n; i++) sols += csols[i];
  return sols;
}

slaw::task<int> nq_slaw(int n, int j, char* a, int depth, int cut);

// The task for column i: its own copy of the parent's board.
slaw::task<int> nq_child_slaw(int n, int j, const char* a, int i, int depth, int cut) {
  char b[max_n];
  std::memcpy(b, a, j);
  b[j] = static_cast<char>(i);
  if (!ok(j + 1, b)) co_return 0;
  co_return co_await nq_slaw(n, j + 1, b, depth + 1, cut);
}

slaw::task<int> nq_slaw(int n, int j, char* a, int depth, int cut) {
  if (n == j) co_return 1;
  int csols[max_n] = {};
  auto f = co_await slaw::start_finish();
  for (int i = 0; i < n; i++) {
    if (depth < cut) {
      co_await slaw::async(&csols[i], nq_child_slaw, n, j, a, i, depth, cut);
    } else {
      a[j] = static_cast<char>(i);
      if (ok(j + 1, a)) csols[i] = nq_ser(n, j + 1, a);
    }
  }
  co_await slaw::end_finish(f);
  int sols = 0;
  for (int i = 0; i < n; i++) sols += csols[i];
  co_return sols;
}

int nq_tbb(int n, int j, char* a, int depth, int cut) {
  if (n == j) return 1;
  int csols[max_n] = {};
  tbb::task_group g;
  for (int i = 0; i < n; i++) {
    if (depth < cut) {
      g.run([n, j, a, i, depth, cut, &csols] {
        char b[max_n];
        std::memcpy(b, a, j);
        b[j] = static_cast<char>(i);
        if (ok(j + 1, b)) csols[i] = nq_tbb(n, j + 1, b, depth + 1, cut);
      });
    } else {
      a[j] = static_cast<char>(i);
      if (ok(j + 1, a)) csols[i] = nq_ser(n, j + 1, a);
    }
  }
  g.wait();
  int sols = 0;
  for (int i = 0; i < n; i++) sols += csols[i];
  return sols;
}

int nq_omp(int n, int j, char* a, int depth, int cut) {
  if (n == j) return 1;
  int csols[max_n] = {};
  for (int i = 0; i < n; i++) {
    if (depth < cut) {
#pragma omp task shared(csols) firstprivate(n, j, a, i, depth, cut)
      {
        char b[max_n];
        std::memcpy(b, a, j);
        b[j] = static_cast<char>(i);
        if (ok(j + 1, b)) csols[i] = nq_omp(n, j + 1, b, depth + 1, cut);
      }
    } else {
      a[j] = static_cast<char>(i);
      if (ok(j + 1, a)) csols[i] = nq_ser(n, j + 1, a);
    }
  }
#pragma omp taskwait
  int sols = 0;
  for (int i = 0; i < n; i++) sols += csols[i];
  return sols;
}

class nqueens_instance : public slawbench::instance {
 public:
  explicit nqueens_instance(const slawbench::params& p)
      : n_(static_cast<int>(p.integer("n", 1, max_n))), cut_(static_cast<int>(p.integer("cutoff", 0, max_n))) {}
  void reset() override { result_ = -1; }
  void run_serial() override {
    char a[max_n] = {};
    result_ = nq_serial(n_, 0, a, 0, cut_);
  }
  void run_slaw(slaw::runtime& rt) override {
    char a[max_n] = {};
    result_ = rt.run(nq_slaw(n_, 0, a, 0, cut_));
  }
  bool has_tbb() const override { return true; }
  void run_tbb(unsigned) override {
    char a[max_n] = {};
    result_ = nq_tbb(n_, 0, a, 0, cut_);
  }
  bool has_omp() const override { return true; }
  void run_omp(unsigned) override {
    char a[max_n] = {};
    int r = -1;
    const int n = n_, cut = cut_;
#pragma omp parallel
#pragma omp single
    r = nq_omp(n, 0, a, 0, cut);
    result_ = r;
  }
  slawbench::outcome check() override {
    std::int64_t want = known[n_];
    return {result_ == want, std::to_string(n_) + "-queens: " + std::to_string(result_) + " solutions" +
                                 (result_ == want ? "" : ", expected " + std::to_string(want)) +
                                 " (cutoff " + std::to_string(cut_) + ")"};
  }

 private:
  int n_, cut_;
  std::int64_t result_ = -1;
};

SLAW_BENCHMARK(slawbench::benchmark{
    "nqueens",
    "BOTS N-queens: irregular search, board copied into each task, serial below depth `cutoff`",
    {{"n", "10"}, {"cutoff", "3"}},
    {{"n", "13"}, {"cutoff", "3"}},
    {{"n", "14"}, {"cutoff", "3"}},
    [](const slawbench::params& p) { return std::make_unique<nqueens_instance>(p); },
    {{"n", "the board's size, in [1, 16]"}, {"cutoff", "the depth from which the search is serial, in [0, 16]"}}});

}  // namespace
