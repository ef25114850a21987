// How much of a split deque the owner exposes and reclaims (include/slaw/policy/split.hpp).
#include "slaw/policy/split.hpp"  // first: the header compiles on its own

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>

using namespace slaw::policy;

namespace {

// split_deque::expose and the reclaim in split_deque::pop_shared (include/slaw/detail/split_deque.hpp)
// as the deque wrote them inline before it called these functions: moving them changed nothing.
std::uint32_t deque_expose(std::uint32_t osplit, std::uint32_t head) { return osplit + (head - osplit + 1) / 2; }
std::uint32_t deque_reclaim(std::uint32_t t, std::uint32_t s) {
  std::uint32_t n = s - t;
  return t + 1 + (n - 1) / 2;
}

}  // namespace

TEST(Split, ExposingAnEmptyPrivatePartChangesNothing) {
  EXPECT_EQ(exposed_split(7, 7), 7u);
}

TEST(Split, ExposeHalfRoundedUp) {
  EXPECT_EQ(exposed_split(0, 1), 1u);  // a single private entry is published
  EXPECT_EQ(exposed_split(0, 2), 1u);
  EXPECT_EQ(exposed_split(0, 3), 2u);
  EXPECT_EQ(exposed_split(10, 20), 15u);
}

TEST(Split, ReclaimKeepsAtLeastOneSharedEntry) {
  EXPECT_EQ(reclaimed_split(0, 2), 1u);  // [0,1) stays shared, [1,2) comes back
  EXPECT_EQ(reclaimed_split(0, 3), 2u);
  EXPECT_EQ(reclaimed_split(0, 4), 2u);
  EXPECT_EQ(reclaimed_split(5, 15), 10u);
  for (std::uint32_t n = 2; n < 1000; ++n) {
    std::uint32_t ns = reclaimed_split(100, 100 + n);
    ASSERT_GT(ns, 100u);      // at least one stays shared
    ASSERT_LT(ns, 100 + n);  // at least one comes back
  }
}

TEST(Split, IndicesWrapAround) {
  const std::uint32_t top = std::numeric_limits<std::uint32_t>::max();
  EXPECT_EQ(exposed_split(top - 1, 3), 1u);    // private part of 5 entries across the wrap: 3 published
  EXPECT_EQ(reclaimed_split(top - 1, 2), 0u);  // shared part of 4 across the wrap: 2 kept
}

TEST(Split, SameAsTheRuntimesDequeOnRandomIndices) {
  std::mt19937 rng(5);
  for (int i = 0; i < 100000; ++i) {
    std::uint32_t a = static_cast<std::uint32_t>(rng());
    std::uint32_t n = rng() % 100000;
    ASSERT_EQ(exposed_split(a, a + n), deque_expose(a, a + n));
    if (n >= 2) {
      ASSERT_EQ(reclaimed_split(a, a + n), deque_reclaim(a, a + n));
    }
  }
}

TEST(Split, UsableInConstantExpressions) {
  static_assert(exposed_split(0, 4) == 2);
  static_assert(reclaimed_split(0, 4) == 2);
}
