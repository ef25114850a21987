// A distributed 2-D Jacobi stencil, three ways (bench/scripts/mpi_side_by_side.sh runs them side by side):
//   flat:  one MPI rank per core, no threads: exchange the halo rows (blocking), then sweep;
//   omp:   MPI + OpenMP: the same exchange, then the sweep as an OpenMP parallel loop;
//   slaw:  MPI + slaw: the halo exchange runs as tasks (slaw::mpi) while the interior rows, which do not
//          need the halos, are swept by a slaw::for_each_index; the two edge rows follow. The halo tasks
//          are spawned work-first: each runs at once, issues its operation and suspends in it, and the
//          parent goes on, so the messages are under way before the sweep starts (help-first, a lone
//          worker would sweep first and issue them at the end_finish).
// The grid is N x N, split by rows among the ranks; the top boundary is held at 1, the others at 0.
// Output, on rank 0, one JSON line: the time of the iterations (the slowest rank); the communication
// wait, the time a rank spent waiting for its halos, summed over the iterations (slowest rank): the whole
// blocking exchange for flat and omp, and for slaw only the wait at the end of the iteration's finish,
// after the interior sweep that the exchange overlaps; the peak RSS of the largest rank; and the
// checksum, checked (--check) against a sequential sweep of the whole grid on rank 0.
//
//   mpirun -np R stencil --mode flat|omp|slaw --n N --iters I [--check]   (slaw: SLAW_WORKERS sets workers)
#include <sys/resource.h>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "slaw/mpi.hpp"
#include "slaw/slaw.hpp"

namespace {

using clk = std::chrono::steady_clock;
double seconds(clk::duration d) { return std::chrono::duration<double>(d).count(); }

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr, "stencil: %s\nusage: stencil --mode flat|omp|slaw --n N (>= 4 * ranks) --iters I (>= 1) [--check]\n",
               why.c_str());
  std::exit(2);
}

struct grid {
  int n, rows, first;  // global size, rows owned, first owned global row
  std::vector<double> a, b;  // (rows + 2) x n: row 0 and row rows + 1 are halos
  double* row(std::vector<double>& v, int r) { return v.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(n); }
};

// One row of the sweep: interior columns only; global boundary rows stay fixed.
void sweep_row(grid& g, const std::vector<double>& src, std::vector<double>& dst, int r) {
  const int global = g.first + r - 1;
  const double* up = src.data() + static_cast<std::size_t>(r - 1) * g.n;
  const double* mid = src.data() + static_cast<std::size_t>(r) * g.n;
  const double* dn = src.data() + static_cast<std::size_t>(r + 1) * g.n;
  double* out = dst.data() + static_cast<std::size_t>(r) * g.n;
  if (global == 0 || global == g.n - 1) {
    std::memcpy(out, mid, sizeof(double) * static_cast<std::size_t>(g.n));
    return;
  }
  out[0] = mid[0];
  out[g.n - 1] = mid[g.n - 1];
  for (int j = 1; j < g.n - 1; ++j) out[j] = 0.25 * (up[j] + dn[j] + mid[j - 1] + mid[j + 1]);
}

