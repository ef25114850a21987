// Places in the runtime (docs/guide/places.md): the place API inside tasks, the place clause, mailboxes and
// their overflow, waiting frames resumed inside their place, the remote-stealing switch, and the
// settings' errors. Runs on hwloc synthetic machines (SLAW_TOPOLOGY), so that 8- and 16-leaf trees are
// exercised on a 2-core host. The randomized programs of tests/random cover the combinations.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "slaw/slaw.hpp"
#include "../support/stress.hpp"

namespace {

slaw::config synthetic(const char* machine, const char* places, unsigned workers) {
  slaw::config c;
  c.topology = std::string("synthetic:") + machine;
  c.places = places;
  c.workers = workers;
  return c;
}

bool runs_in(const slaw::place& p) {
  const std::vector<unsigned> ws = p.workers();
  return std::find(ws.begin(), ws.end(), slaw::this_worker()) != ws.end();
}

std::atomic<int> wrong_place{0}, ran{0};

slaw::task<> leaf_task(std::size_t expected, int spin_us) {
  ran.fetch_add(1);
  if (slaw::here().index() != expected || !runs_in(slaw::here())) wrong_place.fetch_add(1);
  if (spin_us) std::this_thread::sleep_for(std::chrono::microseconds(spin_us));
  co_return;
}

}  // namespace

TEST(RuntimePlaces, TreeNavigationInsideTasks) {
  // 2 packages x 4 cores x 2 threads; cores: 8 leaves under 2 packages under the machine.
  slaw::runtime rt(synthetic("pack:2 core:4 pu:2", "cores", 8));
  rt.run([]() -> slaw::task<> {
    EXPECT_EQ(slaw::num_places(), 8u);
    slaw::place root = slaw::root_place();
    EXPECT_TRUE(root.is_root());
    EXPECT_EQ(root.parent(), root);
    EXPECT_EQ(slaw::here(), root);  // a run's root task has the root place
    EXPECT_EQ(root.children().size(), 2u);
    EXPECT_EQ(root.workers().size(), 8u);
    for (std::size_t i = 0; i < slaw::num_places(); ++i) {
      slaw::place p(i);
      EXPECT_TRUE(p.is_leaf());
      EXPECT_EQ(p.index(), i);
      EXPECT_EQ(p.depth(), 2u);
      EXPECT_EQ(p.cpus().size(), 2u);
      EXPECT_EQ(p.workers(), std::vector<unsigned>{static_cast<unsigned>(i)});
      EXPECT_TRUE(root.contains(p));
      EXPECT_TRUE(p.parent().contains(p));
      EXPECT_FALSE(p.contains(p.parent()));
      EXPECT_EQ(p.parent().parent(), root);
    }
    EXPECT_THROW(slaw::place(8), std::out_of_range);
    co_return;
  }());
  EXPECT_THROW(slaw::here(), std::logic_error);
  EXPECT_THROW(slaw::place(0), std::logic_error);
  EXPECT_THROW(slaw::this_worker(), std::logic_error);
}

TEST(RuntimePlaces, PlaceClauseRunsEachTaskInItsPlaceUnderEveryPolicy) {
  for (auto mode : {slaw::policy::mode::wf, slaw::policy::mode::hf, slaw::policy::mode::dyn}) {
    slaw::config c = synthetic("pack:2 core:4 pu:2", "cores", 8);
    c.policy = mode;
    slaw::runtime rt(c);
    wrong_place = 0;
    ran = 0;
    rt.run([]() -> slaw::task<> {
      auto f = co_await slaw::start_finish();
      for (int rep = 0; rep < 20; ++rep)
        for (std::size_t i = 0; i < slaw::num_places(); ++i) {
          co_await slaw::async(slaw::at(slaw::place(i)), leaf_task, i, 0);
          co_await slaw::async(slaw::hf, slaw::at(slaw::place(i).parent()), leaf_task, slaw::place(i).parent().index(), 0);
        }
      co_await slaw::end_finish(f);
    }());
    EXPECT_EQ(ran.load(), 20 * 8 * 2);
    EXPECT_EQ(wrong_place.load(), 0);
    const auto s = rt.stats();
    EXPECT_EQ(s.total.mailbox_posts, s.total.mailbox_takes);
    EXPECT_GT(s.total.mailbox_posts, 0u);
    EXPECT_NE(s.place_counters_json.find("\"mailboxes\""), std::string::npos);
  }
}

