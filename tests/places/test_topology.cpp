// Place trees from hwloc synthetic topologies (src/places/topology.hpp): many-core machines on any
// host. Levels, collapsing, leaf counts, CPU sets, distances, restriction to the usable CPUs.
#include "places/topology.hpp"  // first: the header compiles on its own

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "../support/input_guard.hpp"

using namespace slaw::places;

namespace {

// 2 packages x 2 L3 x 4 cores x 2 hardware threads: 16 cores, 32 CPUs.
constexpr const char* two_l3_per_package = "pack:2 l3:2 core:4 pu:2";

place_tree tree_of(std::string_view synthetic, abstract_name level, const cpu_set* usable = nullptr) {
  return place_tree::build(machine_topology::load_synthetic(synthetic, usable)->unit_tree(level));
}

std::size_t count_internal_at_depth(const place_tree& t, std::size_t depth) {
  std::size_t n = 0;
  for (const place& p : t.places()) n += !p.is_leaf() && p.depth == depth;
  return n;
}

}  // namespace

TEST(Topology, SyntheticMachineIsAllUsable) {
  auto t = machine_topology::load_synthetic(two_l3_per_package);
  EXPECT_EQ(t->usable(), cpu_set::range(0, 32));
  EXPECT_FALSE(t->is_this_system());
  EXPECT_NE(t->description().find("synthetic 'pack:2 l3:2 core:4 pu:2'"), std::string::npos);
}

TEST(Topology, CoresTree) {
  const place_tree t = tree_of(two_l3_per_package, abstract_name::cores);
  // 16 core leaves, then the machine, 2 packages, 4 L3 caches.
  ASSERT_EQ(t.leaf_count(), 16u);
  ASSERT_EQ(t.size(), 23u);
  EXPECT_EQ(t.root(), 16u);
  EXPECT_EQ(t[t.root()].objects, (std::vector<std::string>{"Machine", "NUMANode L#0"}));
  EXPECT_EQ(t.children(t.root()).size(), 2u);
  EXPECT_EQ(count_internal_at_depth(t, 1), 2u);  // packages
  EXPECT_EQ(count_internal_at_depth(t, 2), 4u);  // L3 caches
  for (std::size_t i = 0; i < 16; ++i) {
    EXPECT_EQ(t.depth(i), 3u);
    EXPECT_EQ(t.cpus(i), cpu_set::range(2 * static_cast<unsigned>(i), 2));  // a core's two hardware threads
    EXPECT_EQ(t[i].objects, (std::vector<std::string>{"Core L#" + std::to_string(i)}));
  }
  EXPECT_EQ(t[t.parent(0)].objects, (std::vector<std::string>{"L3 L#0"}));
  EXPECT_EQ(t.cpus(t.parent(0)), cpu_set::range(0, 8));
  EXPECT_EQ(t.cpus(t.parent(t.parent(0))), cpu_set::range(0, 16));
  // Same L3, same package, other package.
  EXPECT_EQ(t.distance(0, 3), 2u);
  EXPECT_EQ(t.distance(0, 4), 4u);
  EXPECT_EQ(t.distance(0, 8), 6u);
  EXPECT_EQ(t.distance(15, 8), 4u);
}

TEST(Topology, ThreadsAndTreeGoDownToHardwareThreads) {
  for (abstract_name level : {abstract_name::threads, abstract_name::tree}) {
    const place_tree t = tree_of(two_l3_per_package, level);
    ASSERT_EQ(t.leaf_count(), 32u);
    ASSERT_EQ(t.size(), 32u + 1 + 2 + 4 + 16);
    for (std::size_t i = 0; i < 32; ++i) {
      EXPECT_EQ(t.cpus(i), cpu_set{static_cast<unsigned>(i)});
      EXPECT_EQ(t.depth(i), 4u);
    }
    EXPECT_EQ(t.distance(0, 1), 2u);  // the same core
    EXPECT_EQ(t.distance(0, 2), 4u);  // the same L3
    EXPECT_EQ(t.distance(0, 31), 8u);
  }
}

