// cpu_set: the CPU numbers a place or a binding names (src/places/cpu_set.hpp).
#include "places/cpu_set.hpp"  // first: the header compiles on its own

#include <gtest/gtest.h>

using slaw::places::cpu_set;

TEST(CpuSet, KeepsNumbersSortedAndUnique) {
  cpu_set s{5, 1, 3, 1, 5};
  EXPECT_EQ(s.cpus(), (std::vector<unsigned>{1, 3, 5}));
  s.insert(0);
  s.insert(3);
  s.erase(5);
  s.erase(42);  // absent: nothing happens
  EXPECT_EQ(s.cpus(), (std::vector<unsigned>{0, 1, 3}));
  EXPECT_EQ(s.size(), 3u);
  EXPECT_EQ(s.first(), 0u);
  EXPECT_TRUE(s.contains(1));
  EXPECT_FALSE(s.contains(2));
}

TEST(CpuSet, CpulistFormCompressesRuns) {
  EXPECT_EQ(cpu_set{}.to_string(), "");
  EXPECT_EQ((cpu_set{7}).to_string(), "7");
  EXPECT_EQ((cpu_set{0, 1}).to_string(), "0-1");
  EXPECT_EQ((cpu_set{0, 1, 2, 3, 8, 10, 11}).to_string(), "0-3,8,10-11");
  EXPECT_EQ(cpu_set::range(4, 4).to_string(), "4-7");
  EXPECT_EQ(cpu_set::range(4, 0).to_string(), "");
}

TEST(CpuSet, UnionDifferenceSubset) {
  const cpu_set a{0, 1, 2, 3}, b{2, 3, 4};
  EXPECT_EQ(set_union(a, b), (cpu_set{0, 1, 2, 3, 4}));
  EXPECT_EQ(set_difference(a, b), (cpu_set{0, 1}));
  EXPECT_EQ(set_difference(b, a), (cpu_set{4}));
  EXPECT_TRUE((cpu_set{1, 2}).subset_of(a));
  EXPECT_FALSE(b.subset_of(a));
  EXPECT_TRUE(cpu_set{}.subset_of(a));
  cpu_set c = a;
  c.erase_all(b);
  c.insert_all(cpu_set{9});
  EXPECT_EQ(c, (cpu_set{0, 1, 9}));
}
