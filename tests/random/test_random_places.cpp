// Randomized async/finish programs with place clauses (slaw::at) on synthetic machines larger than this
// one, checked against the sequential oracle: results as in test_random_programs, and placement. The
// oracle follows the program text (a spawn's clause, resolved against the runtime's place tree read
// once through the public API, else the spawner's place; calls and finish bodies keep the caller's);
// the runner records slaw::this_worker() and slaw::here() at the start of every frame and after every
// co_await that may suspend; the checker wants every record on a worker of the task's expected place,
// with here() that place. Per program the counters must agree: mailbox_posts == mailbox_takes, and
// tasks_outside_home == 0 when remote deque stealing is off.
//
// Configurations: policy {wf, hf, dyn} x workers {8, 16, 32} x remote {mailboxes+deques (md), mailboxes
// (m), none} on two synthetic machines:
//   c16: "pack:2 l3:2 core:4 pu:2", places=cores (16 core leaves under 4 L3s under 2 packages; with 8
//        workers the last 8 cores get none and leave the tree)
//   t12: "pack:2 core:3 pu:2", places=threads (12 hardware-thread leaves under 6 cores under 2
//        packages), mailboxes of 4 entries (overflows)
// half of them with the paper's idle order (`_paper`), the others the thesis's. Names:
// places_<policy>_<machine>_<workers>w_<remote>[_paper], e.g. places_dyn_c16_32w_md_paper.
//
// Environment: as test_random_programs (SLAW_RANDOM_CONFIG takes these names), except that
//   SLAW_TEST_SCALE         programs per configuration = 600 x scale (at least 10)
//   SLAW_RANDOM_FEATURES    default all,place
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "harness.hpp"
#include "runner.hpp"
#include "slaw/slaw.hpp"
#include "../support/memory_gauge.hpp"
#include "watchdog.hpp"