TEST(Topology, LastLevelCachesSocketsAndNuma) {
  const place_tree l3 = tree_of(two_l3_per_package, abstract_name::ll_caches);
  ASSERT_EQ(l3.leaf_count(), 4u);
  ASSERT_EQ(l3.size(), 7u);
  EXPECT_EQ(l3.cpus(1), cpu_set::range(8, 8));
  EXPECT_EQ(l3[1].objects, (std::vector<std::string>{"L3 L#1"}));

  const place_tree pack = tree_of(two_l3_per_package, abstract_name::sockets);
  ASSERT_EQ(pack.leaf_count(), 2u);
  ASSERT_EQ(pack.size(), 3u);
  EXPECT_EQ(pack.cpus(0), cpu_set::range(0, 16));

  // One NUMA node for the whole machine: one place.
  const place_tree numa = tree_of(two_l3_per_package, abstract_name::numa_domains);
  ASSERT_EQ(numa.size(), 1u);
  EXPECT_EQ(numa.cpus(0), cpu_set::range(0, 32));

  // A NUMA node per L3: the objects that carry them are the units, named with them.
  const place_tree n4 = tree_of("pack:2 numa:2 l3:1 core:4 pu:1", abstract_name::numa_domains);
  ASSERT_EQ(n4.leaf_count(), 4u);
  ASSERT_EQ(n4.size(), 7u);
  EXPECT_EQ(n4.cpus(2), cpu_set::range(8, 4));
  EXPECT_EQ(n4[2].objects, (std::vector<std::string>{"L3 L#2", "NUMANode L#2"}));
  EXPECT_EQ(n4.distance(0, 1), 2u);
  EXPECT_EQ(n4.distance(0, 2), 4u);
}

TEST(Topology, SixtyFourCores) {
  const place_tree t = tree_of("pack:4 l3:2 core:8 pu:1", abstract_name::cores);
  // Cores with one hardware thread: core and PU are one place.
  ASSERT_EQ(t.leaf_count(), 64u);
  ASSERT_EQ(t.size(), 64u + 1 + 4 + 8);
  EXPECT_EQ(t[63].objects, (std::vector<std::string>{"Core L#63"}));
  EXPECT_EQ(t.cpus(63), cpu_set{63});
  const place_tree threads = tree_of("pack:4 l3:2 core:8 pu:1", abstract_name::threads);
  ASSERT_EQ(threads.size(), t.size());  // the PU level collapses into the cores
  EXPECT_EQ(threads[5].objects, (std::vector<std::string>{"Core L#5", "PU L#5"}));
}

TEST(Topology, SingleChildLevelsCollapse) {
  // One package, one L3: the machine, the package (with the NUMA node) and the cache are one place.
  const place_tree t = tree_of("pack:1 l3:1 core:4 pu:1", abstract_name::cores);
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t[t.root()].objects, (std::vector<std::string>{"Machine", "Package L#0", "NUMANode L#0", "L3 L#0"}));
  EXPECT_EQ(t.depth(0), 1u);
  // A machine with one core and one thread is one place.
  const place_tree one = tree_of("pack:1 core:1 pu:1", abstract_name::threads);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_TRUE(one.is_leaf(0));
}

TEST(Topology, RestrictedToTheUsableCpus) {
  // Only the first L3's CPUs: the tree is that cache's.
  const cpu_set first_l3 = cpu_set::range(0, 8);
  const place_tree t = tree_of(two_l3_per_package, abstract_name::cores, &first_l3);
  ASSERT_EQ(t.leaf_count(), 4u);
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t.cpus(t.root()), first_l3);
  // One hardware thread of core 0 and one of core 8 (another package): the cores shrink to them.
  const cpu_set two{0, 16};
  auto topo = machine_topology::load_synthetic(two_l3_per_package, &two);
  EXPECT_EQ(topo->usable(), two);
  const place_tree u = place_tree::build(topo->unit_tree(abstract_name::cores));
  ASSERT_EQ(u.leaf_count(), 2u);
  ASSERT_EQ(u.size(), 3u);
  EXPECT_EQ(u.cpus(0), cpu_set{0});
  EXPECT_EQ(u.cpus(1), cpu_set{16});
  // hwloc numbers the objects that remain afresh: core 8 is the second core left.
  EXPECT_EQ(u[1].objects, (std::vector<std::string>{"Package L#1", "L3 L#1", "Core L#1"}));
  const cpu_set absent{40};
  EXPECT_THROW(machine_topology::load_synthetic(two_l3_per_package, &absent), std::invalid_argument);
}

TEST(Topology, OsNumbersAreTheCpuNumbers) {
  // Hyper-threads numbered apart, as Intel machines do: core 0 holds CPUs 0 and 4.
  auto t = machine_topology::load_synthetic("pack:1 core:4 pu:2(indexes=0,4,1,5,2,6,3,7)");
  const place_tree cores = place_tree::build(t->unit_tree(abstract_name::cores));
  ASSERT_EQ(cores.leaf_count(), 4u);
  EXPECT_EQ(cores.cpus(0), (cpu_set{0, 4}));
  EXPECT_EQ(cores.cpus(3), (cpu_set{3, 7}));
  const place_tree threads = place_tree::build(t->unit_tree(abstract_name::threads));
  EXPECT_EQ(threads.cpus(1), cpu_set{4});  // hwloc's logical order: the second thread of core 0
  EXPECT_EQ(threads.distance(0, 1), 2u);
}

