// Victim order by distance in the place tree (include/slaw/policy/place_order.hpp).
#include "slaw/policy/place_order.hpp"  // first: the header compiles on its own

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

using namespace slaw::policy;

namespace {

using list = std::vector<std::size_t>;

// The cores tree of "pack:2 l3:2 core:2": leaves 0..7 (cores), 8 machine, 9-10 packages, 11-14 L3s.
//   8 -> 9 -> 11 -> {0,1}    8 -> 10 -> 13 -> {4,5}
//        9 -> 12 -> {2,3}         10 -> 14 -> {6,7}
const std::vector<std::size_t> parent = {11, 11, 12, 12, 13, 13, 14, 14, no_parent, 8, 8, 9, 9, 10, 10};

std::vector<std::size_t> order(const std::vector<std::vector<std::size_t>>& rings, std::uint64_t random,
                               std::size_t max_probes) {
  std::vector<std::size_t> v;
  for (std::size_t w : nearest_first_order(rings, random, max_probes)) v.push_back(w);
  return v;
}

}  // namespace

TEST(PlaceOrder, DepthAndDistance) {
  EXPECT_EQ(place_depth(parent, 8), 0u);
  EXPECT_EQ(place_depth(parent, 9), 1u);
  EXPECT_EQ(place_depth(parent, 0), 3u);
  EXPECT_EQ(place_distance(parent, 0, 0), 0u);
  EXPECT_EQ(place_distance(parent, 0, 1), 2u);  // same L3
  EXPECT_EQ(place_distance(parent, 0, 2), 4u);  // same package
  EXPECT_EQ(place_distance(parent, 0, 7), 6u);  // across packages
  EXPECT_EQ(place_distance(parent, 7, 0), 6u);
  EXPECT_EQ(place_distance(parent, 0, 8), 3u);  // a leaf and the root
  EXPECT_EQ(place_distance(parent, 11, 5), 5u);
}

TEST(PlaceOrder, RingsGroupWorkersNearestFirst) {
  // Two workers per core: worker w sits on leaf w / 2.
  std::vector<std::size_t> worker_place;
  for (std::size_t w = 0; w < 16; ++w) worker_place.push_back(w / 2);
  const auto rings = victim_rings(0, worker_place, parent);
  ASSERT_EQ(rings.size(), 4u);
  EXPECT_EQ(rings[0], (list{1}));                        // the same core
  EXPECT_EQ(rings[1], (list{2, 3}));                     // the same L3
  EXPECT_EQ(rings[2], (list{4, 5, 6, 7}));               // the same package
  EXPECT_EQ(rings[3], (list{8, 9, 10, 11, 12, 13, 14, 15}));
  const auto r13 = victim_rings(13, worker_place, parent);
  EXPECT_EQ(r13[0], (list{12}));
  EXPECT_EQ(r13[1], (list{14, 15}));
  EXPECT_EQ(r13[2], (list{8, 9, 10, 11}));
  EXPECT_EQ(r13[3], (list{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(PlaceOrder, OneRoundVisitsRingsInOrderFromARandomStart) {
  std::vector<std::size_t> worker_place;
  for (std::size_t w = 0; w < 8; ++w) worker_place.push_back(w);  // one worker per core
  const auto rings = victim_rings(0, worker_place, parent);
  EXPECT_EQ(order(rings, 0, 16), (list{1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(order(rings, 1, 16), (list{1, 3, 2, 5, 6, 7, 4}));
  EXPECT_EQ(order(rings, 3, 16), (list{1, 3, 2, 7, 4, 5, 6}));
  EXPECT_EQ(order(rings, 3, 4), (list{1, 3, 2, 7}));  // the window cuts the far rings
  EXPECT_TRUE(order(rings, 3, 0).empty());
}

TEST(PlaceOrder, EveryVictimOnceAndNeverTheThief) {
  std::vector<std::size_t> worker_place;
  for (std::size_t w = 0; w < 24; ++w) worker_place.push_back(w % 8);
  for (std::size_t thief = 0; thief < 24; ++thief)
    for (std::uint64_t r : {0ull, 5ull, 977ull, ~0ull}) {
      const auto rings = victim_rings(thief, worker_place, parent);
      const list v = order(rings, r, 64);
      ASSERT_EQ(v.size(), 23u);
      EXPECT_EQ(std::set<std::size_t>(v.begin(), v.end()).size(), 23u);
      EXPECT_EQ(std::count(v.begin(), v.end(), thief), 0);
      // Distances never decrease along the round.
      for (std::size_t i = 1; i < v.size(); ++i)
        EXPECT_LE(place_distance(parent, worker_place[thief], worker_place[v[i - 1]]),
                  place_distance(parent, worker_place[thief], worker_place[v[i]]));
    }
}

TEST(PlaceOrder, AloneOrFlat) {
  EXPECT_TRUE(order(victim_rings(0, {0}, {no_parent}), 7, 16).empty());  // one worker
  // The flat deployment: one place, everyone at distance 0, one ring.
  const auto rings = victim_rings(2, {0, 0, 0, 0}, {no_parent});
  ASSERT_EQ(rings.size(), 1u);
  EXPECT_EQ(order(rings, 1, 16), (list{1, 3, 0}));
}
