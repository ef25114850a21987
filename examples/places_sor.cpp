// places_sor [N [ITERATIONS]]: SOR (red-black rows, JGF) written with places, as in SLAW's Fig 6.3:
// per half-step, one task per listed place (`slaw::at(slaw::place(p))`), each spawning the row blocks
// of the same share of rows in every iteration, so that a place's rows stay in its caches. Checks the
// grid against a serial run and prints, per place, which workers ran its blocks.
//
//   SLAW_PLACES=cores SLAW_BIND=close SLAW_STATS=1 build/examples/places_sor 2000 50
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <set>
#include <vector>

#include "parse_arg.hpp"
#include "slaw/slaw.hpp"

namespace {

constexpr float omega = 1.25f;
constexpr long blocks_per_place = 8;

struct grid {
  std::vector<float> cells;
  long n;
  // Updates the rows of `parity` in [lo, hi).
  void sweep(long lo, long hi, int parity) {
    for (long i = lo + ((lo & 1) != parity); i < hi; i += 2) {
      float* g = cells.data() + i * n;
      const float* up = g - n;
      const float* dn = g + n;
      for (long j = 1; j < n - 1; ++j) g[j] = omega * 0.25f * (up[j] + dn[j] + g[j - 1] + g[j + 1]) + (1 - omega) * g[j];
    }
  }
};

// Which workers ran each place's blocks (checked: always workers of that place).
struct observed {
  std::mutex m;
  std::vector<std::set<unsigned>> workers;
  bool outside = false;
};

slaw::task<> sweep_block(grid* G, long lo, long hi, int parity, observed* seen) {
  G->sweep(lo, hi, parity);
  const unsigned w = slaw::this_worker();
  const slaw::place p = slaw::here();
  std::vector<unsigned> mine = p.workers();
  std::lock_guard<std::mutex> g(seen->m);
  seen->workers[p.index()].insert(w);
  if (std::find(mine.begin(), mine.end(), w) == mine.end()) seen->outside = true;
  co_return;
}

// One place's share of the interior rows, as row blocks spawned without a clause: they stay in place p.
slaw::task<> place_share(grid* G, std::size_t p, std::size_t places, int parity, observed* seen) {
  const long rows = G->n - 2, lo = 1 + static_cast<long>(p) * rows / static_cast<long>(places),
             hi = 1 + static_cast<long>(p + 1) * rows / static_cast<long>(places);
  for (long b = 0; b < blocks_per_place; ++b)
    co_await slaw::async(sweep_block, G, lo + b * (hi - lo) / blocks_per_place, lo + (b + 1) * (hi - lo) / blocks_per_place,
                         parity, seen);
}

slaw::task<> sor(grid* G, long iterations, observed* seen) {
  const std::size_t places = slaw::num_places();
  {
    std::lock_guard<std::mutex> g(seen->m);
    seen->workers.resize(places);
  }
  for (long it = 0; it < iterations; ++it)
    for (int parity = 1; parity >= 0; --parity) {
      auto f = co_await slaw::start_finish();
      for (std::size_t p = 0; p < places; ++p)
        co_await slaw::async(slaw::at(slaw::place(p)), place_share, G, p, places, parity, seen);
      co_await slaw::end_finish(f);
    }
}

void sor_serial(grid& G, long iterations) {
  for (long it = 0; it < iterations; ++it)
    for (int parity = 1; parity >= 0; --parity) G.sweep(1, G.n - 1, parity);
}

}  // namespace

int main(int argc, char** argv) {
  long n = 1000, iterations = 20;
  if (argc > 3 || (argc >= 2 && !parse_arg(argv[1], 3, 20000, &n)) || (argc == 3 && !parse_arg(argv[2], 1, 100000, &iterations))) {
    std::fprintf(stderr, "usage: places_sor [N [ITERATIONS]]   (N in [3, 20000], default 1000; ITERATIONS in [1, 100000], default 20)\n");
    return 2;
  }
  try {
    grid G{std::vector<float>(static_cast<std::size_t>(n * n)), n};
    for (long i = 0; i < n * n; ++i) G.cells[static_cast<std::size_t>(i)] = static_cast<float>((i * 7919) % 1000) / 1000.0f;
    grid want = G;
    sor_serial(want, iterations);
    observed seen;
    slaw::runtime rt{slaw::config::from_env()};
    const auto t0 = std::chrono::steady_clock::now();
    rt.run(sor(&G, iterations, &seen));
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const bool same = std::memcmp(G.cells.data(), want.cells.data(), G.cells.size() * sizeof(float)) == 0;
    std::printf("places_sor %ldx%ld, %ld iterations, %u workers, %zu places: %.3f s, grid %s serial\n", n, n, iterations,
                rt.workers(), seen.workers.size(), secs, same ? "equals" : "DIFFERS FROM");
    for (std::size_t p = 0; p < seen.workers.size(); ++p) {
      std::printf("  place %zu ran on workers", p);
      for (unsigned w : seen.workers[p]) std::printf(" %u", w);
      std::printf("\n");
    }
    if (!same || seen.outside) {
      if (seen.outside) std::fprintf(stderr, "places_sor: a block ran on a worker outside its place\n");
      return 1;
    }
  } catch (const slaw::config_error& e) {
    std::fprintf(stderr, "places_sor: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "places_sor: %s\n", e.what());
    return 1;
  }
  return 0;
}
