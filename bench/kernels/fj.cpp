// fj / fj-rec: fork-join of `tasks` dummy tasks, repeated `reps` times (one join per repetition).
//   form=flat  (benchmark "fj", JGF ForkJoin): finish { for i in 0..tasks-1: async T_i } — the parent
//              only spawns and waits; stresses a wide finish and stealing from one spawner.
//   form=rec   (benchmark "fj-rec"): the same tasks reached by halving [0, tasks): a node spawns the
//              left half and calls the right half inside a finish per node (depth ceil(log2 tasks));
//              stresses spawn/join down a balanced binary tree, spreading the spawning over thieves.
// T_i increments its own slot (a noinline call, the same in every variant).
// Inputs: none but tasks and reps (synthetic, after the Java Grande Forum ForkJoin microbenchmark).
// Oracle: every slot holds exactly reps (each task ran once per repetition).
#include <cstdint>
#include <string>
#include <vector>

#include <omp.h>
#include <tbb/task_group.h>

#include "harness/benchmark.hpp"

namespace {

using i64 = std::int64_t;

[[gnu::noinline]] void work(i64* slot, i64 i) { slot[i] += 1; }

slaw::task<> work_task(i64* slot, i64 i) {
  work(slot, i);
  co_return;
}

slaw::task<> flat_slaw(i64* slot, i64 tasks, i64 reps) {
  for (i64 r = 0; r < reps; ++r) {
    auto f = co_await slaw::start_finish();
    for (i64 i = 0; i < tasks; ++i) co_await slaw::async(work_task, slot, i);
    co_await slaw::end_finish(f);
  }
}

slaw::task<> rec_slaw(i64* slot, i64 lo, i64 hi) {
  if (hi - lo == 1) {
    work(slot, lo);
    co_return;
  }
  i64 mid = lo + (hi - lo) / 2;
  auto f = co_await slaw::start_finish();
  co_await slaw::async(rec_slaw, slot, lo, mid);
  co_await rec_slaw(slot, mid, hi);
  co_await slaw::end_finish(f);
}

slaw::task<> rec_reps_slaw(i64* slot, i64 tasks, i64 reps) {
  for (i64 r = 0; r < reps; ++r) co_await rec_slaw(slot, 0, tasks);
}

void rec_serial(i64* slot, i64 lo, i64 hi) {
  if (hi - lo == 1) return work(slot, lo);
  i64 mid = lo + (hi - lo) / 2;
  rec_serial(slot, lo, mid);
  rec_serial(slot, mid, hi);
}

void rec_tbb(i64* slot, i64 lo, i64 hi) {
  if (hi - lo == 1) return work(slot, lo);
  i64 mid = lo + (hi - lo) / 2;
  tbb::task_group g;
  g.run([=] { rec_tbb(slot, lo, mid); });
  rec_tbb(slot, mid, hi);
  g.wait();
}

void rec_omp(i64* slot, i64 lo, i64 hi) {
  if (hi - lo == 1) return work(slot, lo);
  i64 mid = lo + (hi - lo) / 2;
#pragma omp task firstprivate(slot, lo, mid)
  rec_omp(slot, lo, mid);
  rec_omp(slot, mid, hi);
#pragma omp taskwait
}

class fj_instance : public slawbench::instance {
 public:
  explicit fj_instance(const slawbench::params& p)
      : tasks_(p.integer("tasks", 1, 1 << 24)), reps_(p.integer("reps", 1, 1000000000)),
        rec_(p.text("form") == "rec"), slot_(tasks_) {
    if (p.text("form") != "flat" && p.text("form") != "rec")
      throw slawbench::bench_error("form='" + p.text("form") + "': expected flat or rec");
  }
  void reset() override { slot_.assign(tasks_, 0); }
  void run_serial() override {
    i64* s = slot_.data();
    for (i64 r = 0; r < reps_; ++r) {
      if (rec_) rec_serial(s, 0, tasks_);
      else
        for (i64 i = 0; i < tasks_; ++i) work(s, i);
    }
  }
  void run_slaw(slaw::runtime& rt) override {
    if (rec_) rt.run(rec_reps_slaw(slot_.data(), tasks_, reps_));
    else rt.run(flat_slaw(slot_.data(), tasks_, reps_));
  }
  bool has_tbb() const override { return true; }
  void run_tbb(unsigned) override {
    i64* s = slot_.data();
    for (i64 r = 0; r < reps_; ++r) {
      if (rec_) {
        rec_tbb(s, 0, tasks_);
      } else {
        tbb::task_group g;
        for (i64 i = 0; i < tasks_; ++i) g.run([s, i] { work(s, i); });
        g.wait();
      }
    }
  }
  bool has_omp() const override { return true; }
  void run_omp(unsigned) override {
    i64* s = slot_.data();
    const i64 tasks = tasks_, reps = reps_;
    const bool rec = rec_;
#pragma omp parallel
#pragma omp single
    for (i64 r = 0; r < reps; ++r) {
      if (rec) {
        rec_omp(s, 0, tasks);
      } else {
        for (i64 i = 0; i < tasks; ++i) {
#pragma omp task firstprivate(s, i)
          work(s, i);
        }
#pragma omp taskwait
      }
    }
  }
  slawbench::outcome check() override {
    for (i64 i = 0; i < tasks_; ++i)
      if (slot_[i] != reps_)
        return {false, "task " + std::to_string(i) + " ran " + std::to_string(slot_[i]) + " times, expected " +
                           std::to_string(reps_)};
    return {true, std::to_string(tasks_ * reps_) + " task executions (" + std::to_string(reps_) +
                      " x tasks=" + std::to_string(tasks_) + ", form=" + (rec_ ? "rec" : "flat") + ")"};
  }

 private:
  i64 tasks_, reps_;
  bool rec_;
  std::vector<i64> slot_;
};

SLAW_BENCHMARK(slawbench::benchmark{
    "fj",
    "fork-join of a flat loop of tiny tasks in one finish (JGF ForkJoin), repeated reps times",
    {{"tasks", "1024"}, {"reps", "50"}, {"form", "flat"}},
    {{"tasks", "1024"}, {"reps", "5000"}, {"form", "flat"}},
    {{"tasks", "1024"}, {"reps", "50000"}, {"form", "flat"}},
    [](const slawbench::params& p) { return std::make_unique<fj_instance>(p); },
    {{"tasks", "tasks per fork-join, in [1, 2^24]"},
     {"reps", "fork-joins per run, in [1, 10^9]"},
     {"form", "flat (one loop spawns every task, as fj) or rec (recursive halving, a finish per node, as "
              "fj-rec)"}}});

SLAW_BENCHMARK(slawbench::benchmark{
    "fj-rec",
    "fork-join of tiny tasks spawned by recursive halving (a finish per node), repeated reps times",
    {{"tasks", "1024"}, {"reps", "50"}, {"form", "rec"}},
    {{"tasks", "1024"}, {"reps", "5000"}, {"form", "rec"}},
    {{"tasks", "1024"}, {"reps", "50000"}, {"form", "rec"}},
    [](const slawbench::params& p) { return std::make_unique<fj_instance>(p); },
    {{"tasks", "tasks per fork-join, in [1, 2^24]"},
     {"reps", "fork-joins per run, in [1, 10^9]"},
     {"form", "flat (one loop spawns every task, as fj) or rec (recursive halving, a finish per node, as "
              "fj-rec)"}}});

}  // namespace
