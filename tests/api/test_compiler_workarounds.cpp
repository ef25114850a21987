// Shapes of user code that a compiler has miscompiled, run through slaw::slaw's usage requirements as a
// user's program gets them (CMakeLists.txt). Each test fails when the workaround is taken away.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "slaw/slaw.hpp"
#include "../support/stress.hpp"

namespace {

struct leaf_log {
  std::vector<std::atomic<int>> hits;
  std::atomic<long> bad_ranges{0};
  explicit leaf_log(std::size_t n) : hits(n) {}
};

// Splits [lo, hi) at a point drawn from the seed, and runs both halves from a loop that chooses the
// bounds with conditionals: `b = half ? hi : mid`. GCC 12.2's SLP vectorizer packs {mid, hi} into one
// vector before it loads hi from the frame, so the second child gets whatever the register held
// (README, Known limitations). -fno-tree-slp-vectorize, which slaw::slaw passes to GCC 12 and later,
// keeps it right.
slaw::task<> split(std::uint64_t seed, std::size_t lo, std::size_t hi, int kind, leaf_log* log) {
  if (hi <= lo || hi > log->hits.size()) {
    log->bad_ranges.fetch_add(1, std::memory_order_relaxed);
    co_return;
  }
  if (hi - lo == 1) {
    log->hits[lo].fetch_add(1, std::memory_order_relaxed);
    co_return;
  }
  const std::size_t mid = lo + 1 + static_cast<std::size_t>(slaw_test::splitmix(seed ^ lo) % (hi - lo - 1));
  auto s = co_await slaw::start_finish();
  for (int half = 0; half < 2; ++half) {
    const std::size_t a = half ? mid : lo, b = half ? hi : mid;
    switch (kind) {
      case 0: co_await slaw::async(slaw::wf, split, seed, a, b, kind, log); break;
      case 1: co_await slaw::async(slaw::hf, split, seed, a, b, kind, log); break;
      default: co_await slaw::async(slaw::dyn, split, seed, a, b, kind, log); break;
    }
  }
  co_await slaw::end_finish(s);
}

}  // namespace

TEST(CompilerWorkarounds, ConditionalBoundsInASpawnLoop) {
  constexpr std::size_t leaves = 5000;
  for (int kind = 0; kind < 3; ++kind)
    for (unsigned workers : {1u, 2u, 8u}) {
      slaw::config cfg;
      cfg.workers = workers;
      leaf_log log(leaves);
      slaw::runtime rt(cfg);
      rt.run(split(42 + static_cast<std::uint64_t>(kind), 0, leaves, kind, &log));
      EXPECT_EQ(log.bad_ranges.load(), 0) << "spawn kind " << kind << ", " << workers << " workers";
      std::size_t wrong = 0;
      for (const auto& h : log.hits) wrong += h.load() != 1;
      EXPECT_EQ(wrong, 0u) << "leaves not run exactly once; spawn kind " << kind << ", " << workers << " workers";
    }
}
