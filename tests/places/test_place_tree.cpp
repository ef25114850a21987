// place_tree: pruning, collapsing, numbering, navigation and distances (src/places/place_tree.hpp),
// on hand-made raw trees.
#include "places/place_tree.hpp"  // first: the header compiles on its own

#include <gtest/gtest.h>

#include <stdexcept>

using namespace slaw::places;

namespace {

// machine -> 2 packages -> 2 cores each -> 1 PU each (leaves 0..3), package 1 also has a lone core.
//   0 machine
//   1   pack0        4  pack1
//   2     core0(L0)  5    core2(L2)
//   3     core1(L1)  6    core3(L3)
std::vector<raw_node> two_packages() {
  return {
      {no_place, cpu_set{0, 1, 2, 3}, {"Machine"}, std::nullopt},
      {0, cpu_set{0, 1}, {"Package L#0"}, std::nullopt},
      {1, cpu_set{0}, {"Core L#0"}, 0},
      {1, cpu_set{1}, {"Core L#1"}, 1},
      {0, cpu_set{2, 3}, {"Package L#1"}, std::nullopt},
      {4, cpu_set{2}, {"Core L#2"}, 2},
      {4, cpu_set{3}, {"Core L#3"}, 3},
  };
}

}  // namespace

TEST(PlaceTree, LeavesFirstInListOrderThenInternalInPreorder) {
  const place_tree t = place_tree::build(two_packages());
  ASSERT_EQ(t.size(), 7u);
  EXPECT_EQ(t.leaf_count(), 4u);
  EXPECT_EQ(t.root(), 4u);  // the first internal place
  EXPECT_EQ(t[4].objects, (std::vector<std::string>{"Machine"}));
  EXPECT_EQ(t[5].objects, (std::vector<std::string>{"Package L#0"}));
  EXPECT_EQ(t[6].objects, (std::vector<std::string>{"Package L#1"}));
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_TRUE(t.is_leaf(i));
    EXPECT_EQ(t.cpus(i), cpu_set{static_cast<unsigned>(i)});
    EXPECT_EQ(t.depth(i), 2u);
    EXPECT_EQ(t[i].index, i);
  }
  EXPECT_EQ(t.children(4), (std::vector<std::size_t>{5, 6}));
  EXPECT_EQ(t.children(5), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(t.children(6), (std::vector<std::size_t>{2, 3}));
  EXPECT_EQ(t.parent(0), 5u);
  EXPECT_EQ(t.parent(3), 6u);
  EXPECT_EQ(t.parent(4), no_place);
  EXPECT_EQ(t.cpus(4), (cpu_set{0, 1, 2, 3}));
  EXPECT_EQ(t.parents(), (std::vector<std::size_t>{5, 5, 6, 6, no_place, 4, 4}));
}

TEST(PlaceTree, DistancesAndAncestors) {
  const place_tree t = place_tree::build(two_packages());
  EXPECT_EQ(t.distance(0, 0), 0u);
  EXPECT_EQ(t.distance(0, 1), 2u);  // same package
  EXPECT_EQ(t.distance(0, 2), 4u);  // across packages
  EXPECT_EQ(t.distance(0, 4), 2u);  // leaf to root
  EXPECT_EQ(t.distance(5, 3), 3u);
  EXPECT_EQ(t.common_ancestor(0, 1), 5u);
  EXPECT_EQ(t.common_ancestor(1, 3), 4u);
  EXPECT_TRUE(t.within(0, 5));
  EXPECT_TRUE(t.within(0, 4));
  EXPECT_TRUE(t.within(5, 5));
  EXPECT_FALSE(t.within(0, 6));
  EXPECT_FALSE(t.within(4, 5));
}

TEST(PlaceTree, PruningDropsBranchesAndCollapsesSingleChildren) {
  // Keep leaves 0, 1 and 3: package 1 keeps one core, which takes its place (and its objects).
  const place_tree t = place_tree::build(two_packages(), {true, true, false, true});
  ASSERT_EQ(t.leaf_count(), 3u);
  ASSERT_EQ(t.size(), 5u);  // 3 leaves, the machine, package 0
  EXPECT_EQ(t.leaf_list_indices(), (std::vector<std::size_t>{0, 1, 3}));
  EXPECT_EQ(t.root(), 3u);
  EXPECT_EQ(t.cpus(3), (cpu_set{0, 1, 3}));  // internal CPUs are the kept leaves'
  EXPECT_EQ(t[2].objects, (std::vector<std::string>{"Package L#1", "Core L#3"}));
  EXPECT_EQ(t.parent(2), 3u);
  EXPECT_EQ(t.depth(2), 1u);
  EXPECT_EQ(t.distance(0, 2), 3u);
}