double sequential_checksum(int n, int iters) {
  std::vector<double> a(static_cast<std::size_t>(n) * n, 0.0), b;
  for (int j = 0; j < n; ++j) a[static_cast<std::size_t>(j)] = 1.0;
  b = a;
  for (int it = 0; it < iters; ++it) {
    for (int i = 1; i < n - 1; ++i)
      for (int j = 1; j < n - 1; ++j)
        b[static_cast<std::size_t>(i) * n + j] = 0.25 * (a[static_cast<std::size_t>(i - 1) * n + j] + a[static_cast<std::size_t>(i + 1) * n + j] +
                                                       a[static_cast<std::size_t>(i) * n + j - 1] + a[static_cast<std::size_t>(i) * n + j + 1]);
    std::swap(a, b);
  }
  double s = 0;
  for (double x : a) s += x;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  slaw::mpi::environment env(argc, argv);
  const int me = env.rank(), np = env.size();
  std::string mode;
  long n = 0, iters = 0;
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> long {
      if (i + 1 >= argc) usage(a + " needs a value");
      char* end = nullptr;
      const long v = std::strtol(argv[++i], &end, 10);
      if (*end || v <= 0) usage(a + " '" + argv[i] + "': a positive integer");
      return v;
    };
    if (a == "--mode") {
      if (i + 1 >= argc) usage("--mode needs a value");
      mode = argv[++i];
    } else if (a == "--n") n = value();
    else if (a == "--iters") iters = value();
    else if (a == "--check") check = true;
    else usage("unknown argument '" + a + "'");
  }
  if (mode != "flat" && mode != "omp" && mode != "slaw") usage("--mode '" + mode + "': accepted values are flat, omp, slaw");
  if (n < 4L * np || n > 100000) usage("--n " + std::to_string(n) + ": between 4 x ranks and 100000");
  if (iters == 0) usage("--iters is required");

  grid g;
  g.n = static_cast<int>(n);
  const int base = g.n / np, extra = g.n % np;
  g.rows = base + (me < extra);
  g.first = me * base + std::min(me, extra);
  g.a.assign(static_cast<std::size_t>(g.rows + 2) * g.n, 0.0);
  if (g.first == 0)
    for (int j = 0; j < g.n; ++j) g.row(g.a, 1)[j] = 1.0;
  g.b = g.a;
  const int up = me > 0 ? me - 1 : MPI_PROC_NULL, down = me < np - 1 ? me + 1 : MPI_PROC_NULL;

  double wait_s = 0;
  const auto t0 = clk::now();
  if (mode != "slaw") {
    for (long it = 0; it < iters; ++it) {
      const auto c0 = clk::now();
      MPI_Sendrecv(g.row(g.a, 1), g.n, MPI_DOUBLE, up, 0, g.row(g.a, g.rows + 1), g.n, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Sendrecv(g.row(g.a, g.rows), g.n, MPI_DOUBLE, down, 1, g.row(g.a, 0), g.n, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      wait_s += seconds(clk::now() - c0);  // nothing overlaps a blocking exchange
      if (mode == "flat") {
        for (int r = 1; r <= g.rows; ++r) sweep_row(g, g.a, g.b, r);
      } else {
#pragma omp parallel for schedule(static)
        for (int r = 1; r <= g.rows; ++r) sweep_row(g, g.a, g.b, r);
      }
      std::swap(g.a, g.b);
    }
  } else {
    slaw::runtime rt;
    rt.run([&]() -> slaw::task<> {
      for (long it = 0; it < iters; ++it) {
        auto s = co_await slaw::start_finish();
        co_await slaw::async(slaw::wf, [&]() -> slaw::task<> {  // the upper halo
          co_await slaw::async(slaw::wf, [&]() -> slaw::task<> { co_await slaw::mpi::send(g.row(g.a, 1), g.n, up, 0); });
          co_await slaw::mpi::recv(g.row(g.a, 0), g.n, up, 1);
        });
        co_await slaw::async(slaw::wf, [&]() -> slaw::task<> {  // the lower halo
          co_await slaw::async(slaw::wf, [&]() -> slaw::task<> { co_await slaw::mpi::send(g.row(g.a, g.rows), g.n, down, 1); });
          co_await slaw::mpi::recv(g.row(g.a, g.rows + 1), g.n, down, 0);
        });
        if (g.rows > 2) co_await slaw::for_each_index(2, g.rows, [&](int r) { sweep_row(g, g.a, g.b, r); });
        const auto c0 = clk::now();
        co_await slaw::end_finish(s);
        wait_s += seconds(clk::now() - c0);
        sweep_row(g, g.a, g.b, 1);
        if (g.rows > 1) sweep_row(g, g.a, g.b, g.rows);
        std::swap(g.a, g.b);
      }
    }());
  }
  double elapsed = seconds(clk::now() - t0);

  double local = 0, sum = 0;
  for (int r = 1; r <= g.rows; ++r)
    for (int j = 0; j < g.n; ++j) local += g.row(g.a, r)[j];
  MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  double mx[2] = {elapsed, wait_s}, gmx[2];
  MPI_Reduce(mx, gmx, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  long rss = ru.ru_maxrss, max_rss = 0;
  MPI_Reduce(&rss, &max_rss, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  int ok = 1;
  if (me == 0) {
    std::string verdict = "skipped";
    if (check) {
      const double want = sequential_checksum(g.n, static_cast<int>(iters));
      ok = std::fabs(want - sum) <= 1e-9 * std::max(1.0, std::fabs(want));
      verdict = ok ? "ok" : "WRONG";
      if (!ok) std::fprintf(stderr, "stencil: checksum %.12g, the sequential sweep gives %.12g\n", sum, want);
    }
    const char* w = std::getenv("SLAW_WORKERS");
    const int threads = mode == "flat" ? 1 : mode == "omp" ? omp_get_max_threads() : (w ? std::atoi(w) : 0);
    std::printf("{\"mode\": \"%s\", \"ranks\": %d, \"threads_per_rank\": %d, \"n\": %d, \"iters\": %ld, \"time_s\": %.6f, "
                "\"comm_wait_s\": %.6f, \"peak_rss_kb\": %ld, \"checksum\": %.12g, \"check\": \"%s\"}\n",
                mode.c_str(), np, threads, g.n, iters, gmx[0], gmx[1], max_rss, sum, verdict.c_str());
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok ? 0 : 1;
}
