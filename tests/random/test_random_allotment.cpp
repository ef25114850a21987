// Randomized async/finish programs checked against the sequential oracle while the runtime's allotment
// changes all the time (docs/design/multijob.md § Tests): the runtime is one job of a private
// arbiter segment with a tiny quantum (0.1 ms) and a made-up core count, and a churn thread keeps
// registering and removing other jobs of large desire in the same segment, so that the allotment moves
// between all its workers and one, several times a program. Surplus workers yield at spawns, park with
// their deques muggable, and are mugged and woken again, under every scheduler x policy x 2/8 workers.
//
// Environment: as test_random_programs (SLAW_TEST_SCALE, SLAW_RANDOM_*; 300 programs per configuration at
// scale 1).
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "arbiter/client.hpp"
#include "arbiter/segment.hpp"
#include "harness.hpp"
#include "slaw/slaw.hpp"
#include "../support/memory_gauge.hpp"

namespace {

using aconfig = rp::sched_config;
using rp::name_of;

std::vector<aconfig> all_configs() { return rp::sched_configs({2u, 8u}, {std::uint64_t{1024}, slaw::quota_infinite}); }

// Other jobs come and go in the segment: 0 to 3 of desire 8 each, changed every 0.3 ms, so that DEQ
// gives the runtime anything from all the cores (4) to one.
class churn {
 public:
  explicit churn(const slaw::arbiter::settings& s) : settings_(s), thread_([this] { run(); }) {}
  ~churn() {
    stop_.store(true);
    thread_.join();
  }

 private:
  void run() {
    std::mt19937 rng(12345);
    std::vector<std::unique_ptr<slaw::arbiter::client>> jobs;
    slaw::arbiter::client_options quiet;
    quiet.warn = [](const std::string&) {};
    while (!stop_.load()) {
      const std::size_t want = rng() % 4;
      while (jobs.size() > want) jobs.pop_back();  // unregisters
      while (jobs.size() < want) {
        jobs.push_back(std::make_unique<slaw::arbiter::client>(settings_, quiet));
        jobs.back()->register_job(8, 8.0);
      }
      for (auto& j : jobs) j->tick(slaw::arbiter::monotonic_ns());
      std::this_thread::sleep_for(std::chrono::microseconds(300));
    }
  }
  slaw::arbiter::settings settings_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

class RandomAllotment : public ::testing::TestWithParam<aconfig> {};

TEST_P(RandomAllotment, MatchTheOracleWhileTheAllotmentChanges) {
  const aconfig ac = GetParam();
  const std::string config = name_of(ac);
  const rp::settings st = rp::settings::from_env(300, "all,loop");
  if (!st.selected(config)) GTEST_SKIP() << "SLAW_RANDOM_CONFIG=" << st.configs;

  const std::string segment = "/slaw-test-allot-" + std::to_string(::getpid()) + "-" + config;
  slaw::arbiter::remove_segment(segment);
  slaw::config cfg;
  cfg.workers = ac.workers;
  cfg.policy = ac.policy;
  cfg.scheduler = ac.scheduler;
  cfg.quota = ac.quota;
  cfg.adp.S = 4;
  cfg.adp.F = 4;
  cfg.adp.INT = 8;
  cfg.adp.steal_threshold = 1;
  cfg.loop = {0, 0};  // loops split at every chunk a thief asks for: the split paths run at these sizes
  cfg.arbiter.arbiter = slaw::policy::arbiter::deq;
  cfg.arbiter.cores = 4;
  cfg.arbiter.quantum_ns = 100'000;
  cfg.arbiter.name = segment;
  slaw::arbiter::settings others;
  static_cast<slaw::arbiter_settings&>(others) = cfg.arbiter;
  {
    slaw::runtime rt(cfg);
    const std::int64_t memory0 = rt.stats().memory_live;
    rp::totals tot;
    {
      churn c(others);
      tot = rp::run_programs(rt, config, st);
    }
    slaw::runtime_stats s = rt.stats();
    if (!tot.failures) {
      EXPECT_LE(std::llabs(s.memory_live - memory0), slaw_test::live_change_error(s)) << "memory live after the runs, " << config;
      // The allotment did change, and went below the worker count (the test tests what it says).
      EXPECT_NE(s.arbiter_json.find("\"allotment_min\":1,"), std::string::npos) << s.arbiter_json;
      const slaw::worker_stats& t = s.total;
      std::printf("%s: %ld programs, %ld tasks, %llu allotment yields, %llu allotment parks, %llu mugs, %llu steals\n",
                  config.c_str(), tot.programs, tot.tasks, static_cast<unsigned long long>(t.allotment_yields),
                  static_cast<unsigned long long>(t.allotment_parks), static_cast<unsigned long long>(t.mugs),
                  static_cast<unsigned long long>(t.steals_preempted + t.steals_fresh));
      EXPECT_GT(t.allotment_parks, 0u) << config;
    }
  }
  slaw::arbiter::remove_segment(segment);
}

INSTANTIATE_TEST_SUITE_P(All, RandomAllotment, ::testing::ValuesIn(all_configs()),
                         [](const ::testing::TestParamInfo<aconfig>& i) { return name_of(i.param); });

}  // namespace
