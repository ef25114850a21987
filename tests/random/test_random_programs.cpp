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
//   SLAW_RANDOM_FEATURES    generator features, e.g. all,-throw,-capture (program.hpp; default all)
//   SLAW_RANDOM_TASKS       spawns per program, at most (default 40)
//   SLAW_RANDOM_DEPTH       frames below the root, at most (default 5)
//   SLAW_RANDOM_TIMEOUT     seconds before a program counts as hung (default 30, x4 under sanitizers)
//   SLAW_RANDOM_MAX_FAILURES  failing programs reported before a configuration stops (default 1)
//   SLAW_RANDOM_PRINT=1     print every program before running it
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "check.hpp"
#include "objects.hpp"
#include "oracle.hpp"
#include "program.hpp"
#include "runner.hpp"
#include "slaw/slaw.hpp"
#include "watchdog.hpp"

namespace {

struct rconfig {
  slaw::policy::mode policy;
  slaw::scheduler_kind scheduler;
  std::uint64_t quota;
  unsigned workers;
};

std::string name_of(const rconfig& c) {
  std::string s = c.scheduler == slaw::scheduler_kind::dfdeques
                      ? "dfd_K" + (c.quota == slaw::quota_infinite ? std::string("inf") : std::to_string(c.quota))
                      : "ws_" + std::string(slaw::to_string(c.policy));
  return s + "_" + std::to_string(c.workers) + "w";
}

std::vector<rconfig> all_configs() {
  std::vector<rconfig> v;
  for (unsigned w : {1u, 2u, 8u}) {
    for (auto m : {slaw::policy::mode::wf, slaw::policy::mode::hf, slaw::policy::mode::dyn})
      v.push_back({m, slaw::scheduler_kind::ws, slaw::quota_infinite, w});
    for (std::uint64_t k : {std::uint64_t{1024}, std::uint64_t{50000}, slaw::quota_infinite})
      v.push_back({slaw::policy::mode::dyn, slaw::scheduler_kind::dfdeques, k, w});
  }
  return v;
}

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

std::uint64_t env_u64(const char* name, std::uint64_t dflt) {
  const char* v = env(name);
  return v ? std::strtoull(v, nullptr, 0) : dflt;
}

struct settings {
  long programs;
  std::uint64_t first_seed;
  bool one_seed;
  std::uint64_t seed;
  std::string configs;  // empty: all
  rp::gen_params gen;
  double timeout_s;
  int max_failures;
  long repeat;
  bool print;

  static settings from_env() {
    settings s;
    const char* scale = env("SLAW_TEST_SCALE");
    double sc = scale ? std::atof(scale) : 1.0;
    if (!(sc > 0)) sc = 1.0;
    s.programs = static_cast<long>(env_u64("SLAW_RANDOM_PROGRAMS", static_cast<std::uint64_t>(std::max(10.0, 1000 * sc))));
    s.first_seed = env_u64("SLAW_RANDOM_FIRST_SEED", 1);
    s.one_seed = env("SLAW_RANDOM_SEED") != nullptr;
    s.seed = env_u64("SLAW_RANDOM_SEED", 0);
    s.configs = env("SLAW_RANDOM_CONFIG") ? env("SLAW_RANDOM_CONFIG") : "";
    s.gen.features = rp::parse_features(env("SLAW_RANDOM_FEATURES") ? env("SLAW_RANDOM_FEATURES") : "all");
    s.gen.max_tasks = static_cast<int>(env_u64("SLAW_RANDOM_TASKS", static_cast<std::uint64_t>(s.gen.max_tasks)));
    s.gen.max_depth = static_cast<int>(env_u64("SLAW_RANDOM_DEPTH", static_cast<std::uint64_t>(s.gen.max_depth)));
    s.timeout_s = env("SLAW_RANDOM_TIMEOUT") ? std::atof(env("SLAW_RANDOM_TIMEOUT")) : 30.0;
    s.max_failures = static_cast<int>(env_u64("SLAW_RANDOM_MAX_FAILURES", 1));
    s.repeat = std::max<long>(1, static_cast<long>(env_u64("SLAW_RANDOM_REPEAT", 1)));
    s.print = env("SLAW_RANDOM_PRINT") != nullptr;
    return s;
  }

  bool selected(const std::string& config) const {
    if (configs.empty()) return true;
    std::stringstream ss(configs);
    for (std::string c; std::getline(ss, c, ',');)
      if (c == config) return true;
    return false;
  }

