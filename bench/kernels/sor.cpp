// sor: successive over-relaxation (Java Grande Forum SOR, omega = 1.25) on an n x n float grid.
// Stresses: repeated flat fork-join (a barrier per half-step) over short, regular, memory-bound tasks.
// Algorithm: the JGF multithreaded SOR's red-black row ordering: each iteration updates the odd interior
// rows, then the even ones, each row swept left to right in place with
//   G[i][j] = omega/4 (G[i-1][j] + G[i+1][j] + G[i][j-1] + G[i][j+1]) + (1 - omega) G[i][j].
// Rows of one parity read only rows of the other, so within a half-step the `blocks` contiguous row
// blocks (one task each, in one flat finish) are independent and every variant computes bit-for-bit
// the serial result. Locality version (the *-places rows; SLAW's SOR-with-places experiment): the blocks
// cut into one contiguous share per place (blocks [p*blocks/P, (p+1)*blocks/P)), the same share to the
// same place every half-step: slaw spawns one task per place (slaw::at) that spawns its share's blocks
// (no clause: they inherit the place); OpenMP uses schedule(static), oneTBB one affinity_partitioner.
// Loop version (benchmark sor-loop): the same half-steps as one parallel loop over the half-step's rows
// (slaw::for_each_index, no grain; oneTBB parallel_for; OpenMP `omp for` inside one parallel region;
// std::for_each(par) over the rows' indices) instead of hand-cut blocks; the serial elision loops over
// the rows. omp-dynamic uses schedule(guided, chunk): the rows cost the same, so a dynamic schedule
// only helps against interference (another process on a core), which guided's shrinking chunks
// absorb with fewer dispatches than a fixed chunk.
// Input: cells in [0, 1) from std::mt19937 with a fixed seed; reset() restores them.
// Oracle: the sum of all cells equals the serial run's sum (computed at set-up) to a relative 1e-12.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <omp.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_group.h>

#include "harness/benchmark.hpp"
#include "harness/loop_peers.hpp"

namespace {

constexpr float omega = 1.25f, omega_over_four = omega * 0.25f, one_minus_omega = 1.0f - omega;

struct grid {
  float* g;
  long n, blocks;
  // Updates interior row i.
  void row(long i) const {
    float* gi = g + i * n;
    const float* up = gi - n;
    const float* dn = gi + n;
    for (long j = 1; j < n - 1; ++j)
      gi[j] = omega_over_four * (up[j] + dn[j] + gi[j - 1] + gi[j + 1]) + one_minus_omega * gi[j];
  }
  // Updates the rows of the given parity (1: odd, 0: even) in row block b.
  void sweep(long b, int parity) const {
    long rows = n - 2, lo = 1 + b * rows / blocks, hi = 1 + (b + 1) * rows / blocks;
    for (long i = lo + ((lo & 1) != parity); i < hi; i += 2) row(i);
  }
  // The loop version's half-step: its k-th row, and how many rows it has (interior rows 1 .. n - 2).
  static long half_row(int parity, long k) { return (parity ? 1 : 2) + 2 * k; }
  long half_rows(int parity) const { return parity ? (n - 1) / 2 : (n - 2) / 2; }
};

void sor_serial(const grid& G, long iterations) {
  for (long it = 0; it < iterations; ++it)
    for (int parity = 1; parity >= 0; --parity)
      for (long b = 0; b < G.blocks; ++b) G.sweep(b, parity);
}

slaw::task<> sweep_slaw(const grid* G, long b, int parity) {
  G->sweep(b, parity);
  co_return;
}

slaw::task<> sor_slaw(const grid* G, long iterations) {
  for (long it = 0; it < iterations; ++it)
    for (int parity = 1; parity >= 0; --parity) {
      auto f = co_await slaw::start_finish();
      for (long b = 0; b < G->blocks; ++b) co_await slaw::async(sweep_slaw, G, b, parity);
      co_await slaw::end_finish(f);
    }
}

// Locality version (SLAW's Fig 6.3): per half-step one task per place, each spawning (no clause: they
// inherit its place) the same contiguous share of the row blocks in every iteration.
slaw::task<> sor_place_share(const grid* G, long b0, long b1, int parity) {
  for (long b = b0; b < b1; ++b) co_await slaw::async(sweep_slaw, G, b, parity);
}

slaw::task<> sor_slaw_places(const grid* G, long iterations) {
  const long P = static_cast<long>(slaw::num_places());
  for (long it = 0; it < iterations; ++it)
    for (int parity = 1; parity >= 0; --parity) {
      auto f = co_await slaw::start_finish();
      for (long p = 0; p < P; ++p)
        co_await slaw::async(slaw::at(slaw::place(static_cast<std::size_t>(p))), sor_place_share, G,
                             p * G->blocks / P, (p + 1) * G->blocks / P, parity);
      co_await slaw::end_finish(f);
    }
}

void sor_tbb(const grid& G, long iterations) {
  tbb::task_group g;
  for (long it = 0; it < iterations; ++it)
    for (int parity = 1; parity >= 0; --parity) {
      for (long b = 0; b < G.blocks; ++b) g.run([&G, b, parity] { G.sweep(b, parity); });
      g.wait();
    }
}

void sor_omp(const grid& G, long iterations) {
  for (long it = 0; it < iterations; ++it)
    for (int parity = 1; parity >= 0; --parity) {
      for (long b = 0; b < G.blocks; ++b) {
#pragma omp task firstprivate(b, parity) shared(G)
        G.sweep(b, parity);
      }
#pragma omp taskwait
    }
}

// oneTBB's locality mechanism: one affinity_partitioner replayed over the same range every half-step.
void sor_tbb_affinity(const grid& G, long iterations, tbb::affinity_partitioner& ap) {
  for (long it = 0; it < iterations; ++it)
    for (int parity = 1; parity >= 0; --parity)
      tbb::parallel_for(
          tbb::blocked_range<long>(0, G.blocks, 1),
          [&G, parity](const tbb::blocked_range<long>& r) {
            for (long b = r.begin(); b < r.end(); ++b) G.sweep(b, parity);
          },
          ap);
}

// The grid, its input and the oracle, shared by sor and sor-loop.
class sor_base : public slawbench::instance {
 public:
  sor_base(long n, long iterations, long blocks) : n_(n), iterations_(iterations), input_(n_ * n_), cells_(n_ * n_) {
    G_ = {cells_.data(), n_, blocks};
    std::mt19937 rng(10101);  // JGF's RANDOM_SEED
    for (float& x : input_) x = static_cast<float>(rng() >> 8) * 0x1p-24f;
    reset();
    sor_serial(G_, iterations_);
    want_ = checksum();
  }
  void reset() override { std::memcpy(cells_.data(), input_.data(), n_ * n_ * sizeof(float)); }
  slawbench::outcome check() override {
    double got = checksum();
    bool ok = std::fabs(got - want_) <= 1e-12 * std::fabs(want_);
    char msg[160];
    std::snprintf(msg, sizeof msg, "checksum %.17g after %ld iterations of %ldx%ld%s%.17g", got, iterations_, n_, n_,
                  ok ? " = serial " : ", serial ", want_);
    return {ok, msg};
  }

