// What the random-program tests share (test_random_programs, test_random_places): the environment
// settings, and the loop that generates, runs and checks the programs of one configuration.
// Header-only, so that each test executable lists only its own file besides the shared sources.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <initializer_list>
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

namespace rp {

struct settings {
  long programs;
  std::uint64_t first_seed;
  bool one_seed;
  std::uint64_t seed;
  std::string configs;  // empty: all
  gen_params gen;
  double timeout_s;
  int max_failures;
  long repeat;
  bool print;

  // `per_config`: programs per configuration at SLAW_TEST_SCALE=1; `features`: the default of
  // SLAW_RANDOM_FEATURES.
  static settings from_env(double per_config = 1000, const char* features = "all");
  bool selected(const std::string& config) const;
  // The command that reruns one program on one configuration.
  std::string rerun(const std::string& config, std::uint64_t seed) const;
};

struct totals {
  long programs = 0, threw = 0, tasks = 0;
  int failures = 0;
  long records = 0, moved = 0;  // place records; those on another worker than their task's first record
};

// Runs the configuration's programs on `rt`, each checked against the oracle (with the place view, the
// placement too) and by `extra` (called after each program, on the runtime it ran on: more lines of
// disagreement). Failures are gtest failures naming the seed and the rerun command.
inline totals run_programs(slaw::runtime& rt, const std::string& config, const settings& st,
                           const place_view* places = nullptr, const std::function<std::vector<std::string>()>& extra = {});

// ---------------------------------------------------------------------------------- definitions

namespace harness_detail {

inline const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

inline std::uint64_t env_u64(const char* name, std::uint64_t dflt) {
  const char* v = env(name);
  return v ? std::strtoull(v, nullptr, 0) : dflt;
}

// Live objects left over by a run (leaks, or objects destroyed twice).
inline std::vector<std::string> leaks(long counted0, long canaries0, long bytes0, long dead0) {
  std::vector<std::string> out;
  long c = live.counted.load() - counted0, k = live.canaries.load() - canaries0, b = live.buffer_bytes.load() - bytes0,
       d = live.dead_captures.load() - dead0;
  if (c) out.push_back(std::to_string(c) + " counted objects (results) live after the run (leaked or destroyed twice)");
  if (k) out.push_back(std::to_string(k) + " lambda captures live after the run");
  if (b) out.push_back(std::to_string(b) + " buffer bytes live after the run");
  if (d) out.push_back("a capturing lambda found its closure destroyed while its task ran (" + std::to_string(d) + " times)");
  return out;
}

}  // namespace harness_detail

using namespace harness_detail;

inline settings settings::from_env(double per_config, const char* features) {
  settings s;
  const char* scale = env("SLAW_TEST_SCALE");
  double sc = scale ? std::atof(scale) : 1.0;
  if (!(sc > 0)) sc = 1.0;
  s.programs = static_cast<long>(env_u64("SLAW_RANDOM_PROGRAMS", static_cast<std::uint64_t>(std::max(10.0, per_config * sc))));
  s.first_seed = env_u64("SLAW_RANDOM_FIRST_SEED", 1);
  s.one_seed = env("SLAW_RANDOM_SEED") != nullptr;
  s.seed = env_u64("SLAW_RANDOM_SEED", 0);
  s.configs = env("SLAW_RANDOM_CONFIG") ? env("SLAW_RANDOM_CONFIG") : "";
  s.gen.features = parse_features(env("SLAW_RANDOM_FEATURES") ? env("SLAW_RANDOM_FEATURES") : features);
  s.gen.max_tasks = static_cast<int>(env_u64("SLAW_RANDOM_TASKS", static_cast<std::uint64_t>(s.gen.max_tasks)));
  s.gen.max_depth = static_cast<int>(env_u64("SLAW_RANDOM_DEPTH", static_cast<std::uint64_t>(s.gen.max_depth)));
  s.timeout_s = env("SLAW_RANDOM_TIMEOUT") ? std::atof(env("SLAW_RANDOM_TIMEOUT")) : 30.0;
  s.max_failures = static_cast<int>(env_u64("SLAW_RANDOM_MAX_FAILURES", 1));
  s.repeat = std::max<long>(1, static_cast<long>(env_u64("SLAW_RANDOM_REPEAT", 1)));
  s.print = env("SLAW_RANDOM_PRINT") != nullptr;
  return s;
}

inline bool settings::selected(const std::string& config) const {
  if (configs.empty()) return true;
  std::stringstream ss(configs);
  for (std::string c; std::getline(ss, c, ',');)
    if (c == config) return true;
  return false;
}

inline std::string settings::rerun(const std::string& config, std::uint64_t seed) const {
  char exe[4096] = "test_random_programs";
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) exe[n] = 0;
  return "SLAW_RANDOM_CONFIG=" + config + " SLAW_RANDOM_SEED=" + std::to_string(seed) +
         " SLAW_RANDOM_FEATURES=" + feature_names(gen.features) + " SLAW_RANDOM_TASKS=" + std::to_string(gen.max_tasks) +
         " SLAW_RANDOM_DEPTH=" + std::to_string(gen.max_depth) + " " + exe;
}

