// Random nested async/finish programs with escaping asyncs and random schedule clauses, checked against
// a sequential reference: every finish must end only after every task spawned inside it (transitively,
// through escaping asyncs and sequential calls) has ended, and every task must run exactly once.
#include <gtest/gtest.h>

#include <atomic>
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "slaw/slaw.hpp"

namespace {

std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

struct frec {  // one dynamic user finish: how many of the tasks spawned inside have ended
  std::atomic<long> done{0};
  frec* up;
};

struct ctx {
  int max_depth;
  std::atomic<long> tasks{0};
  std::atomic<std::uint64_t> sum{0};
  std::atomic<long> errors{0};
};

// The program: a body is a short random sequence of actions.
enum action { spawn_a, spawn_b, call, fin };

int actions_of(std::uint64_t seed, int depth, int max_depth) {
  if (depth >= max_depth) return 0;
  return static_cast<int>(mix(seed ^ 0x51) % (depth < 3 ? 7 : 4));
}
action action_of(std::uint64_t seed, int i) { return static_cast<action>(mix(seed + 17 * i + 3) % 4); }
std::uint64_t child_seed(std::uint64_t seed, int i) { return mix(seed * 31 + i + 1); }

// Sequential reference: number of tasks spawned by a body, and the sum of the values it adds.
void reference(std::uint64_t seed, int depth, int max_depth, long& tasks, std::uint64_t& sum) {
  sum += seed & 0xff;
  int n = actions_of(seed, depth, max_depth);
  for (int i = 0; i < n; ++i) {
    std::uint64_t c = child_seed(seed, i);
    switch (action_of(seed, i)) {
      case spawn_a:
      case spawn_b:
        ++tasks;
        reference(c, depth + 1, max_depth, tasks, sum);
        break;
      case call:
      case fin:
        reference(c, depth + 1, max_depth, tasks, sum);
        break;
    }
  }
}

slaw::task<> body(std::uint64_t seed, int depth, frec* chain, ctx& c);

slaw::task<> spawned(std::uint64_t seed, int depth, frec* chain, ctx& c) {
  co_await body(seed, depth, chain, c);
  for (frec* r = chain; r; r = r->up) r->done.fetch_add(1, std::memory_order_relaxed);
  c.tasks.fetch_add(1, std::memory_order_relaxed);
}

slaw::schedule_clause clause_of(std::uint64_t seed) {
  switch (mix(seed ^ 0xC1) % 3) {
    case 0: return slaw::wf;
    case 1: return slaw::hf;
    default: return slaw::dyn;
  }
}

slaw::task<> body(std::uint64_t seed, int depth, frec* chain, ctx& c) {
  c.sum.fetch_add(seed & 0xff, std::memory_order_relaxed);
  // Some bodies hold a buffer of user memory across their actions: under DFDeques its reservation is
  // a scheduling point, and sizes above K run dummy tasks first.
  slaw::buffer<std::uint64_t> held;
  if (mix(seed ^ 0xA1) % 4 == 0) {
    held = co_await slaw::make_buffer<std::uint64_t>(1 + mix(seed ^ 0xA2) % 600);
    for (auto& x : held) x = seed;
  }
  int n = actions_of(seed, depth, c.max_depth);
  for (int i = 0; i < n; ++i) {
    std::uint64_t cs = child_seed(seed, i);
    switch (action_of(seed, i)) {
      case spawn_a:
      case spawn_b:  // escaping: joins this frame's innermost finish, may outlive this body
        co_await slaw::async(clause_of(cs), spawned(cs, depth + 1, chain, c));
        break;
      case call:
        co_await body(cs, depth + 1, chain, c);
        break;
      case fin: {
        frec rec;
        rec.up = chain;
        long expected = 0;
        std::uint64_t ignored = 0;
        reference(cs, depth + 1, c.max_depth, expected, ignored);
        if (mix(cs ^ 0xF0) & 1) {
          auto f = co_await slaw::start_finish();
          co_await body(cs, depth + 1, &rec, c);
          co_await slaw::end_finish(f);
        } else {
          co_await slaw::finish([&]() -> slaw::task<> { co_await body(cs, depth + 1, &rec, c); });
        }
        if (rec.done.load(std::memory_order_relaxed) != expected) c.errors.fetch_add(1);
        break;
      }
    }
  }
  for (auto x : held)
    if (x != seed) c.errors.fetch_add(1);
}

slaw::task<> root(std::uint64_t seed, ctx& c) { co_await body(seed, 0, nullptr, c); }

struct param {
  slaw::policy::mode mode;
  unsigned workers;
  slaw::scheduler_kind scheduler = slaw::scheduler_kind::ws;
  std::uint64_t quota = slaw::quota_infinite;
};

class FinishRandom : public ::testing::TestWithParam<param> {};

// Iterations scale with SLAW_TEST_SCALE (a positive number, default 1).
double scale() {
  const char* s = std::getenv("SLAW_TEST_SCALE");
  double v = s ? std::atof(s) : 1.0;
  return v > 0 ? v : 1.0;
}

TEST_P(FinishRandom, MatchesSequentialReference) {
  slaw::config cfg;
  cfg.workers = GetParam().workers;
  cfg.policy = GetParam().mode;
  cfg.adp.S = 8;  // small bounds so the stack and fresh conditions fire often
  cfg.adp.F = 4;
  cfg.adp.INT = 4;
  cfg.adp.steal_threshold = 1;
  cfg.scheduler = GetParam().scheduler;
  cfg.quota = GetParam().quota;
  slaw::runtime rt(cfg);
  const int iterations = std::max(10, static_cast<int>(200 * scale()));
  long total_tasks = 0;
  for (int it = 0; it < iterations; ++it) {
    ctx c;
    c.max_depth = 7 + it % 4;
    std::uint64_t seed = mix(1000 + it);
    long expected_tasks = 0;
    std::uint64_t expected_sum = 0;
    reference(seed, 0, c.max_depth, expected_tasks, expected_sum);
    total_tasks += expected_tasks;
    rt.run(root(seed, c));
    ASSERT_EQ(c.errors.load(), 0) << "a finish ended before its tasks, iteration " << it;
    ASSERT_EQ(c.tasks.load(), expected_tasks) << "iteration " << it;
    ASSERT_EQ(c.sum.load(), expected_sum) << "iteration " << it;
  }
  slaw::runtime_stats st = rt.stats();
  if (cfg.scheduler == slaw::scheduler_kind::dfdeques) {
    if (cfg.quota != slaw::quota_infinite) {
      // The quota is never exceeded between steals; every allocation went through reserve().
      EXPECT_LE(st.total.quota_max_used, static_cast<std::int64_t>(cfg.quota));
      EXPECT_GT(st.total.quota_max_used, 0);
      EXPECT_EQ(st.total.quota_overrun_bytes, 0u);
      EXPECT_GT(st.total.quota_giveups, 0u);
      if (cfg.quota < 600 * 8) {
        EXPECT_GT(st.total.dummy_tasks, 0u);
      }
    } else {
      // K = infinity: no give-ups, never more deques than workers (work stealing).
      EXPECT_EQ(st.total.quota_giveups, 0u);
      EXPECT_EQ(st.dfd_giveups, 0u);
      EXPECT_LE(st.dfd_max_deques, cfg.workers);
    }
  }
  RecordProperty("tasks", std::to_string(total_tasks));
  EXPECT_GT(total_tasks, iterations);
}

std::string name(const ::testing::TestParamInfo<param>& i) {
  std::string n = i.param.scheduler == slaw::scheduler_kind::dfdeques
                      ? "dfd_K" + (i.param.quota == slaw::quota_infinite ? std::string("inf") : std::to_string(i.param.quota))
                      : std::string(slaw::to_string(i.param.mode));
  return n + "_" + std::to_string(i.param.workers) + "w";
}

INSTANTIATE_TEST_SUITE_P(AllPolicies, FinishRandom,
                         ::testing::Values(param{slaw::policy::mode::wf, 1}, param{slaw::policy::mode::wf, 2},
                                           param{slaw::policy::mode::wf, 8}, param{slaw::policy::mode::hf, 1},
                                           param{slaw::policy::mode::hf, 2}, param{slaw::policy::mode::hf, 8},
                                           param{slaw::policy::mode::dyn, 1}, param{slaw::policy::mode::dyn, 2},
                                           param{slaw::policy::mode::dyn, 8}),
                         name);

constexpr auto dfd = slaw::scheduler_kind::dfdeques;
constexpr auto any = slaw::policy::mode::dyn;  // ignored by DFDeques (work-first by definition)
INSTANTIATE_TEST_SUITE_P(DFDeques, FinishRandom,
                         ::testing::Values(param{any, 1, dfd, 1024}, param{any, 2, dfd, 1024}, param{any, 8, dfd, 1024},
                                           param{any, 1, dfd, 8192}, param{any, 2, dfd, 8192}, param{any, 8, dfd, 8192},
                                           param{any, 1, dfd, slaw::quota_infinite},
                                           param{any, 2, dfd, slaw::quota_infinite},
                                           param{any, 8, dfd, slaw::quota_infinite}),
                         name);

}  // namespace