TEST(Topology, ExplicitPlacesGoUnderTheInnermostObjectContainingThem) {
  auto t = machine_topology::load_synthetic(two_l3_per_package);
  // A core, half an L3, a whole L3, CPUs of both packages.
  const std::vector<cpu_set> list = {cpu_set{0, 1}, cpu_set::range(8, 4), cpu_set::range(16, 8), cpu_set{0, 31}};
  const place_tree p = place_tree::build(t->list_tree(list));
  ASSERT_EQ(p.leaf_count(), 4u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(p.cpus(i), list[i]);
  // Alone under L3 0, the core it equals merges with the cache.
  EXPECT_EQ(p[0].objects, (std::vector<std::string>{"L3 L#0", "Core L#0"}));
  EXPECT_EQ(p[1].objects, (std::vector<std::string>{"L3 L#1"}));
  EXPECT_EQ(p[2].objects, (std::vector<std::string>{"Package L#1", "L3 L#2"}));
  EXPECT_TRUE(p[3].objects.empty());
  EXPECT_EQ(p.parent(3), p.root());  // spans both packages
  EXPECT_EQ(p.distance(0, 1), 2u);   // both in package 0
  EXPECT_EQ(p.distance(0, 2), 3u);   // package 1's place hangs from the root
  EXPECT_THROW(t->list_tree({cpu_set{32}}), std::invalid_argument);
}

TEST(Topology, BadSyntheticDescriptionsAreRejected) {
  EXPECT_THROW(machine_topology::load_synthetic("pack:two"), std::invalid_argument);
}

// A synthetic machine is measured before hwloc builds it (docs/design/places.md): at most max_synthetic_pus
// PUs and max_synthetic_objects objects, PU indexes up to max_cpu. 10^9 PUs ran for hours before.
TEST(Topology, SyntheticMachinesAreBoundedBeforeHwlocBuildsThem) {
  const slaw_test::watchdog dog("Topology.SyntheticMachinesAreBounded", "hwloc building a huge machine", 60);
  const slaw_test::address_space_limit limit(std::size_t{512} << 20);
  struct bad {
    std::string description;
    const char* message;
  };
  std::string attached = "pack:2 core:2048";  // 16 NUMA nodes at each of 4096 cores
  for (int i = 0; i < 16; ++i) attached += " [numa]";
  attached += " pu:1";
  std::string deep = "pack:4096";  // 4096 objects on each of 17 levels
  for (int i = 0; i < 15; ++i) deep += " group:1";
  deep += " pu:1";
  const bad cases[] = {
      {"pack:1000 core:1000 pu:1000", "at least 1000000 PUs"},
      {"pu:1000000000", "at least 1000000000 PUs"},
      {"pack:2 core:2049 pu:1", "at least 4098 PUs"},
      {"pack:2 core:2048 pu:2", "at least 8192 PUs"},
      {"(memory=1GB) pack:4 core:4096 pu:1", "at least 16384 PUs"},
      {"pack:2 core:2(indexes=0,4000000000) pu:1", "index 4000000000"},
      {"pack:1 core:4 pu:2(indexes=0,1,2,3,4,5,6,70000)", "index 70000"},
      {attached, "objects"},
      {deep, "objects"},
      {"pack:-1 pu:2", "plain count"},
      {std::string(70000, ' ') + "pu:2", "characters"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.description.substr(0, 80));
    try {
      machine_topology::load_synthetic(c.description);
      ADD_FAILURE() << "no error";
    } catch (const std::invalid_argument& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(c.message), std::string::npos) << m.substr(0, 300);
      EXPECT_NE(m.find("at most 4096 PUs"), std::string::npos) << m.substr(0, 300);
    }
  }
  // At the limit, in decimal and in hex (hwloc reads counts as strtoul(…, 0) does).
  EXPECT_EQ(machine_topology::load_synthetic("pack:2 l3:2 core:256 pu:4")->usable().size(), 4096u);
  EXPECT_EQ(machine_topology::load_synthetic("pack:0x10 core:0x80 pu:2")->usable().size(), 4096u);
  EXPECT_EQ(synthetic_size("pack:2 l3:2 core:4 pu:2").pus, 32u);
  EXPECT_EQ(synthetic_size("pack:2 l3:2 core:4 pu:2").objects, 1u + 2 + 4 + 16 + 32);
  EXPECT_EQ(synthetic_size("pack:2 [numa] core:4 pu:2(indexes=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15)").pus, 16u);
}

TEST(Topology, ThisMachineLoads) {
  auto t = machine_topology::load_system();
  EXPECT_TRUE(t->is_this_system());
  EXPECT_FALSE(t->usable().empty());
  for (abstract_name level : {abstract_name::threads, abstract_name::cores, abstract_name::sockets}) {
    const place_tree tree = place_tree::build(t->unit_tree(level));
    EXPECT_EQ(tree.cpus(tree.root()), t->usable());
  }
}
