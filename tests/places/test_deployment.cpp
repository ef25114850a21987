// Deployments resolved on hwloc synthetic topologies (src/places/deployment.hpp): workers per place,
// close vs spread, counts, pruning, binding sets, the deployment file, and every error.
#include "places/deployment.hpp"  // first: the header compiles on its own

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "slaw/config.hpp"

using namespace slaw::places;

namespace {

constexpr const char* machine16 = "pack:2 l3:2 core:4 pu:2";  // 16 cores, 32 CPUs

topology_source synthetic(std::string desc, std::optional<cpu_set> usable = std::nullopt) {
  return [desc, usable] { return machine_topology::load_synthetic(desc, usable ? &*usable : nullptr); };
}

settings with(const std::string& places, const std::string& bind = "", unsigned workers = 0) {
  settings s;
  s.places = places;
  s.bind = bind;
  s.workers = workers;
  return s;
}

// What every deployment must satisfy: each worker on a leaf, listed there and in every ancestor, bound
// (if at all) inside its leaf's CPUs; every leaf has a worker.
void check_invariants(const deployment& d) {
  const place_tree& t = d.tree;
  for (std::size_t w = 0; w < d.workers.size(); ++w) {
    const auto& wp = d.workers[w];
    ASSERT_LT(wp.place, t.leaf_count());
    for (std::size_t p = wp.place; p != no_place; p = t.parent(p)) {
      const auto& ws = t[p].workers;
      EXPECT_TRUE(std::binary_search(ws.begin(), ws.end(), static_cast<unsigned>(w))) << "worker " << w << " place " << p;
    }
    EXPECT_EQ(wp.bind.empty(), d.binding == binding_kind::none);
    if (d.binding == binding_kind::close || d.binding == binding_kind::spread) {
      EXPECT_EQ(wp.bind, t.cpus(wp.place));
    }
    EXPECT_TRUE(wp.bind.subset_of(t.cpus(wp.place)));
  }
  for (std::size_t leaf = 0; leaf < t.leaf_count(); ++leaf) EXPECT_FALSE(t[leaf].workers.empty()) << "leaf " << leaf;
  EXPECT_EQ(t[t.root()].workers.size(), d.workers.size());
}

std::string error_of(const settings& s, const topology_source& src) {
  try {
    resolve(s, src);
  } catch (const slaw::config_error& e) {
    return e.what();
  }
  return "(no error)";
}

std::vector<std::size_t> places_of(const deployment& d) {
  std::vector<std::size_t> v;
  for (const auto& w : d.workers) v.push_back(w.place);
  return v;
}

struct temp_file {
  std::string path;
  explicit temp_file(const std::string& text) {
    char p[] = "/tmp/slaw_deployment_XXXXXX";
    const int fd = mkstemp(p);
    if (fd >= 0) close(fd);
    path = p;
    std::ofstream(path) << text;
  }
  ~temp_file() { std::remove(path.c_str()); }
};

using list = std::vector<std::size_t>;

}  // namespace

