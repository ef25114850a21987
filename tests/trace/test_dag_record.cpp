// SLAW_RECORD (config::record_path): the recorded DAG of a run, read back with the simulator's reader
// (src/dag/dag_reader.hpp), against what the program text says it must be.
//
// * fib: every task's exact event sequence (start_finish, spawn fib(n-1), call fib(n-2), end_finish,
//   ret; a leaf: ret) and the tree of tasks, from n alone, on every scheduler x policy x 1/2/8 workers.
// * The finish forms and exit paths: lambda-form finishes, escaping asyncs, a task that throws, a call
//   that throws, a scope left early: the file is valid and its counts are the program's.
// * Random programs (tests/random): still correct while recorded, and the DAG has one spawn per task
//   that ran (the root aside) and one start_finish and one end_finish per finish reached.
// * Only the first run is recorded; a bad path is a config_error naming SLAW_RECORD.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "dag/dag_reader.hpp"
#include "slaw/slaw.hpp"
#include "../support/fib.hpp"
#include "../random/check.hpp"
#include "../random/objects.hpp"
#include "../random/oracle.hpp"
#include "../random/program.hpp"
#include "../random/runner.hpp"

namespace {

using slaw::dag::dag_op;

std::string temp_path(const std::string& tag) {
  return "/tmp/slaw_test_dag_" + std::to_string(::getpid()) + "_" + tag + ".dag";
}

struct removed_file {
  std::string path;
  ~removed_file() { std::remove(path.c_str()); }
};

std::vector<slaw::dag::event> events_of(const slaw::dag::dag_file& f, std::uint64_t task) {
  std::vector<slaw::dag::event> out(f.event_count(task));
  std::uint64_t pos = f.first_event(task);
  for (auto& e : out) pos = f.decode(pos, e);
  return out;
}

// Events per op over the whole file.
struct op_counts {
  std::uint64_t n[slaw::dag::dag_op_count] = {};
  std::uint64_t count(dag_op o) const { return n[static_cast<unsigned>(o)]; }
};
op_counts count_ops(const slaw::dag::dag_file& f) {
  op_counts c;
  for (std::uint64_t t = 0; t < f.task_count(); ++t)
    for (const auto& e : events_of(f, t)) ++c.n[static_cast<unsigned>(e.op)];
  return c;
}

struct setup {
  slaw::config cfg;
  std::string name;
};

std::vector<setup> setups() {
  std::vector<setup> out;
  for (unsigned w : {1u, 2u, 8u}) {
    for (auto m : {slaw::policy::mode::wf, slaw::policy::mode::hf, slaw::policy::mode::dyn}) {
      slaw::config c;
      c.workers = w;
      c.policy = m;
      out.push_back({c, std::string("ws_") + slaw::to_string(m) + "_" + std::to_string(w) + "w"});
    }
    for (std::uint64_t k : {slaw::quota_infinite, std::uint64_t{4096}}) {
      slaw::config c;
      c.workers = w;
      c.scheduler = slaw::scheduler_kind::dfdeques;
      c.quota = k;
      out.push_back({c, "dfd_K" + (k == slaw::quota_infinite ? std::string("inf") : std::to_string(k)) + "_" +
                            std::to_string(w) + "w"});
    }
  }
  return out;
}

using slaw_test::fib;

// Walks the recorded tree from `task` as fib(n) and checks every task's events; returns the tasks seen.
std::uint64_t check_fib(const slaw::dag::dag_file& f, std::uint64_t task, int n, std::string& bad) {
  const auto ev = events_of(f, task);
  auto fail = [&](const std::string& why) {
    if (bad.empty()) bad = "task " + std::to_string(task) + " (fib " + std::to_string(n) + "): " + why;
    return std::uint64_t{0};
  };
  if (n < 2) {
    if (ev.size() != 1 || ev[0].op != dag_op::ret) return fail("a leaf must have exactly one event, ret");
    return 1;
  }
  const dag_op want[] = {dag_op::start_finish, dag_op::spawn, dag_op::call, dag_op::end_finish, dag_op::ret};
  if (ev.size() != 5) return fail(std::to_string(ev.size()) + " events, expected 5");
  for (int i = 0; i < 5; ++i)
    if (ev[static_cast<std::size_t>(i)].op != want[i])
      return fail(std::string("event ") + std::to_string(i) + " is " + slaw::dag::dag_op_name(ev[static_cast<std::size_t>(i)].op) +
                  ", expected " + slaw::dag::dag_op_name(want[i]));
  if (ev[1].clause != 0) return fail("the spawn has no clause: expected dyn (0)");
  return 1 + check_fib(f, ev[1].arg, n - 1, bad) + check_fib(f, ev[2].arg, n - 2, bad);
}

std::uint64_t fib_tasks(int n) { return n < 2 ? 1 : 1 + fib_tasks(n - 1) + fib_tasks(n - 2); }

// runtime::run of a task with a result runs a root frame that calls the task and stores its result:
// task 0 is that frame (call, ret), and the task given to run() is its callee. Returns the callee.
std::uint64_t checked_run_root(const slaw::dag::dag_file& f, std::string& bad) {
  const auto ev = events_of(f, 0);
  if (ev.size() != 2 || ev[0].op != dag_op::call || ev[1].op != dag_op::ret) {
    bad = "task 0 (run's root frame): expected call, ret";
    return 0;
  }
  return ev[0].arg;
}

TEST(DagRecord, FibEveryTaskAndEventOnEverySchedulerPolicyAndWorkerCount) {
  constexpr int n = 16;
  for (const setup& s : setups()) {
    removed_file file{temp_path(s.name)};
    slaw::config cfg = s.cfg;
    cfg.record_path = file.path;
    const auto t0 = std::chrono::steady_clock::now();
    {
      slaw::runtime rt(cfg);
      ASSERT_EQ(rt.run(fib(n)), 987) << s.name;
    }
    const double wall_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    const slaw::dag::dag_file f = slaw::dag::read_dag(file.path);
    EXPECT_EQ(f.task_count(), 1 + fib_tasks(n)) << s.name;
    std::string bad;
    const std::uint64_t top = checked_run_root(f, bad);
    EXPECT_EQ(bad, "") << s.name;
    EXPECT_EQ(check_fib(f, top, n, bad), fib_tasks(n)) << s.name;
    EXPECT_EQ(bad, "") << s.name;
    EXPECT_EQ(f.header().workers, cfg.workers) << s.name;
    EXPECT_LE(static_cast<double>(f.header().recorded_ns), wall_ns) << s.name;
    // Work is computation on the workers during the run: at most workers x the run's time (+10%: clocks).
    EXPECT_LE(static_cast<double>(f.totals().work_ns), 1.1 * cfg.workers * static_cast<double>(f.header().recorded_ns) + 1e5)
        << s.name;
  }
}

// The exit paths and finish forms, with their counts known from the text.
struct thrown {};
slaw::task<> leaf(std::atomic<int>* ran) {
  ran->fetch_add(1);
  co_return;
}
slaw::task<> thrower(std::atomic<int>* ran) {
  ran->fetch_add(1);
  throw thrown{};
  co_return;
}
slaw::task<long> escaping(std::atomic<int>* ran) {  // an async that outlives its spawner's frame
  co_await slaw::async(leaf, ran);
  co_return 1;
}
slaw::task<> forms(std::atomic<int>* ran) {
  // a lambda-form finish: 1 body + 3 spawns (one escapes through `escaping`, which spawns 1 more)
  co_await slaw::finish([&]() -> slaw::task<> {
    co_await slaw::async(leaf, ran);
    co_await slaw::async(escaping, ran);
    co_await slaw::async(slaw::hf, leaf, ran);
  });
  // a spawned task throws: the finish rethrows
  try {
    co_await slaw::finish([&]() -> slaw::task<> { co_await slaw::async(thrower, ran); });
  } catch (const thrown&) {
  }
  // a called task throws
  try {
    co_await thrower(ran);
  } catch (const thrown&) {
  }
  // a scope left early: its task is waited for when the scope is destroyed
  for (int i = 0; i < 2; ++i) {
    auto f = co_await slaw::start_finish();
    co_await slaw::async(slaw::wf, leaf, ran);
    if (i == 1) break;
    co_await slaw::end_finish(f);
  }
}

TEST(DagRecord, FinishFormsEscapingAsyncsAndExceptions) {
  for (const setup& s : setups()) {
    removed_file file{temp_path("forms_" + s.name)};
    slaw::config cfg = s.cfg;
    cfg.record_path = file.path;
    std::atomic<int> ran{0};
    {
      slaw::runtime rt(cfg);
      rt.run(forms(&ran));
    }
    ASSERT_EQ(ran.load(), 7) << s.name;
    const slaw::dag::dag_file f = slaw::dag::read_dag(file.path);
    const op_counts t = count_ops(f);
    // Spawns: leaf, escaping, leaf (hf), leaf (in escaping), thrower, leaf x2 = 7. Calls: 2 finish
    // bodies and thrower = 3. Finishes: 2 lambda forms + 2 start_finish scopes = 4.
    EXPECT_EQ(t.count(dag_op::spawn), 7u) << s.name;
    EXPECT_EQ(t.count(dag_op::call), 3u) << s.name;
    EXPECT_EQ(t.count(dag_op::start_finish), 4u) << s.name;
    EXPECT_EQ(t.count(dag_op::end_finish), 4u) << s.name;
    EXPECT_EQ(t.count(dag_op::ret), f.task_count()) << s.name;
    EXPECT_EQ(f.task_count(), 1u + 7u + 3u) << s.name;
  }
}

TEST(DagRecord, OnlyTheFirstRunIsRecorded) {
  removed_file file{temp_path("first")};
  slaw::config cfg;
  cfg.workers = 2;
  cfg.record_path = file.path;
  {
    slaw::runtime rt(cfg);
    EXPECT_EQ(rt.run(fib(5)), 5);
    EXPECT_EQ(rt.run(fib(10)), 55);
  }
  EXPECT_EQ(slaw::dag::read_dag(file.path).task_count(), 1 + fib_tasks(5));  // run's root frame + fib(5)
}

TEST(DagRecord, BadPathIsAConfigErrorNamingTheVariable) {
  slaw::config cfg;
  cfg.workers = 1;
  cfg.record_path = "/nonexistent-directory/x.dag";
  try {
    slaw::runtime rt(cfg);
    FAIL() << "expected a config_error";
  } catch (const slaw::config_error& e) {
    EXPECT_NE(std::string(e.what()).find("SLAW_RECORD='/nonexistent-directory/x.dag'"), std::string::npos) << e.what();
  }
}

// Random programs: correct while recorded (the oracle), and the DAG agrees with the oracle's counts.
TEST(DagRecord, RandomProgramsMatchTheOracleAndTheirDagsItsCounts) {
  const char* scale_env = std::getenv("SLAW_TEST_SCALE");
  const double scale = scale_env ? std::atof(scale_env) : 1.0;
  const long programs = std::max(4L, static_cast<long>(30 * (scale > 0 ? scale : 1.0)));
  rp::gen_params gen;
  gen.features = rp::parse_features("all");
  for (const setup& s : setups()) {
    for (long i = 0; i < programs; ++i) {
      const std::uint64_t seed = 1 + static_cast<std::uint64_t>(i);
      const rp::program p = rp::generate(seed, gen);
      const rp::expectation e = rp::interpret(p);
      removed_file file{temp_path("random_" + s.name)};
      slaw::config cfg = s.cfg;
      cfg.record_path = file.path;
      rp::observation o;
      {
        slaw::runtime rt(cfg);
        o = rp::run_program(rt, p, e);
      }
      const std::vector<std::string> errors = rp::check(p, e, o);
      ASSERT_TRUE(errors.empty()) << s.name << ", seed " << seed << ": " << errors.front() << "\n" << rp::to_string(p);
      const slaw::dag::dag_file f = slaw::dag::read_dag(file.path);
      std::uint64_t ran = 0, finishes = 0;
      for (char c : e.spawned) ran += c != 0;
      for (std::size_t k = 1; k < e.finishes.size(); ++k) finishes += e.finishes[k].reached;
      const op_counts t = count_ops(f);
      EXPECT_EQ(t.count(dag_op::spawn) + 1, ran) << s.name << ", seed " << seed << "\n" << rp::to_string(p);
      EXPECT_EQ(t.count(dag_op::start_finish), finishes) << s.name << ", seed " << seed << "\n" << rp::to_string(p);
      EXPECT_EQ(t.count(dag_op::end_finish), finishes) << s.name << ", seed " << seed;
      EXPECT_EQ(t.count(dag_op::ret), f.task_count()) << s.name << ", seed " << seed;
      if (HasFailure()) return;
    }
  }
}

}  // namespace