 protected:
  double checksum() const {
    double s = 0;
    for (float x : cells_) s += x;
    return s;
  }
  long n_, iterations_;
  std::vector<float> input_, cells_;
  grid G_;
  double want_ = 0;
};

class sor_instance : public sor_base {
 public:
  explicit sor_instance(const slawbench::params& p)
      : sor_base(p.integer("n", 3, 40000), p.integer("iterations", 1, 1000000), p.integer("blocks", 1, 1000000)) {}
  void run_serial() override { sor_serial(G_, iterations_); }
  void run_slaw(slaw::runtime& rt) override { rt.run(sor_slaw(&G_, iterations_)); }
  bool has_tbb() const override { return true; }
  void run_tbb(unsigned) override { sor_tbb(G_, iterations_); }
  bool has_omp() const override { return true; }
  void run_omp(unsigned) override {
#pragma omp parallel
#pragma omp single
    sor_omp(G_, iterations_);
  }
  bool has_locality() const override { return true; }
  void run_slaw_locality(slaw::runtime& rt) override { rt.run(sor_slaw_places(&G_, iterations_)); }
  void run_tbb_locality(unsigned) override { sor_tbb_affinity(G_, iterations_, affinity_); }
  void run_omp_locality(unsigned) override {
    // The static schedule gives each thread the same blocks in every half-step.
#pragma omp parallel
    for (long it = 0; it < iterations_; ++it)
      for (int parity = 1; parity >= 0; --parity) {
#pragma omp for schedule(static)
        for (long b = 0; b < G_.blocks; ++b) G_.sweep(b, parity);
      }
  }