TEST(Assign, CloseAndSpreadAsOpenMP) {
  EXPECT_EQ(assign_close(3, 8), (list{0, 1, 2}));
  EXPECT_EQ(assign_close(8, 8), (list{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(assign_close(7, 3), (list{0, 0, 0, 1, 1, 2, 2}));  // the first place gets the extra one
  EXPECT_EQ(assign_close(6, 3), (list{0, 0, 1, 1, 2, 2}));
  EXPECT_EQ(assign_spread(2, 8), (list{0, 4}));
  EXPECT_EQ(assign_spread(3, 8), (list{0, 2, 5}));
  EXPECT_EQ(assign_spread(4, 16), (list{0, 4, 8, 12}));
  EXPECT_EQ(assign_spread(8, 8), assign_close(8, 8));
  EXPECT_EQ(assign_spread(7, 3), assign_close(7, 3));  // more workers than places: as close
  EXPECT_TRUE(assign_close(0, 4).empty());
}

TEST(Deployment, FlatByDefaultWithoutReadingTheMachine) {
  const topology_source must_not_load = []() -> std::shared_ptr<const machine_topology> {
    throw std::logic_error("the flat unbound deployment loaded the topology");
  };
  const deployment d = resolve(settings{}, must_not_load);
  EXPECT_EQ(d.tree.size(), 1u);
  EXPECT_EQ(d.workers.size(), std::max(1u, std::thread::hardware_concurrency()));  // as before places
  EXPECT_EQ(d.binding, binding_kind::none);
  EXPECT_EQ(d.topology, nullptr);
  EXPECT_FALSE(d.tree.cpus(0).empty());  // this thread's affinity, shown only
  EXPECT_EQ(d.source, "flat (SLAW_PLACES unset)");
  check_invariants(d);
  const deployment three = resolve(with("flat", "false", 3), must_not_load);
  EXPECT_EQ(three.workers.size(), 3u);
  EXPECT_EQ(three.tree[0].workers, (std::vector<unsigned>{0, 1, 2}));
  check_invariants(three);
}

TEST(Deployment, FlatAndBoundBindsToTheWholeMachine) {
  const deployment d = resolve(with("", "close"), synthetic("pack:1 core:8 pu:1"));
  EXPECT_EQ(d.tree.size(), 1u);
  EXPECT_EQ(d.workers.size(), 8u);
  EXPECT_EQ(d.binding, binding_kind::close);
  EXPECT_EQ(d.workers[3].bind, cpu_set::range(0, 8));
  ASSERT_EQ(d.warnings.size(), 1u);
  EXPECT_NE(d.warnings[0].find("binds every worker to all 8 usable CPUs"), std::string::npos);
  check_invariants(d);
  EXPECT_NE(error_of(with("flat", "true", 9), synthetic("pack:1 core:8 pu:1"))
                .find("SLAW_BIND='true' with 9 workers: the flat place has 8 CPUs (0-7)"),
            std::string::npos);
}

TEST(Deployment, CoresDefaultOneWorkerPerCpu) {
  const deployment d = resolve(with("cores"), synthetic(machine16));
  EXPECT_EQ(d.tree.leaf_count(), 16u);
  ASSERT_EQ(d.workers.size(), 32u);  // 2 CPUs per core
  EXPECT_EQ(d.binding, binding_kind::none);
  EXPECT_EQ(d.workers[0].place, 0u);
  EXPECT_EQ(d.workers[1].place, 0u);
  EXPECT_EQ(d.workers[31].place, 15u);
  EXPECT_EQ(d.source, "SLAW_PLACES=cores");
  EXPECT_TRUE(d.warnings.empty());
  check_invariants(d);
}

// The default is capped at the runtime's limit of max_workers, with a warning, and the workers then go to
// the places as SLAW_WORKERS=4096 would put them: 1024 overlapping places of 8 CPUs gave 8192 workers,
// 4096 places of 256 CPUs 2^20.
TEST(Deployment, DefaultWorkersAreCappedAtTheRuntimesLimit) {
  const char* machine256 = "pack:2 core:64 pu:2";
  for (const char* places : {"{0:8}:1024:0", "{0:256}:4096:0"}) {
    SCOPED_TRACE(places);
    const deployment d = resolve(with(places), synthetic(machine256));
    EXPECT_EQ(d.workers.size(), std::size_t{max_workers});
    check_invariants(d);
    bool warned = false;
    for (const std::string& w : d.warnings) warned |= w.find("capped at 4096") != std::string::npos;
    EXPECT_TRUE(warned) << (d.warnings.empty() ? "no warning" : d.warnings[0]);
  }
  const deployment close = resolve(with("{0:8}:1024:0"), synthetic(machine256));
  EXPECT_EQ(close.workers[0].place, 0u);  // close: 4 workers per place, as SLAW_WORKERS=4096 gives
  EXPECT_EQ(close.workers[4].place, 1u);
  // At the limit, and with the count given, nothing is capped.
  for (const deployment& d : {resolve(with("threads"), synthetic("pack:2 l3:2 core:256 pu:4")),
                              resolve(with("{0:8}:1024:0", "", 4096), synthetic(machine256))}) {
    EXPECT_EQ(d.workers.size(), 4096u);
    for (const std::string& w : d.warnings) EXPECT_EQ(w.find("capped"), std::string::npos) << w;
  }
}

TEST(Deployment, CloseBindsConsecutiveWorkersToConsecutivePlaces) {
  const deployment d = resolve(with("cores", "close", 16), synthetic(machine16));
  ASSERT_EQ(d.workers.size(), 16u);
  EXPECT_EQ(d.binding, binding_kind::close);
  for (unsigned w = 0; w < 16; ++w) {
    EXPECT_EQ(d.workers[w].place, w);
    EXPECT_EQ(d.workers[w].bind, cpu_set::range(2 * w, 2));
  }
  check_invariants(d);
  // 48 unbound workers on 16 cores: 3 each.
  const deployment over = resolve(with("cores", "", 48), synthetic(machine16));
  EXPECT_EQ(over.tree[5].workers, (std::vector<unsigned>{15, 16, 17}));
  check_invariants(over);
}

TEST(Deployment, FewerWorkersThanPlacesLeavesPlacesOut) {
  // close: the first 4 cores, all under the first L3, which becomes the root.
  const deployment c = resolve(with("cores", "close", 4), synthetic(machine16));
  EXPECT_EQ(c.tree.leaf_count(), 4u);
  EXPECT_EQ(c.tree.size(), 5u);
  EXPECT_EQ(c.tree.cpus(c.tree.root()), cpu_set::range(0, 8));
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("12 of its 16 places get no worker (4 workers, close)"), std::string::npos);
  check_invariants(c);
  // spread: one core per L3, the tree keeps the packages.
  const deployment s = resolve(with("cores", "spread", 4), synthetic(machine16));
  ASSERT_EQ(s.tree.leaf_count(), 4u);
  EXPECT_EQ(s.tree.size(), 7u);
  EXPECT_EQ(s.workers[0].bind, (cpu_set{0, 1}));
  EXPECT_EQ(s.workers[1].bind, (cpu_set{8, 9}));
  EXPECT_EQ(s.workers[2].bind, (cpu_set{16, 17}));
  EXPECT_EQ(s.workers[3].bind, (cpu_set{24, 25}));
  EXPECT_EQ(s.tree.distance(0, 1), 2u);  // same package
  EXPECT_EQ(s.tree.distance(0, 2), 4u);
  check_invariants(s);
  // Two workers spread over two packages.
  const deployment two = resolve(with("threads", "spread", 2), synthetic(machine16));
  EXPECT_EQ(two.workers[0].bind, cpu_set{0});
  EXPECT_EQ(two.workers[1].bind, cpu_set{16});
  EXPECT_EQ(two.tree.size(), 3u);
  check_invariants(two);
}

TEST(Deployment, MoreBoundWorkersThanCpusIsAnError) {
  const std::string e = error_of(with("cores", "close", 40), synthetic(machine16));
  EXPECT_NE(e.find("SLAW_BIND='close' with SLAW_PLACES='cores' and 40 workers: place 0 {0-1} would get 3 workers but "
                   "has 2 CPUs"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("give at most 32 workers"), std::string::npos) << e;
  // Unbound, the same is allowed.
  EXPECT_EQ(resolve(with("cores", "false", 40), synthetic(machine16)).workers.size(), 40u);
  // Uneven places: {0} cannot take 2 of 4 close workers.
  const std::string u = error_of(with("{0},{1,2,3}", "close", 4), synthetic(machine16));
  EXPECT_NE(u.find("place 0 {0} would get 2 workers but has 1 CPU,"), std::string::npos) << u;
  EXPECT_NE(u.find("give at most 2 workers"), std::string::npos) << u;
  // The default count fills each place with one worker per CPU instead.
  const deployment fit = resolve(with("{0},{1,2,3}", "close"), synthetic(machine16));
  EXPECT_EQ(places_of(fit), (list{0, 1, 1, 1}));
  check_invariants(fit);
}

TEST(Deployment, AbstractNamesWithACount) {
  const deployment d = resolve(with("cores(4)", "true"), synthetic(machine16));
  EXPECT_EQ(d.tree.leaf_count(), 4u);
  EXPECT_EQ(d.workers.size(), 8u);
  EXPECT_EQ(d.binding, binding_kind::close);  // true binds as close
  check_invariants(d);
  const deployment l3 = resolve(with("ll_caches"), synthetic(machine16));
  EXPECT_EQ(l3.tree.leaf_count(), 4u);
  EXPECT_EQ(l3.workers.size(), 32u);
  const std::string e = error_of(with("cores(20)"), synthetic(machine16));
  EXPECT_NE(e.find("SLAW_PLACES='cores(20)': this process can use 16 cores (CPUs 0-31), fewer than the 20 asked"),
            std::string::npos)
      << e;
  const std::string nc = error_of(with("ll_caches"), synthetic("pack:2 core:2 pu:1"));
  EXPECT_NE(nc.find("SLAW_PLACES='ll_caches': hwloc reports no ll_caches on this machine"), std::string::npos) << nc;
}

TEST(Deployment, ExplicitListsAndTheUsableCpus) {
  const deployment d = resolve(with("{0:4},{4:4}", "close"), synthetic(machine16));
  ASSERT_EQ(d.workers.size(), 8u);
  EXPECT_EQ(places_of(d), (list{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(d.workers[5].bind, cpu_set::range(4, 4));
  EXPECT_EQ(d.tree.size(), 3u);  // both under the first L3, which is the root
  check_invariants(d);
  const std::string e = error_of(with("{0:4},{40:2}"), synthetic(machine16));
  EXPECT_NE(e.find("SLAW_PLACES='{0:4},{40:2}': place 1 {40-41}: CPUs 40-41 are not usable by this process"),
            std::string::npos)
      << e;
  // A process allowed only the first L3: CPUs beyond it are refused, by name.
  const std::string r = error_of(with("{0:16}"), synthetic(machine16, cpu_set::range(0, 8)));
  EXPECT_NE(r.find("CPUs 8-15 are not usable by this process (its usable CPUs, from its affinity mask and cgroup "
                   "cpuset, are 0-7)"),
            std::string::npos)
      << r;
  const deployment within = resolve(with("threads"), synthetic(machine16, cpu_set::range(0, 8)));
  EXPECT_EQ(within.tree.leaf_count(), 8u);
  EXPECT_EQ(within.workers.size(), 8u);
}

TEST(Deployment, AnUnreadableTopologyIsAnError) {
  const topology_source broken = []() -> std::shared_ptr<const machine_topology> {
    throw std::runtime_error("hwloc_topology_load failed: Permission denied");
  };
  const std::string e = error_of(with("cores"), broken);
  EXPECT_NE(e.find("SLAW_PLACES='cores': this machine's topology cannot be read with hwloc (hwloc_topology_load "
                   "failed: Permission denied)"),
            std::string::npos)
      << e;
  EXPECT_NE(error_of(with("", "spread"), broken).find("SLAW_BIND='spread': this machine's topology cannot be read"),
            std::string::npos);
}

TEST(Deployment, ThePapersDeploymentFile) {
  // 4 packages of 4 cores, core pairs sharing an L2, numbered as the paper's Xeon: L2 pairs
  // {0,4} {8,12} in package 0, {1,5} {9,13} in package 1, ...
  const auto xeon = synthetic("pack:4 l2:2 core:2 pu:1(indexes=0,4,8,12,1,5,9,13,2,6,10,14,3,7,11,15)");
  std::string text = "16 8\n";
  const char* cpus[] = {"0 4", "8 12", "1 5", "9 13", "2 6", "10 14", "3 7", "11 15"};
  for (int w = 0; w < 16; ++w) text += std::to_string(w) + " @ " + std::to_string(w / 2) + " -> " + cpus[w / 2] + "\n";
  temp_file f(text);
  settings s;
  s.deployment_file = f.path;
  const deployment d = resolve(s, xeon);
  EXPECT_EQ(d.binding, binding_kind::file);
  ASSERT_EQ(d.tree.leaf_count(), 8u);
  ASSERT_EQ(d.workers.size(), 16u);
  EXPECT_EQ(d.workers[2].place, 1u);
  EXPECT_EQ(d.workers[2].bind, (cpu_set{8, 12}));
  EXPECT_EQ(d.tree.cpus(1), (cpu_set{8, 12}));
  EXPECT_EQ(d.tree[1].objects, (std::vector<std::string>{"L2 L#1"}));
  EXPECT_EQ(d.tree.distance(0, 1), 2u);  // the same package
  EXPECT_EQ(d.tree.distance(0, 2), 4u);  // another package
  EXPECT_EQ(d.tree.size(), 8u + 1 + 4);
  check_invariants(d);

  s.bind = "false";
  const deployment unbound = resolve(s, xeon);
  EXPECT_EQ(unbound.binding, binding_kind::none);
  EXPECT_EQ(unbound.tree.cpus(1), (cpu_set{8, 12}));
  check_invariants(unbound);

  s.bind = "";
  s.workers = 8;
  EXPECT_NE(error_of(s, xeon).find("declares 16 workers"), std::string::npos);

  temp_file outside("2 1\n0 @ 0 -> 0\n1 @ 0 -> 99\n");
  settings o;
  o.deployment_file = outside.path;
  const std::string e = error_of(o, xeon);
  EXPECT_NE(e.find("SLAW_DEPLOYMENT=" + outside.path + ":3: worker 1: CPU 99 is not usable by this process"),
            std::string::npos)
      << e;
}