inline totals run_programs(slaw::runtime& rt, const std::string& config, const settings& st, const place_view* places,
                           const std::function<std::vector<std::string>()>& extra) {
  totals tot;
  const long count = (st.one_seed ? 1 : st.programs) * st.repeat;
  const auto limit = scaled_limit(st.timeout_s);
  for (long i = 0; i < count; ++i) {
    const long k = i / st.repeat;
    const std::uint64_t seed = st.one_seed ? st.seed : st.first_seed + static_cast<std::uint64_t>(k);
    const program p = generate(seed, st.gen);
    const expectation e = interpret(p, places);
    if (st.print && i % st.repeat == 0) std::printf("--- seed %llu\n%s", static_cast<unsigned long long>(seed), to_string(p).c_str());
    const std::string rerun = st.rerun(config, seed);
    const long c0 = live.counted.load(), k0 = live.canaries.load(), b0 = live.buffer_bytes.load(),
               d0 = live.dead_captures.load();

    watchdog::instance().arm("config " + config + ", seed " + std::to_string(seed) + ". Rerun (with SLAW_RANDOM_REPEAT=1000 if it passes once): " + rerun, limit,
                             [&p] { std::fprintf(stderr, "*** the program:\n%s", to_string(p).c_str()); });
    const observation o = run_program(rt, p, e, places);
    watchdog::instance().disarm();

    std::vector<std::string> errors = check(p, e, o, places);
    for (std::string& l : leaks(c0, k0, b0, d0)) errors.push_back(std::move(l));
    if (extra)
      for (std::string& l : extra()) errors.push_back(std::move(l));
    ++tot.programs;
    tot.tasks += p.tasks;
    tot.threw += o.run_threw;
    tot.records += static_cast<long>(o.places.size());
    if (places) {
      std::vector<long> first(static_cast<std::size_t>(p.tasks), -1);
      for (const place_rec& r : o.places) {
        if (r.task < 0 || r.task >= p.tasks) continue;
        long& f = first[static_cast<std::size_t>(r.task)];
        if (f < 0) f = r.worker;
        else tot.moved += f != static_cast<long>(r.worker);
      }
    }
    if (errors.empty()) continue;
    std::string msg = "config " + config + ", seed " + std::to_string(seed) + ":\n";
    for (const std::string& l : errors) msg += "  " + l + "\n";
    if (places) {
      msg += "the place tree: " + std::to_string(places->leaves) + " leaves, root " + std::to_string(places->root) + "; parents:";
      for (std::size_t q = 0; q < places->parent.size(); ++q) msg += " " + std::to_string(q) + "->" + std::to_string(places->parent[q]);
      msg += "\n";
    }
    msg += "rerun: " + rerun + "\n(schedules vary: add SLAW_RANDOM_REPEAT=1000 if one run does not fail)\nthe program:\n" +
           to_string(p);
    ADD_FAILURE() << msg;
    if (++tot.failures >= st.max_failures) break;
  }
  return tot;
}

// A configuration the random programs run under: a policy with work stealing, or DFDeques(K) under dyn.
struct sched_config {
  slaw::policy::mode policy;
  slaw::scheduler_kind scheduler;
  std::uint64_t quota;
  unsigned workers;
};

inline std::string name_of(const sched_config& c) {
  std::string s = c.scheduler == slaw::scheduler_kind::dfdeques
                      ? "dfd_K" + (c.quota == slaw::quota_infinite ? std::string("inf") : std::to_string(c.quota))
                      : "ws_" + std::string(slaw::to_string(c.policy));
  return s + "_" + std::to_string(c.workers) + "w";
}

// Per worker count: work stealing under wf, hf and dyn, then DFDeques(K) for each quota.
inline std::vector<sched_config> sched_configs(std::initializer_list<unsigned> workers,
                                               std::initializer_list<std::uint64_t> quotas) {
  std::vector<sched_config> v;
  for (unsigned w : workers) {
    for (auto m : {slaw::policy::mode::wf, slaw::policy::mode::hf, slaw::policy::mode::dyn})
      v.push_back({m, slaw::scheduler_kind::ws, slaw::quota_infinite, w});
    for (std::uint64_t k : quotas) v.push_back({slaw::policy::mode::dyn, slaw::scheduler_kind::dfdeques, k, w});
  }
  return v;
}

}  // namespace rp
