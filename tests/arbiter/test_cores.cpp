// The cores the arbiter manages by default: the affinity mask capped by the cgroup v2 cpu.max of the
// process's cgroup and every ancestor, on cgroup trees made up in a temporary directory.
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "arbiter/cores.hpp"

namespace arb = slaw::arbiter;
namespace fs = std::filesystem;

TEST(ArbiterCores, ParsesCpuMax) {
  EXPECT_FALSE(arb::parse_cpu_max("max 100000\n"));
  EXPECT_FALSE(arb::parse_cpu_max("max"));
  EXPECT_EQ(arb::parse_cpu_max("200000 100000\n"), 2.0);
  EXPECT_EQ(arb::parse_cpu_max("150000 100000"), 1.5);
  EXPECT_EQ(arb::parse_cpu_max("50000"), 0.5);  // the default period
  EXPECT_FALSE(arb::parse_cpu_max(""));
  EXPECT_FALSE(arb::parse_cpu_max("lots 100000"));
  EXPECT_FALSE(arb::parse_cpu_max("0 100000"));
  EXPECT_FALSE(arb::parse_cpu_max("100000 0"));
}

TEST(ArbiterCores, FindsTheCgroupV2Path) {
  EXPECT_EQ(arb::cgroup2_path("0::/user.slice/user-1000.slice/session-2.scope\n"),
            "/user.slice/user-1000.slice/session-2.scope");
  // A hybrid machine lists the v1 hierarchies too; only "0::" is v2.
  EXPECT_EQ(arb::cgroup2_path("4:memory:/x\n1:cpu:/\n0::/\n"), "/");
  EXPECT_FALSE(arb::cgroup2_path("4:memory:/x\n1:cpu:/\n"));
  EXPECT_FALSE(arb::cgroup2_path(""));
}

TEST(ArbiterCores, FindsTheCgroupV2Mount) {
  const char* info =
      "22 28 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:13 - proc proc rw\n"
      "26 25 0:24 / /sys/fs/cgroup/cpu rw,nosuid shared:6 - cgroup cgroup rw,cpu\n"
      "27 25 0:25 /docker/abc /sys/fs/cgroup/my\\040tree rw,nosuid shared:7 - cgroup2 cgroup2 rw,nsdelegate\n";
  const auto m = arb::find_cgroup2_mount(info);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->root, "/docker/abc");
  EXPECT_EQ(m->point, "/sys/fs/cgroup/my tree");
  EXPECT_FALSE(arb::find_cgroup2_mount("22 28 0:21 / /proc rw - proc proc rw\n"));
}

namespace {
struct temp_tree {
  fs::path root;
  temp_tree() {
    root = fs::temp_directory_path() / ("slaw-cgroup-test-" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::create_directories(root);
  }
  ~temp_tree() { fs::remove_all(root); }
  void cpu_max(const std::string& dir, const std::string& text) {
    fs::create_directories(root / dir);
    std::ofstream(root / dir / "cpu.max") << text;
  }
};
}  // namespace

TEST(ArbiterCores, TheSmallestLimitOfTheCgroupAndItsAncestors) {
  temp_tree t;
  const std::string top = t.root.string();
  t.cpu_max("a", "400000 100000\n");
  t.cpu_max("a/b", "max 100000\n");
  t.cpu_max("a/b/c", "300000 100000\n");
  fs::create_directories(t.root / "a/b/c/d");  // no cpu.max of its own
  EXPECT_EQ(arb::cgroup_cpu_limit(top, "/a/b/c/d"), 3.0);
  EXPECT_EQ(arb::cgroup_cpu_limit(top, "/a/b/c"), 3.0);
  EXPECT_EQ(arb::cgroup_cpu_limit(top, "/a/b"), 4.0);  // "max" is no cap: the parent's 4 holds
  EXPECT_EQ(arb::cgroup_cpu_limit(top, "/a"), 4.0);
  EXPECT_FALSE(arb::cgroup_cpu_limit(top, ""));        // the root has no cpu.max
  EXPECT_FALSE(arb::cgroup_cpu_limit(top, "/missing/dir"));
  t.cpu_max("a/b", "200000 100000\n");  // an ancestor tighter than the cgroup itself
  EXPECT_EQ(arb::cgroup_cpu_limit(top, "/a/b/c/d"), 2.0);
}

TEST(ArbiterCores, AContainerLimitedTo2CpusOnA64CoreHostManages2) {
  EXPECT_EQ(arb::cores_from(64, 2.0), 2u);
  EXPECT_EQ(arb::cores_from(64, 1.5), 2u);  // ⌈1.5⌉
  EXPECT_EQ(arb::cores_from(64, 0.25), 1u);
  EXPECT_EQ(arb::cores_from(4, 8.0), 4u);   // the affinity mask is smaller
  EXPECT_EQ(arb::cores_from(64, std::nullopt), 64u);
  EXPECT_EQ(arb::cores_from(0, std::nullopt), 1u);
}

TEST(ArbiterCores, AffinityMaskAndThisMachine) {
  const unsigned all = arb::affinity_cpu_count();
  EXPECT_GE(all, 1u);
  const unsigned d = arb::default_cores();
  EXPECT_GE(d, 1u);
  EXPECT_LE(d, all);
  // A thread bound to one CPU sees one (sched_getaffinity reads the calling thread's mask).
  unsigned one = 0;
  std::thread th([&] {
    cpu_set_t set;
    CPU_ZERO(&set);
    sched_getaffinity(0, sizeof set, &set);
    int first = 0;
    while (first < CPU_SETSIZE && !CPU_ISSET(first, &set)) ++first;
    CPU_ZERO(&set);
    CPU_SET(first, &set);
    if (sched_setaffinity(0, sizeof set, &set) == 0) one = arb::affinity_cpu_count();
    else one = 1;
  });
  th.join();
  EXPECT_EQ(one, 1u);
}
