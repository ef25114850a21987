// Routine 1's choice among a worker's own tasks (include/slaw/policy/local_order.hpp).
#include "slaw/policy/local_order.hpp"  // first: the header compiles on its own

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>

using namespace slaw::policy;

namespace {
constexpr std::optional<std::uint32_t> none = std::nullopt;
constexpr std::uint32_t deepest = std::numeric_limits<std::uint32_t>::max();
}  // namespace

TEST(LocalOrder, NothingOwnedNothingTaken) { EXPECT_EQ(pick_own_task(none, none), own_task::none); }

TEST(LocalOrder, ASingleBottomIsTakenWhateverItsDepth) {
  for (std::uint32_t d : {0u, 1u, 7u, deepest}) {
    EXPECT_EQ(pick_own_task(d, none), own_task::preempted);
    EXPECT_EQ(pick_own_task(none, d), own_task::fresh);
  }
}

TEST(LocalOrder, DeepestInTheSyncTreeFirst) {
  EXPECT_EQ(pick_own_task(3, 4), own_task::fresh);
  EXPECT_EQ(pick_own_task(4, 3), own_task::preempted);
  EXPECT_EQ(pick_own_task(0, deepest), own_task::fresh);
  EXPECT_EQ(pick_own_task(deepest, 0), own_task::preempted);
}

TEST(LocalOrder, PreemptedFirstOnATie) {
  for (std::uint32_t d : {0u, 1u, 100u, deepest}) EXPECT_EQ(pick_own_task(d, d), own_task::preempted);
}

TEST(LocalOrder, UsableInConstantExpressions) {
  static_assert(pick_own_task(1, 2) == own_task::fresh);
  static_assert(pick_own_task(2, 2) == own_task::preempted);
  static_assert(pick_own_task(std::nullopt, std::nullopt) == own_task::none);
}