// A frame of leaf A waits for children of leaf B; the last child ends on a worker of B, which must not
// resume A's frame: the frame goes to A's mailbox and resumes on A's worker.
TEST(RuntimePlaces, WaitingFrameResumesInsideItsPlace) {
  slaw::runtime rt(synthetic("pack:2 core:4 pu:2", "cores", 8));
  wrong_place = 0;
  rt.run([]() -> slaw::task<> {
    auto f = co_await slaw::start_finish();
    for (std::size_t a = 0; a < slaw::num_places(); ++a)
      co_await slaw::async(
          slaw::at(slaw::place(a)),
          [](std::size_t a) -> slaw::task<> {
            for (int round = 0; round < 10; ++round) {
              const std::size_t b = (a + 1 + static_cast<std::size_t>(round)) % slaw::num_places();
              auto g = co_await slaw::start_finish();
              for (int k = 0; k < 4; ++k) co_await slaw::async(slaw::at(slaw::place(b)), leaf_task, b, 200);
              co_await slaw::end_finish(g);  // may suspend: resumes inside place a
              if (slaw::here().index() != a || !runs_in(slaw::place(a))) wrong_place.fetch_add(1);
            }
          },
          a);
    co_await slaw::end_finish(f);
  }());
  EXPECT_EQ(wrong_place.load(), 0);
}

TEST(RuntimePlaces, FullMailboxOverflowsAndLosesNothing) {
  slaw::config c = synthetic("pack:2 core:2 pu:1", "cores", 4);
  c.mailbox_capacity = 2;
  slaw::runtime rt(c);
  wrong_place = 0;
  ran = 0;
  rt.run([]() -> slaw::task<> {
    co_await slaw::finish([]() -> slaw::task<> {
      for (int k = 0; k < 400; ++k) {
        const std::size_t p = static_cast<std::size_t>(k) % slaw::num_places();
        co_await slaw::async(slaw::at(slaw::place(p)), leaf_task, p, k % 50 == 0 ? 1000 : 0);
      }
    });
  }());
  EXPECT_EQ(ran.load(), 400);
  EXPECT_EQ(wrong_place.load(), 0);
  const auto s = rt.stats();
  EXPECT_GT(s.total.mailbox_overflows, 0u);
  EXPECT_EQ(s.total.mailbox_posts, s.total.mailbox_takes);
}

namespace {
std::mutex leaves_mutex;
std::set<unsigned> workers_seen;

slaw::task<> unplaced_tree(int depth) {
  {
    std::lock_guard<std::mutex> g(leaves_mutex);
    workers_seen.insert(slaw::this_worker());
  }
  if (depth == 0) {
    std::this_thread::sleep_for(std::chrono::microseconds(300));
    co_return;
  }
  auto f = co_await slaw::start_finish();
  for (int i = 0; i < 3; ++i) co_await slaw::async(unplaced_tree, depth - 1);
  co_await slaw::end_finish(f);
}
}  // namespace

// A program that names no place: every task has the root place. Without remote stealing it stays on
// the leaf of the worker that took the root task (SLAW's paper: no cross-place steals); with remote
// deques the other leaves steal it.
TEST(RuntimePlaces, RemoteStealingSwitch) {
  for (bool remote : {false, true}) {
    slaw::config c = synthetic("pack:2 core:4 pu:2", "cores", 8);  // one worker per leaf: no peers
    c.remote = {remote, remote};
    slaw::runtime rt(c);
    workers_seen.clear();
    rt.run(unplaced_tree(4));
    const auto s = rt.stats();
    if (!remote) {
      EXPECT_EQ(workers_seen.size(), 1u);
      EXPECT_EQ(s.total.steals_remote, 0u);
      EXPECT_EQ(s.total.tasks_outside_home, 0u);
    } else {
      EXPECT_GT(workers_seen.size(), 1u);
      EXPECT_GT(s.total.steals_remote, 0u);
      EXPECT_EQ(s.total.tasks_outside_home, s.total.steals_remote);
    }
  }
}

