// The victim order of a steal round (include/slaw/policy/victims.hpp).
#include "slaw/policy/victims.hpp"  // first: the header compiles on its own

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

using slaw::policy::victim_order;

namespace {

std::vector<std::size_t> victims(std::size_t thief, std::size_t workers, std::uint64_t random, std::size_t max_probes) {
  std::vector<std::size_t> v;
  for (std::size_t x : victim_order(thief, workers, random, max_probes)) v.push_back(x);
  return v;
}

// The loop of work_stealing::probe (src/sched/work_stealing.cpp) as it was written before the policy layer.
std::vector<std::size_t> probe_loop(std::size_t self, std::size_t n, std::uint64_t random, std::size_t max_probes) {
  std::vector<std::size_t> v;
  if (n <= 1) return v;
  const std::size_t start = random % n;
  const std::size_t probes = std::min(n, max_probes);
  for (std::size_t i = 0; i < probes; ++i) {
    std::size_t w = (start + i) % n;
    if (w == self) continue;
    v.push_back(w);
  }
  return v;
}

using list = std::vector<std::size_t>;

}  // namespace

TEST(VictimOrder, OneWorkerHasNoVictim) {
  for (std::uint64_t r : {0ull, 1ull, 12345ull}) EXPECT_TRUE(victims(0, 1, r, 16).empty());
}

TEST(VictimOrder, NoWorkersOrNoProbesGiveNothing) {
  EXPECT_TRUE(victims(0, 0, 99, 16).empty());  // no division by zero
  EXPECT_TRUE(victims(0, 8, 3, 0).empty());
}

TEST(VictimOrder, TwoWorkersAlwaysProbeTheOther) {
  for (std::uint64_t r = 0; r < 4; ++r) {
    EXPECT_EQ(victims(0, 2, r, 16), list{1});
    EXPECT_EQ(victims(1, 2, r, 16), list{0});
  }
}

TEST(VictimOrder, FromTheRandomStartWrappingAround) {
  EXPECT_EQ(victims(0, 5, 3, 16), (list{3, 4, 1, 2}));
  EXPECT_EQ(victims(2, 5, 3, 16), (list{3, 4, 0, 1}));
  EXPECT_EQ(victims(3, 5, 3, 16), (list{4, 0, 1, 2}));  // the start itself is the thief
  EXPECT_EQ(victims(4, 5, 4 + 5 * 1000, 16), (list{0, 1, 2, 3}));
}

TEST(VictimOrder, SmallRuntimesProbeEveryOtherWorkerOnce) {
  for (std::size_t n = 2; n <= 16; ++n)
    for (std::size_t me = 0; me < n; ++me) {
      list v = victims(me, n, 7 * n + me, 16);
      ASSERT_EQ(v.size(), n - 1);
      std::sort(v.begin(), v.end());
      for (std::size_t i = 0, w = 0; w < n; ++w)
        if (w != me) {
          ASSERT_EQ(v[i++], w);
        }
    }
}

TEST(VictimOrder, LargeRuntimesProbeAWindowOfMaxProbes) {
  list far = victims(50, 100, 95, 16);  // the thief outside the window 95..99, 0..10
  EXPECT_EQ(far.size(), 16u);
  EXPECT_EQ(far.front(), 95u);
  EXPECT_EQ(far.back(), 10u);
  list near = victims(0, 100, 95, 16);  // the thief inside it: one probe fewer
  EXPECT_EQ(near.size(), 15u);
  EXPECT_EQ(std::count(near.begin(), near.end(), 0u), 0);
  EXPECT_EQ(near.back(), 10u);
}

TEST(VictimOrder, NoOverflowAtTheTopOfTheIndexRange) {
  const std::size_t n = std::numeric_limits<std::size_t>::max();
  const std::uint64_t r = n - 2;  // start = n - 2
  EXPECT_EQ(victims(0, n, r, 5), (list{n - 2, n - 1, 1, 2}));  // wraps to 0 (the thief) and on
}

TEST(VictimOrder, AThiefThatIsNoWorkerSkipsNobody) {
  EXPECT_EQ(victims(9, 3, 1, 16), (list{1, 2, 0}));
}

TEST(VictimOrder, SameAsTheStealLoopOfTheRuntime) {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 20000; ++i) {
    std::size_t n = rng() % 40;
    std::size_t me = n ? rng() % n : 0;
    std::size_t max_probes = rng() % 20;
    std::uint64_t r = rng();
    if (n <= 1) continue;  // the runtime returns before drawing a random number
    ASSERT_EQ(victims(me, n, r, max_probes), probe_loop(me, n, r, max_probes)) << n << " " << me;
  }
}

TEST(VictimOrder, IteratorIsAForwardIterator) {
  victim_order o(1, 4, 0, 16);
  auto it = o.begin();
  auto copy = it++;
  EXPECT_EQ(*copy, 0u);
  EXPECT_EQ(*it, 2u);
  EXPECT_EQ(std::distance(o.begin(), o.end()), 3);
  EXPECT_EQ(o.window(), 4u);
  EXPECT_EQ(o.at(3), 3u);
}