namespace {

constexpr double programs_per_config = 600;

struct machine {
  const char* name;
  const char* topology;
  const char* places;
  std::size_t mailbox;
};
const machine machines[] = {
    {"c16", "synthetic:pack:2 l3:2 core:4 pu:2", "cores", 1024},
    {"t12", "synthetic:pack:2 core:3 pu:2", "threads", 2},
};

struct pconfig {
  slaw::policy::mode policy;
  int machine;
  unsigned workers;
  slaw::remote_steal remote;
  slaw::idle_order idle;
};

std::string remote_name(slaw::remote_steal r) { return r.mailboxes ? (r.deques ? "md" : "m") : (r.deques ? "d" : "none"); }

std::string name_of(const pconfig& c) {
  return std::string("places_") + slaw::to_string(c.policy) + "_" + machines[c.machine].name + "_" +
         std::to_string(c.workers) + "w_" + remote_name(c.remote) + (c.idle == slaw::idle_order::paper ? "_paper" : "");
}

void PrintTo(const pconfig& c, std::ostream* os) { *os << name_of(c); }  // gtest's name for a parameter

std::vector<pconfig> all_configs() {
  std::vector<pconfig> v;
  const slaw::remote_steal remotes[] = {{true, true}, {true, false}, {false, false}};
  const slaw::policy::mode modes[] = {slaw::policy::mode::wf, slaw::policy::mode::hf, slaw::policy::mode::dyn};
  const unsigned workers[] = {8, 16, 32};
  for (int m = 0; m < 2; ++m)
    for (int pi = 0; pi < 3; ++pi)
      for (int wi = 0; wi < 3; ++wi)
        for (int ri = 0; ri < 3; ++ri) {
          // Every policy x remote pair and every workers x remote pair sees both idle orders.
          const bool paper = (m + pi + wi + ri) % 2 == 1;
          v.push_back({modes[pi], m, workers[wi], remotes[ri], paper ? slaw::idle_order::paper : slaw::idle_order::thesis});
        }
  return v;
}

slaw::config runtime_config(const pconfig& c) {
  slaw::config cfg;
  cfg.workers = c.workers;
  cfg.policy = c.policy;
  cfg.scheduler = slaw::scheduler_kind::ws;
  cfg.adp.S = 4;  // tiny bounds, as in test_random_programs
  cfg.adp.F = 4;
  cfg.adp.INT = 8;
  cfg.adp.steal_threshold = 1;
  cfg.loop = {0, 0};  // loops split at every chunk a thief asks for: the split paths run at these sizes
  cfg.topology = machines[c.machine].topology;
  cfg.places = machines[c.machine].places;
  cfg.mailbox_capacity = machines[c.machine].mailbox;
  cfg.remote = c.remote;
  cfg.idle = c.idle;
  return cfg;
}

using ull = unsigned long long;

constexpr const char* default_features = "all,place,loop";

class RandomPlaces : public ::testing::TestWithParam<pconfig> {};

TEST_P(RandomPlaces, MatchTheOracle) {
  const pconfig pc = GetParam();
  const std::string config = name_of(pc);
  const rp::settings st = rp::settings::from_env(programs_per_config, default_features);
  if (!st.selected(config)) GTEST_SKIP() << "SLAW_RANDOM_CONFIG=" << st.configs;

  slaw::runtime rt(runtime_config(pc));
  ASSERT_EQ(rt.workers(), pc.workers);
  std::vector<std::string> tree_errors;
  const rp::place_view places = rp::snapshot_places(rt, tree_errors);
  for (const std::string& e : tree_errors) ADD_FAILURE() << config << ": " << e;
  ASSERT_TRUE(tree_errors.empty());
  ASSERT_GT(places.leaves, 1u) << config << ": not a place tree";

  // The counters per program: the difference of the totals across it.
  slaw::worker_stats before = rt.stats().total;
  const std::int64_t memory0 = rt.stats().memory_live;
  auto counters = [&]() {
    std::vector<std::string> out;
    const slaw::worker_stats now = rt.stats().total;
    const ull posts = now.mailbox_posts - before.mailbox_posts, takes = now.mailbox_takes - before.mailbox_takes,
              outside = now.tasks_outside_home - before.tasks_outside_home;
    if (posts != takes)
      out.push_back("counters: " + std::to_string(posts) + " mailbox posts but " + std::to_string(takes) + " takes in this run");
    if (!pc.remote.deques && outside != 0)
      out.push_back("counters: tasks_outside_home = " + std::to_string(outside) + " without remote deque stealing");
    before = now;
    return out;
  };
  const rp::totals tot = rp::run_programs(rt, config, st, &places, counters);
  if (tot.failures) return;

  slaw::runtime_stats s = rt.stats();
  EXPECT_LE(std::llabs(s.memory_live - memory0), slaw_test::live_change_error(s)) << "memory live after the runs, config " << config;
  const slaw::worker_stats& t = s.total;
  EXPECT_EQ(t.mailbox_posts, t.mailbox_takes) << config;
  if (!pc.remote.deques) {
    EXPECT_EQ(t.tasks_outside_home, 0u) << config;
  }
  std::printf("%s: %ld programs (%ld threw), %ld tasks, %zu leaves; %ld place records, %ld on another worker than "
              "their task's start; steals %llu (remote %llu), mailbox posts %llu (overflows %llu), tasks outside "
              "home %llu, redirects %llu\n",
              config.c_str(), tot.programs, tot.threw, tot.tasks, places.leaves, tot.records, tot.moved,
              static_cast<ull>(t.steals_preempted + t.steals_fresh), static_cast<ull>(t.steals_remote),
              static_cast<ull>(t.mailbox_posts), static_cast<ull>(t.mailbox_overflows),
              static_cast<ull>(t.tasks_outside_home), static_cast<ull>(t.place_redirects));
  RecordProperty("tasks", std::to_string(tot.tasks));
}

INSTANTIATE_TEST_SUITE_P(All, RandomPlaces, ::testing::ValuesIn(all_configs()),
                         [](const ::testing::TestParamInfo<pconfig>& i) { return name_of(i.param); });

// Places are not supported with DFDeques: a non-flat deployment with it is a configuration error.
TEST(RandomPlacesConfig, DfdequesWithPlacesIsAConfigError) {
  slaw::config cfg;
  cfg.workers = 8;
  cfg.scheduler = slaw::scheduler_kind::dfdeques;
  cfg.topology = machines[0].topology;
  cfg.places = machines[0].places;
  EXPECT_THROW(slaw::runtime rt(cfg), slaw::config_error);
}

// Found by the random programs (seed 102340 on places_wf_t12_8w_none_paper and other one-worker-per-leaf
// configurations), reduced: two tasks on two leaf places of one worker each both leave a finish scope
// early (co_return: the scope's destructor waits in place, on the thread's stack) while the scope's only
// task was sent to the other's leaf. Each waiter takes the other's child from its own mailbox, cannot
// run it inside its wait (it is outside the awaited finish) and sets it aside, where only the other,
// equally blocked, worker may take it: neither wait ends. A legal program (it ends under the flat
// deployment); the watchdog turns the hang into a failure.
slaw::task<void> child() { co_return; }

slaw::task<void> side(std::size_t other) {
  auto s = co_await slaw::start_finish();
  co_await slaw::async(slaw::at(slaw::place(other)), child);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // both children posted before either waits
  co_return;  // ~finish_scope: finish_scope::abandon, worker::wait_in_place
}

slaw::task<void> two_sides() {
  co_await slaw::finish([]() -> slaw::task<> {
    co_await slaw::async(slaw::at(slaw::place(0)), side, 1);
    co_await slaw::async(slaw::at(slaw::place(1)), side, 0);
  });
}

TEST(RandomPlacesReduced, AbandonedScopesWaitingForEachOthersLeaf) {
  slaw::config cfg;
  cfg.workers = 16;  // one worker per core leaf
  cfg.topology = machines[0].topology;
  cfg.places = machines[0].places;
  slaw::runtime rt(cfg);
  rp::watchdog::instance().arm("RandomPlacesReduced.AbandonedScopesWaitingForEachOthersLeaf (16 workers, c16): two "
                               "scopes abandoned in place on leaves 0 and 1, each waiting for a task of the other's leaf",
                               rp::scaled_limit(10));
  for (int i = 0; i < 5; ++i) rt.run(two_sides());
  rp::watchdog::instance().disarm();
}

}  // namespace