TEST(RuntimePlaces, FlatDeploymentHasOnePlaceAndIgnoresClauses) {
  slaw::config c;
  c.workers = 2;
  slaw::runtime rt(c);
  rt.run([]() -> slaw::task<> {
    EXPECT_EQ(slaw::num_places(), 1u);
    EXPECT_EQ(slaw::place(0), slaw::root_place());
    EXPECT_TRUE(slaw::place(0).is_leaf());
    co_await slaw::async(slaw::at(slaw::here()), leaf_task, 0, 0);
  }());
  EXPECT_EQ(rt.stats().total.mailbox_posts, 0u);
  EXPECT_TRUE(rt.stats().place_counters_json.empty());
}

namespace {
using slaw_test::env_guard;
std::string config_error_for(const char* name, const char* value) {
  return slaw_test::from_env_error<slaw::config, slaw::config_error>(name, value);
}
std::string runtime_error_for(const slaw::config& c) {
  try {
    slaw::runtime rt(c);
  } catch (const slaw::config_error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(RuntimePlaces, SettingsFromTheEnvironment) {
  {
    env_guard a("SLAW_REMOTE", "deques,mailboxes"), b("SLAW_IDLE_ORDER", "paper"), c("SLAW_MAILBOX", "7"),
        d("SLAW_TOPOLOGY", "synthetic:pack:2 core:2 pu:1"), e("SLAW_PLACES", "cores");
    const slaw::config cfg = slaw::config::from_env();
    EXPECT_EQ(cfg.remote, (slaw::remote_steal{true, true}));
    EXPECT_EQ(cfg.idle, slaw::idle_order::paper);
    EXPECT_EQ(cfg.mailbox_capacity, 7u);
    EXPECT_EQ(cfg.topology, "synthetic:pack:2 core:2 pu:1");
  }
  {
    env_guard a("SLAW_REMOTE", "none");
    EXPECT_EQ(slaw::config::from_env().remote, (slaw::remote_steal{false, false}));
  }
  {
    env_guard a("SLAW_REMOTE", "mailboxes");
    EXPECT_EQ(slaw::config::from_env().remote, (slaw::remote_steal{true, false}));
  }
}

TEST(RuntimePlaces, BadSettingsNameTheVariableAndTheAcceptedValues) {
  for (const char* v : {"", "all", "mailboxes,", "deques,deques", "none,deques"}) {
    const std::string e = config_error_for("SLAW_REMOTE", v);
    EXPECT_NE(e.find("SLAW_REMOTE='"), std::string::npos) << v;
    EXPECT_NE(e.find("mailboxes,deques"), std::string::npos) << v;
  }
  EXPECT_NE(config_error_for("SLAW_IDLE_ORDER", "random").find("thesis"), std::string::npos);
  for (const char* v : {"0", "-1", "16777217", "x"})
    EXPECT_NE(config_error_for("SLAW_MAILBOX", v).find("SLAW_MAILBOX='"), std::string::npos) << v;
  EXPECT_NE(config_error_for("SLAW_TOPOLOGY", "pack:2").find("synthetic:DESC"), std::string::npos);
  {
    env_guard a("SLAW_BIND", "close");
    EXPECT_NE(config_error_for("SLAW_TOPOLOGY", "synthetic:pack:2 pu:2").find("cannot be bound"), std::string::npos);
  }
  slaw::config bad = synthetic("pack:2 qux:3", "cores", 2);
  EXPECT_NE(runtime_error_for(bad).find("SLAW_TOPOLOGY='synthetic:pack:2 qux:3'"), std::string::npos);
  slaw::config dfd = synthetic("pack:2 core:2 pu:1", "cores", 4);
  dfd.scheduler = slaw::scheduler_kind::dfdeques;
  EXPECT_NE(runtime_error_for(dfd).find("ws scheduler only"), std::string::npos);
}
