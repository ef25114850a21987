// An idle worker's decisions: spinning, timed and untimed sleep, who wakes whom
// (include/slaw/policy/idle.hpp).
#include "slaw/policy/idle.hpp"  // first: the header compiles on its own

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

using namespace slaw::policy;

namespace {

// The rules as src/core/parking.hpp and worker::find_work (src/core/worker.cpp) wrote them inline before
// they called these functions: moving them changed nothing.
bool runtime_wake_if_nobody_searches(std::uint32_t sleepers, std::uint32_t searching) {
  return sleepers > 0 && searching == 0;
}
bool runtime_found_work_wakes(std::uint32_t before, std::uint32_t sleepers) { return before == 1 && sleepers > 0; }
bool runtime_timed(std::uint32_t searchers_left, std::uint32_t idle, std::uint32_t workers) {
  const bool someone_busy = idle < workers;
  return searchers_left == 0 && someone_busy;
}
long runtime_backoff(long b) { return b * 2 < 2'000'000L ? b * 2 : 2'000'000L; }

}  // namespace

TEST(Idle, SpinsForSpinRoundsThenSleeps) {
  idle_params p;
  EXPECT_TRUE(keep_spinning(1, p));
  EXPECT_TRUE(keep_spinning(63, p));
  EXPECT_FALSE(keep_spinning(64, p));
  p.spin_rounds = 1;
  EXPECT_FALSE(keep_spinning(1, p));
}

TEST(Idle, OnlyTheLastSearcherWhileSomeoneWorksSleepsWithATimeout) {
  EXPECT_TRUE(timed_sleep(0, 3, 4));   // last searcher, one worker busy
  EXPECT_FALSE(timed_sleep(0, 4, 4));  // everyone idle: sleep for good
  EXPECT_FALSE(timed_sleep(1, 2, 4));  // another searcher goes on looking
}

TEST(Idle, BackoffDoublesUpToTwoMilliseconds) {
  idle_params p;
  std::int64_t b = p.backoff_first_ns;
  int steps = 0;
  while (b < p.backoff_max_ns) {
    b = next_backoff(b, p);
    ++steps;
  }
  EXPECT_EQ(b, 2'000'000);
  EXPECT_EQ(steps, 6);  // 50 us · 2^6 = 3.2 ms, capped
  EXPECT_EQ(next_backoff(b, p), 2'000'000);
}

TEST(Idle, ExposedWorkWakesOnlyWhenNobodySearches) {
  EXPECT_TRUE(wake_on_exposed(1, 0));
  EXPECT_FALSE(wake_on_exposed(0, 0));
  EXPECT_FALSE(wake_on_exposed(3, 1));
}

TEST(Idle, TheLastSearcherToFindWorkWakesOneMore) {
  EXPECT_TRUE(wake_on_found(1, 2));
  EXPECT_FALSE(wake_on_found(2, 2));
  EXPECT_FALSE(wake_on_found(1, 0));
}

TEST(Idle, SameAsTheRuntimesParkingLotOnRandomCounts) {
  std::mt19937 rng(11);
  idle_params p;
  for (int i = 0; i < 100000; ++i) {
    std::uint32_t workers = 1 + rng() % 64, idle = rng() % (workers + 1), a = rng() % 5, b = rng() % 5;
    ASSERT_EQ(wake_on_exposed(a, b), runtime_wake_if_nobody_searches(a, b));
    ASSERT_EQ(wake_on_found(a, b), runtime_found_work_wakes(a, b));
    ASSERT_EQ(timed_sleep(a, idle, workers), runtime_timed(a, idle, workers));
    long ns = 1 + static_cast<long>(rng() % 3'000'000);
    ASSERT_EQ(next_backoff(ns, p), runtime_backoff(ns));
  }
}