TEST(PlaceTree, AChainCollapsesIntoOnePlace) {
  // Machine -> Package -> L3 -> 2 cores: the three single-child levels become the root.
  std::vector<raw_node> raw = {
      {no_place, cpu_set{0, 1}, {"Machine"}, std::nullopt},
      {0, cpu_set{0, 1}, {"Package L#0"}, std::nullopt},
      {1, cpu_set{0, 1}, {"L3 L#0"}, std::nullopt},
      {2, cpu_set{0}, {"Core L#0"}, 0},
      {2, cpu_set{1}, {"Core L#1"}, 1},
  };
  const place_tree t = place_tree::build(raw);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t.root(), 2u);
  EXPECT_EQ(t[2].objects, (std::vector<std::string>{"Machine", "Package L#0", "L3 L#0"}));
  // Keeping one leaf leaves one place, root and leaf at once.
  const place_tree one = place_tree::build(raw, {false, true});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one.root(), 0u);
  EXPECT_TRUE(one.is_leaf(0));
  EXPECT_EQ(one.cpus(0), cpu_set{1});
  EXPECT_EQ(one[0].objects, (std::vector<std::string>{"Machine", "Package L#0", "L3 L#0", "Core L#1"}));
}

TEST(PlaceTree, LeafOrderFollowsTheListNotThePreorder) {
  // Listed places inserted under different objects: list order {2,3} first, then {0,1}.
  std::vector<raw_node> raw = {
      {no_place, cpu_set{0, 1, 2, 3}, {"Machine"}, std::nullopt},
      {0, cpu_set{0, 1}, {"Package L#0"}, std::nullopt},
      {0, cpu_set{2, 3}, {"Package L#1"}, std::nullopt},
      {2, cpu_set{2, 3}, {}, 0},
      {1, cpu_set{0, 1}, {}, 1},
  };
  const place_tree t = place_tree::build(raw);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t.cpus(0), (cpu_set{2, 3}));
  EXPECT_EQ(t.cpus(1), (cpu_set{0, 1}));
  EXPECT_EQ(t[0].objects, (std::vector<std::string>{"Package L#1"}));
  EXPECT_EQ(t.children(2), (std::vector<std::size_t>{1, 0}));  // machine order
}

TEST(PlaceTree, WorkersAttachToLeavesAndShowInTheirAncestors) {
  place_tree t = place_tree::build(two_packages());
  t.attach(0, 0);
  t.attach(2, 1);
  t.attach(0, 2);
  EXPECT_EQ(t[0].workers, (std::vector<unsigned>{0, 2}));
  EXPECT_EQ(t[2].workers, (std::vector<unsigned>{1}));
  EXPECT_EQ(t[5].workers, (std::vector<unsigned>{0, 2}));
  EXPECT_EQ(t[6].workers, (std::vector<unsigned>{1}));
  EXPECT_EQ(t[4].workers, (std::vector<unsigned>{0, 1, 2}));
  EXPECT_TRUE(t[1].workers.empty());
  EXPECT_THROW(t.attach(4, 3), std::invalid_argument);  // not a leaf
}

TEST(PlaceTree, MalformedRawTreesAreRejected) {
  EXPECT_THROW(place_tree::build({}), std::invalid_argument);
  EXPECT_THROW(place_tree::build({{0, cpu_set{0}, {}, 0}}), std::invalid_argument);  // no root
  EXPECT_THROW(place_tree::build({{no_place, cpu_set{0}, {}, std::nullopt}}), std::invalid_argument);  // no leaf
  EXPECT_THROW(place_tree::build(two_packages(), {false, false, false, false}), std::invalid_argument);
  std::vector<raw_node> dup = {{no_place, cpu_set{0, 1}, {}, std::nullopt}, {0, cpu_set{0}, {}, 0}, {0, cpu_set{1}, {}, 0}};
  EXPECT_THROW(place_tree::build(dup), std::invalid_argument);
  std::vector<raw_node> under_leaf = {{no_place, cpu_set{0, 1}, {}, 0}, {0, cpu_set{1}, {}, 1}};
  EXPECT_THROW(place_tree::build(under_leaf), std::invalid_argument);
}
