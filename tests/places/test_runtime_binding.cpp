// The runtime binds its workers to their places (SLAW_PLACES / SLAW_BIND through slaw::config), checked
// from inside tasks with sched_getaffinity: every task runs on a thread bound to exactly one CPU of the
// process's usable set, and with one worker per CPU the workers cover those CPUs.
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <mutex>
#include <set>
#include <vector>

#include "slaw/slaw.hpp"

namespace {

std::vector<int> affinity_of_this_thread() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  EXPECT_EQ(sched_getaffinity(0, sizeof mask, &mask), 0);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &mask)) cpus.push_back(c);
  return cpus;
}

std::mutex seen_mutex;
std::set<std::vector<int>> seen;  // the affinity masks tasks ran under

slaw::task<> note_affinity(int depth) {
  {
    std::lock_guard<std::mutex> g(seen_mutex);
    seen.insert(affinity_of_this_thread());
  }
  if (depth == 0) co_return;
  auto f = co_await slaw::start_finish();
  for (int i = 0; i < 4; ++i) co_await slaw::async(note_affinity, depth - 1);
  co_await slaw::end_finish(f);
}

}  // namespace

TEST(RuntimeBinding, ThreadsCloseBindsEachWorkerToOneCpu) {
  const std::vector<int> usable = affinity_of_this_thread();
  slaw::config c;
  c.places = "threads";
  c.bind = "close";
  c.workers = static_cast<unsigned>(usable.size());
  for (auto policy : {slaw::policy::mode::wf, slaw::policy::mode::hf}) {
    c.policy = policy;
    seen.clear();
    slaw::runtime rt(c);
    ASSERT_EQ(rt.workers(), usable.size());
    rt.run(note_affinity(7));  // 4^7 tasks: both workers get some on this machine
    for (const auto& mask : seen) {
      ASSERT_EQ(mask.size(), 1u) << "a task ran on a thread not bound to one CPU";
      EXPECT_NE(std::find(usable.begin(), usable.end(), mask[0]), usable.end());
    }
    EXPECT_GE(seen.size(), 1u);
    EXPECT_NE(rt.stats().to_json().find("\"places\":{"), std::string::npos);
  }
  // The thread that built the runtimes is not bound.
  EXPECT_EQ(affinity_of_this_thread(), usable);
}

TEST(RuntimeBinding, UnboundByDefault) {
  const std::vector<int> usable = affinity_of_this_thread();
  slaw::config c;
  c.workers = 2;
  seen.clear();
  slaw::runtime rt(c);
  rt.run(note_affinity(4));
  for (const auto& mask : seen) EXPECT_EQ(mask, usable);
}

TEST(RuntimeBinding, TooManyBoundWorkersIsAConfigError) {
  slaw::config c;
  c.places = "threads";
  c.bind = "close";
  c.workers = static_cast<unsigned>(affinity_of_this_thread().size()) + 1;
  EXPECT_THROW(slaw::runtime{c}, slaw::config_error);
}
