// The invariant checker itself catches violations: the schedule tests could fail.
#include <gtest/gtest.h>

#include "sim/checks.hpp"
#include "sim/costs.hpp"
#include "sim/engine.hpp"
#include "sim/workloads.hpp"

using namespace slaw::sim;

namespace {

struct fixture {
  std::unique_ptr<dag_source> src = make_workload("fib:3");
  run_config cfg;
  engine e{*src, costs{}, cfg};
};

}  // namespace

TEST(SimChecker, ATaskEndedTwiceIsReported) {
  fixture f;
  checker c(f.e, false);
  c.created(5);
  c.ended(5);
  EXPECT_TRUE(c.violations().empty());
  c.ended(5);
  ASSERT_EQ(c.violations().size(), 1u);
  EXPECT_NE(c.violations()[0].find("ended twice"), std::string::npos);
}

TEST(SimChecker, ARecordCreatedWhileLiveIsReported) {
  fixture f;
  checker c(f.e, false);
  c.created(2);
  c.created(2);
  EXPECT_EQ(c.violations().size(), 1u);
}

// Labels as src/core/serial_order.cpp: root [0]; its children [0,2], [0,4]; the continuation after the
// second child is [0,5]. Entries: untagged child c stands for the parent's continuation after c.
TEST(SimChecker, Lemma31OrdersAreCheckedWithinAndAcrossDeques) {
  fixture f;
  checker c(f.e, true);
  c.created(0);
  c.note_root(0, 0);
  c.created(1);
  c.note_child(0, 1);  // [0,2]
  c.created(2);
  c.note_child(1, 2);  // [0,2,2]
  // In order: oldest first, the continuation of 0 after child 1 ([0,3]), then of 1 after child 2
  // ([0,2,3]): the newer precedes the older in 1DF order.
  c.lemma_3_1({{-1, {make_entry(1), make_entry(2)}}});
  EXPECT_TRUE(c.violations().empty());
  c.lemma_3_1({{-1, {make_entry(2), make_entry(1)}}});  // reversed
  EXPECT_EQ(c.violations().size(), 1u);
  // Across deques: the left deque must hold the earlier tasks.
  c.lemma_3_1({{-1, {make_entry(2)}}, {-1, {make_entry(1)}}});
  EXPECT_EQ(c.violations().size(), 1u);
  c.lemma_3_1({{-1, {make_entry(1)}}, {-1, {make_entry(2)}}});
  EXPECT_EQ(c.violations().size(), 2u);
}