  // The command that reruns one program on one configuration.
  std::string rerun(const std::string& config, std::uint64_t seed) const {
    char exe[4096] = "test_random_programs";
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) exe[n] = 0;
    return "SLAW_RANDOM_CONFIG=" + config + " SLAW_RANDOM_SEED=" + std::to_string(seed) +
           " SLAW_RANDOM_FEATURES=" + rp::feature_names(gen.features) + " SLAW_RANDOM_TASKS=" +
           std::to_string(gen.max_tasks) + " SLAW_RANDOM_DEPTH=" + std::to_string(gen.max_depth) + " " + exe;
  }
};

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
  return cfg;
}

// Live objects left over by a run (leaks, or objects destroyed twice).
std::vector<std::string> leaks(long counted0, long canaries0, long bytes0, long dead0) {
  std::vector<std::string> out;
  long c = rp::live.counted.load() - counted0, k = rp::live.canaries.load() - canaries0,
       b = rp::live.buffer_bytes.load() - bytes0, d = rp::live.dead_captures.load() - dead0;
  if (c) out.push_back(std::to_string(c) + " counted objects (results) live after the run (leaked or destroyed twice)");
  if (k) out.push_back(std::to_string(k) + " lambda captures live after the run");
  if (b) out.push_back(std::to_string(b) + " buffer bytes live after the run");
  if (d) out.push_back("a capturing lambda found its closure destroyed while its task ran (" + std::to_string(d) + " times)");
  return out;
}

class RandomPrograms : public ::testing::TestWithParam<rconfig> {};

TEST_P(RandomPrograms, MatchTheOracle) {
  const rconfig rc = GetParam();
  const std::string config = name_of(rc);
  const settings st = settings::from_env();
  if (!st.selected(config)) GTEST_SKIP() << "SLAW_RANDOM_CONFIG=" << st.configs;

  slaw::runtime rt(runtime_config(rc));
  const std::int64_t memory0 = rt.stats().memory_live;
  const long count = (st.one_seed ? 1 : st.programs) * st.repeat;
  const auto limit = rp::scaled_limit(st.timeout_s);
  long tasks = 0, threw = 0;
  int failures = 0;
  for (long i = 0; i < count; ++i) {
    const long k = i / st.repeat;
    const std::uint64_t seed = st.one_seed ? st.seed : st.first_seed + static_cast<std::uint64_t>(k);
    const rp::program p = rp::generate(seed, st.gen);
    const rp::expectation e = rp::interpret(p);
    if (st.print && i % st.repeat == 0) std::printf("--- seed %llu\n%s", static_cast<unsigned long long>(seed), rp::to_string(p).c_str());
    const std::string rerun = st.rerun(config, seed);
    const long c0 = rp::live.counted.load(), k0 = rp::live.canaries.load(), b0 = rp::live.buffer_bytes.load(),
               d0 = rp::live.dead_captures.load();

    rp::watchdog::instance().arm("config " + config + ", seed " + std::to_string(seed) + ". Rerun (with SLAW_RANDOM_REPEAT=1000 if it passes once): " + rerun, limit,
                                 [&p] { std::fprintf(stderr, "*** the program:\n%s", rp::to_string(p).c_str()); });
    const rp::observation o = rp::run_program(rt, p, e);
    rp::watchdog::instance().disarm();

    std::vector<std::string> errors = rp::check(p, e, o);
    for (std::string& l : leaks(c0, k0, b0, d0)) errors.push_back(std::move(l));
    tasks += p.tasks;
    threw += o.run_threw;
    if (errors.empty()) continue;
    std::string msg = "config " + config + ", seed " + std::to_string(seed) + ":\n";
    for (const std::string& l : errors) msg += "  " + l + "\n";
    msg += "rerun: " + rerun + "\n(schedules vary: add SLAW_RANDOM_REPEAT=1000 if one run does not fail)\nthe program:\n" +
           rp::to_string(p);
    ADD_FAILURE() << msg;
    if (++failures >= st.max_failures) break;
  }
  if (failures) return;
  // Frames and user memory are all freed (the process-wide gauge is exact to within its error).
  slaw::runtime_stats s = rt.stats();
  EXPECT_LE(std::llabs(s.memory_live - memory0), s.gauge_error_bytes) << "memory live after the runs, config " << config;
  // How much of the runtime the programs exercised.
  const slaw::worker_stats& t = s.total;
  std::printf("%s: %ld programs (%ld threw out of runtime::run), %ld tasks, %llu steals, %llu quota give-ups, %llu dummy tasks\n",
              config.c_str(), count, threw, tasks,
              static_cast<unsigned long long>(t.steals_preempted + t.steals_fresh),
              static_cast<unsigned long long>(t.quota_giveups), static_cast<unsigned long long>(t.dummy_tasks));
  RecordProperty("tasks", std::to_string(tasks));
}

INSTANTIATE_TEST_SUITE_P(All, RandomPrograms, ::testing::ValuesIn(all_configs()),
                         [](const ::testing::TestParamInfo<rconfig>& i) { return name_of(i.param); });

}  // namespace
