// Randomized async/finish programs checked against a sequential oracle, on every configuration:
// policy {wf, hf, dyn} x work stealing, and DFDeques with K = 1024, 50000, infinite (DFDeques spawns
// work-first whatever the policy), each on 1, 2 and 8 workers, with tiny ADP bounds so that every
// path of the runtime is taken.
//
// Environment (all optional; a failure prints the CONFIG, SEED, FEATURES, TASKS and DEPTH that rerun it):
//   SLAW_TEST_SCALE         programs per configuration = 1000 x scale
//   SLAW_RANDOM_PROGRAMS    programs per configuration, overriding the scale
//   SLAW_RANDOM_FIRST_SEED  the first seed (default 1); program i has seed FIRST_SEED + i
//   SLAW_RANDOM_SEED        run only this seed
//   SLAW_RANDOM_REPEAT      run each program this many times (default 1): schedules differ per run
//   SLAW_RANDOM_CONFIG      run only these configurations (comma-separated names, e.g. ws_hf_2w)
//   SLAW_RANDOM_FEATURES    generator features, e.g. all,-throw,-capture (program.hpp; default all,loop)
//   SLAW_RANDOM_TASKS       spawns per program, at most (default 40)
//   SLAW_RANDOM_DEPTH       frames below the root, at most (default 5)
//   SLAW_RANDOM_TIMEOUT     seconds before a program counts as hung (default 30, x4 under sanitizers)
//   SLAW_RANDOM_MAX_FAILURES  failing programs reported before a configuration stops (default 1)
//   SLAW_RANDOM_PRINT=1     print every program before running it
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "harness.hpp"
#include "slaw/slaw.hpp"
#include "../support/memory_gauge.hpp"

namespace {

using rconfig = rp::sched_config;
using rp::name_of;

std::vector<rconfig> all_configs() { return rp::sched_configs({1u, 2u, 8u}, {std::uint64_t{1024}, std::uint64_t{50000}, slaw::quota_infinite}); }

slaw::config runtime_config(const rconfig& c) {
  slaw::config cfg;
  cfg.workers = c.workers;
  cfg.policy = c.policy;
  cfg.scheduler = c.scheduler;
  cfg.quota = c.quota;
  cfg.adp.S = 4;  // tiny bounds: the stack and fresh conditions and re-evaluation fire all the time
  cfg.adp.F = 4;
  cfg.adp.INT = 8;
  cfg.adp.steal_threshold = 1;
  cfg.loop = {0, 0};  // loops split at every chunk a thief asks for: the split paths run at these sizes
  return cfg;
}

class RandomPrograms : public ::testing::TestWithParam<rconfig> {};

TEST_P(RandomPrograms, MatchTheOracle) {
  const rconfig rc = GetParam();
  const std::string config = name_of(rc);
  const rp::settings st = rp::settings::from_env(1000, "all,loop");
  if (!st.selected(config)) GTEST_SKIP() << "SLAW_RANDOM_CONFIG=" << st.configs;

  slaw::runtime rt(runtime_config(rc));
  const std::int64_t memory0 = rt.stats().memory_live;
  const rp::totals tot = rp::run_programs(rt, config, st);
  if (tot.failures) return;
  // Frames and user memory are all freed (the process-wide gauge is exact to within its error).
  slaw::runtime_stats s = rt.stats();
  EXPECT_LE(std::llabs(s.memory_live - memory0), slaw_test::live_change_error(s)) << "memory live after the runs, config " << config;
  const slaw::worker_stats& t = s.total;
  // Every queued frame was taken: by its owner (out of fresh_bytes_net_) or by a thief (stolen bytes).
  EXPECT_EQ(t.fresh_bytes_live, 0) << "queued frame bytes after the runs, config " << config;
  // How much of the runtime the programs exercised.
  std::printf("%s: %ld programs (%ld threw out of runtime::run), %ld tasks, %llu steals, %llu quota give-ups, %llu dummy tasks, "
              "%llu loop splits\n",
              config.c_str(), tot.programs, tot.threw, tot.tasks,
              static_cast<unsigned long long>(t.steals_preempted + t.steals_fresh),
              static_cast<unsigned long long>(t.quota_giveups), static_cast<unsigned long long>(t.dummy_tasks),
              static_cast<unsigned long long>(t.loop_splits));
  RecordProperty("tasks", std::to_string(tot.tasks));
}

INSTANTIATE_TEST_SUITE_P(All, RandomPrograms, ::testing::ValuesIn(all_configs()),
                         [](const ::testing::TestParamInfo<rconfig>& i) { return name_of(i.param); });

}  // namespace