 private:
  tbb::affinity_partitioner affinity_;  // kept across repetitions, as an application keeps it across sweeps
};

// ---- sor-loop: each half-step one parallel loop over its rows ----

// The peers' hand-tuned chunks, tuned at --size default with 2 workers on the 2-core machine of
// bench/results/loops/: each candidate side by side with the default row (tbb, omp) in one run, 5
// repetitions, 1 to 4 runs each; the ratios below are candidate / default row. Other work shared the
// machine (load 3 to 8), so differences under about 10 % are noise.
// A half-step is 999 rows of about 10 µs.
// tbb-grain: simple_partitioner chunks of [grain/2, grain] rows. Tried 1 (0.96-1.01), 8 (0.95-1.04), 16
// (0.98, one run), 32 (1.03, one run), 64 (0.93-0.99), 128 (0.99, one run), 256 (1.00-1.03). Kept 64:
// ahead of the default partitioner in all four of its runs; 16 to 32 pieces of 0.3 to 0.6 ms.
constexpr long sor_tbb_grain = 64;
// omp-dynamic: schedule(guided, chunk) rows, chunks of at least this many. Tried 1 (0.97-1.03), 4
// (0.87-1.21), 8 (0.96, one run), 16 (0.96-0.99), 32 (1.12, one run), 64 (0.97-1.12). Kept 16: ahead of
// the static schedule in all four of its runs.
constexpr long sor_omp_chunk = 16;

slaw::task<> sor_loop_slaw(const grid* G, long iterations) {
  for (long it = 0; it < iterations; ++it)
    for (int parity = 1; parity >= 0; --parity)
      co_await slaw::for_each_index(0L, G->half_rows(parity), [G, parity](long k) { G->row(grid::half_row(parity, k)); });
}

class sor_loop_instance : public sor_base {
 public:
  explicit sor_loop_instance(const slawbench::params& p)
      : sor_base(p.integer("n", 3, 40000), p.integer("iterations", 1, 1000000), 1), rows_(slawbench::index_vector(n_ / 2)) {}
  void run_serial() override {
    for (long it = 0; it < iterations_; ++it)
      for (int parity = 1; parity >= 0; --parity)
        for (long k = 0, m = G_.half_rows(parity); k < m; ++k) G_.row(grid::half_row(parity, k));
  }
  void run_slaw(slaw::runtime& rt) override { rt.run(sor_loop_slaw(&G_, iterations_)); }
  bool has_tbb() const override { return true; }
  void run_tbb(unsigned) override { tbb_loop(tbb::auto_partitioner(), 1); }
  bool has_tbb_grain() const override { return true; }
  void run_tbb_grain(unsigned) override { tbb_loop(tbb::simple_partitioner(), sor_tbb_grain); }
  bool has_omp() const override { return true; }
  void run_omp(unsigned) override {
    const grid& G = G_;
#pragma omp parallel
    for (long it = 0; it < iterations_; ++it)
      for (int parity = 1; parity >= 0; --parity) {
        const long m = G.half_rows(parity);
#pragma omp for schedule(static)
        for (long k = 0; k < m; ++k) G.row(grid::half_row(parity, k));
      }
  }
  bool has_omp_dynamic() const override { return true; }
  void run_omp_dynamic(unsigned) override {
    const grid& G = G_;
    const long chunk = sor_omp_chunk;
#pragma omp parallel
    for (long it = 0; it < iterations_; ++it)
      for (int parity = 1; parity >= 0; --parity) {
        const long m = G.half_rows(parity);
#pragma omp for schedule(guided, chunk)
        for (long k = 0; k < m; ++k) G.row(grid::half_row(parity, k));
      }
  }
  bool has_pstl() const override { return true; }
  void run_pstl(unsigned) override {
    const grid* G = &G_;
    for (long it = 0; it < iterations_; ++it)
      for (int parity = 1; parity >= 0; --parity)
        std::for_each(std::execution::par, rows_.begin(), rows_.begin() + G_.half_rows(parity),
                      [G, parity](long k) { G->row(grid::half_row(parity, k)); });
  }

 private:
  template <class Partitioner>
  void tbb_loop(const Partitioner& part, long grain) {
    const grid* G = &G_;
    for (long it = 0; it < iterations_; ++it)
      for (int parity = 1; parity >= 0; --parity)
        tbb::parallel_for(
            tbb::blocked_range<long>(0, G_.half_rows(parity), static_cast<std::size_t>(grain)),
            [G, parity](const tbb::blocked_range<long>& r) {
              for (long k = r.begin(); k < r.end(); ++k) G->row(grid::half_row(parity, k));
            },
            part);
  }

  std::vector<long> rows_;  // the pstl row's indices: 0 .. the larger half-step's rows
};

SLAW_BENCHMARK(slawbench::benchmark{
    "sor",
    "JGF SOR (red-black rows), a flat finish over row blocks per half-step, memory-bound",
    {{"n", "500"}, {"iterations", "10"}, {"blocks", "64"}},
    {{"n", "2000"}, {"iterations", "30"}, {"blocks", "64"}},
    {{"n", "2000"}, {"iterations", "100"}, {"blocks", "64"}},
    [](const slawbench::params& p) { return std::make_unique<sor_instance>(p); },
    {{"n", "the grid's side, in [3, 40000]"},
     {"iterations", "red-black sweeps per run, in [1, 10^6]"},
     {"blocks", "row blocks (tasks) per half-step, in [1, 10^6]"}}});

SLAW_BENCHMARK(slawbench::benchmark{
    "sor-loop",
    "JGF SOR (red-black rows) as one parallel loop over the rows per half-step (slaw::for_each_index, "
    "parallel_for, omp for, std::for_each(par))",
    {{"n", "500"}, {"iterations", "10"}},
    {{"n", "2000"}, {"iterations", "30"}},
    {{"n", "2000"}, {"iterations", "100"}},
    [](const slawbench::params& p) { return std::make_unique<sor_loop_instance>(p); },
    {{"n", "the grid's side, in [3, 40000]"}, {"iterations", "red-black sweeps per run, in [1, 10^6]"}}});

}  // namespace
