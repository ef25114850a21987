// Several slaw::runtime instances of one process as jobs of the same table (the in-process path; label
// arbiter-concurrency, so ThreadSanitizer runs it): threads tick, report and read allotments with a
// 1 ms quantum while an observer copies the table; clients come and go; a leaked one is dropped.
// Every consistent copy must satisfy layout.hpp L4 (Σ allotments ≤ cores, each ≤ its workers).
#include <thread>
#include <vector>

#include "support.hpp"
#include "support/stress.hpp"

using namespace arbiter_test;

namespace {

// Checks a consistent copy against L4; returns a description of the first violation, or "".
std::string check_l4(const arb::segment_view& v) {
  if (!v.consistent) return {};
  std::uint64_t sum = 0;
  for (const auto& j : v.jobs) {
    sum += j.allotment;
    if (j.allotment > j.workers) return "a job got " + std::to_string(j.allotment) + " > its workers";
  }
  if (v.jobs.size() > 1 && sum > v.cores) return "allotted " + std::to_string(sum) + " > cores";
  return {};
}

}  // namespace

TEST(ArbiterInProcess, RuntimesOfOneProcessShareTheCoresAsTheAllotmentChangesEveryQuantum) {
  slaw_test::watchdog dog("ArbiterInProcess", "a ticking thread or the observer hung", 120);
  scoped_name name;
  const arb::settings s = settings_for(name, 4, 1);  // 1 ms quanta
  arb::client_options o;
  o.stale_quanta = 20;
  const auto run_for = std::chrono::milliseconds(slaw_test::scaled(600, 150));
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0};
  std::atomic<std::uint64_t> boundaries_run{0};

  arb::client observer(s, o);  // not registered: it shares the process's mapping, like slaw-top's copy
  ASSERT_TRUE(observer.attached());
  arb::client leaked(s, o);     // registered, then never ticks: dropped by its heartbeat
  ASSERT_TRUE(leaked.register_job(3));

  const int jobs = 4;
  std::vector<std::unique_ptr<arb::client>> clients;
  for (int i = 0; i < jobs; ++i) {
    clients.push_back(std::make_unique<arb::client>(s, o));
    ASSERT_TRUE(clients.back()->register_job(2 + i));
  }
  std::vector<std::thread> threads;
  for (int i = 0; i < jobs; ++i) {
    threads.emplace_back([&, i] {
      arb::client& c = *clients[i];
      slaw_test::xorshift rng(i + 1);
      const std::uint32_t workers = 2 + i;
      while (!stop.load(std::memory_order_relaxed)) {
        if (c.tick(arb::monotonic_ns())) boundaries_run.fetch_add(1, std::memory_order_relaxed);
        if (rng.chance(30)) c.report(1.0 + static_cast<double>(rng.below(8)), {0.1 * static_cast<double>(rng.below(11)), rng.below(50)});
        if (c.allotment() > workers) bad.fetch_add(1);
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
    });
  }
  // A second thread on job 0's client: tick() and allotment() from any thread.
  threads.emplace_back([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      if (clients[0]->tick(arb::monotonic_ns())) boundaries_run.fetch_add(1, std::memory_order_relaxed);
      if (clients[0]->allotment() > 2) bad.fetch_add(1);
      std::this_thread::yield();
    }
  });
  std::string violation;
  int consistent = 0;
  bool leaked_dropped = false;
  std::thread watcher([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      const arb::segment_view v = arb::take_snapshot(observer.map()->view());
      if (v.consistent) ++consistent;
      if (std::string why = check_l4(v); !why.empty() && violation.empty()) violation = why;
      bool present = false;
      for (const auto& j : v.jobs) present |= j.runtime_id == leaked.runtime_id();
      if (v.consistent && !present) leaked_dropped = true;
      std::this_thread::sleep_for(std::chrono::microseconds(300));
    }
  });
  std::this_thread::sleep_for(run_for);
  stop.store(true);
  for (auto& t : threads) t.join();
  watcher.join();

  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(violation, "");
  EXPECT_GT(consistent, 10);
  EXPECT_GT(boundaries_run.load(), 20u);
  EXPECT_TRUE(leaked_dropped);
  EXPECT_EQ(leaked.allotment(), 1u);  // dropped: one core until it ticks
  leaked.tick(arb::monotonic_ns());   // ... and registers again
  EXPECT_TRUE(leaked.registered());
  leaked.unregister();
  for (auto& c : clients) c->unregister();
  const arb::segment_view v = arb::take_snapshot(observer.map()->view());
  EXPECT_TRUE(v.consistent);
  EXPECT_EQ(v.jobs.size(), 0u);
  EXPECT_EQ(v.recoveries, 0u);
}

// Runtimes start and stop concurrently: registration, leaving and the process's shared mapping under
// churn; the table ends empty and every copy satisfies L4.
TEST(ArbiterInProcess, RuntimesComeAndGoConcurrently) {
  slaw_test::watchdog dog("ArbiterInProcess", "a starting or stopping runtime hung", 120);
  scoped_name name;
  const arb::settings s = settings_for(name, 3, 1);
  const int threads_n = 6;
  const auto rounds = slaw_test::scaled(60, 10);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < threads_n; ++t) {
    threads.emplace_back([&, t] {
      slaw_test::xorshift rng(t + 7);
      for (std::uint64_t r = 0; r < rounds; ++r) {
        arb::client c(s);
        if (!c.register_job(1 + static_cast<std::uint32_t>(rng.below(4)), 1 + static_cast<double>(rng.below(4)))) {
          failures.fetch_add(1);
          continue;
        }
        for (int k = 0; k < 5; ++k) {
          c.tick(arb::monotonic_ns());
          if (std::string why = check_l4(arb::take_snapshot(c.map()->view())); !why.empty()) failures.fetch_add(1);
          std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        if (rng.chance(50)) c.unregister();  // else the destructor leaves
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  const arb::segment_view v = look(name);
  EXPECT_TRUE(v.consistent);
  EXPECT_EQ(v.jobs.size(), 0u);
}
