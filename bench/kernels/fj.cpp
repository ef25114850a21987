// fj / fj-rec / fj-loop: fork-join of `tasks` dummy tasks, repeated `reps` times (one join per repetition).
//   form=flat  (benchmark "fj", JGF ForkJoin): finish { for i in 0..tasks-1: async T_i } — the parent
//              only spawns and waits; stresses a wide finish and stealing from one spawner.
//   form=rec   (benchmark "fj-rec"): the same tasks reached by halving [0, tasks): a node spawns the
//              left half and calls the right half inside a finish per node (depth ceil(log2 tasks));
//              stresses spawn/join down a balanced binary tree, spreading the spawning over thieves.
//   form=loop  (benchmark "fj-loop"): the same tasks as one parallel loop per repetition (slaw::for_each_index,
//              no grain; oneTBB parallel_for; OpenMP `omp for` inside one parallel region; std::for_each(par)
//              over the tasks' indices). A repetition is about 2 µs of work: whether a loop too small to
//              pay for parallelism stays as fast as the serial loop, whatever the worker count.
//              omp-dynamic uses schedule(dynamic, chunk): with iterations this short, guided's many small
//              final chunks would only add dispatches.
// T_i increments its own slot (a noinline call, the same in every variant).
// Inputs: none but tasks and reps (synthetic, after the Java Grande Forum ForkJoin microbenchmark).
// Oracle: every slot holds exactly reps (each task ran once per repetition).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <omp.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_group.h>

#include "harness/benchmark.hpp"
#include "harness/loop_peers.hpp"

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

slaw::task<> loop_slaw(i64* slot, i64 tasks, i64 reps) {
  for (i64 r = 0; r < reps; ++r) co_await slaw::for_each_index(i64{0}, tasks, [slot](i64 i) { work(slot, i); });
}

// fj-loop's hand-tuned chunks, tuned at --size default (1024 iterations of about 3 ns: a 3 µs loop) with 2
// workers on the 2-core machine of bench/results/loops/: each candidate side by side with the default row
// (tbb, omp) in one run, 5 repetitions, 1 to 4 runs each; ratios candidate / default row. Other work shared
// the machine (load 3 to 8), so differences under about 10 % are noise.
// tbb-grain: simple_partitioner chunks of [grain/2, grain] iterations. Tried 16 (1.08-1.25), 128
// (0.38-0.50), 256 (0.37, one run), 512 (0.33-0.40), 1024 (0.31-0.39: one piece, a serial loop). Kept
// 512: as fast as one piece, and still two pieces a thief can share.
constexpr i64 loop_tbb_grain = 512;
// omp-dynamic: schedule(dynamic, chunk) iterations. Tried 16 (2.1-2.4), 64 (1.5-1.6), 128 (1.19, one
// run), 256 (0.63-7.5), 512 (1.12, one run), 1024 (0.48-1.65: one chunk, the thread that takes it runs
// the whole loop); the team's barrier, which spins while other work shares the machine, dominates.
// Kept 1024, the least slow: a 3 µs loop pays for no split on this machine.
constexpr i64 loop_omp_chunk = 1024;

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
        rec_(p.text("form") == "rec"), loop_(p.text("form") == "loop"), slot_(tasks_) {
    if (p.text("form") != "flat" && p.text("form") != "rec" && p.text("form") != "loop")
      throw slawbench::bench_error("form='" + p.text("form") + "': expected flat, rec or loop");
    if (loop_) index_ = slawbench::index_vector(tasks_);
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
    else if (loop_) rt.run(loop_slaw(slot_.data(), tasks_, reps_));
    else rt.run(flat_slaw(slot_.data(), tasks_, reps_));
  }
  bool has_tbb() const override { return true; }
  void run_tbb(unsigned) override {
    if (loop_) return tbb_loop(tbb::auto_partitioner(), 1);
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
  bool has_tbb_grain() const override { return loop_; }
  void run_tbb_grain(unsigned) override { tbb_loop(tbb::simple_partitioner(), loop_tbb_grain); }
  bool has_omp() const override { return true; }
  void run_omp(unsigned) override {
    i64* s = slot_.data();
    const i64 tasks = tasks_, reps = reps_;
    if (loop_) {
#pragma omp parallel
      for (i64 r = 0; r < reps; ++r) {
#pragma omp for schedule(static)
        for (i64 i = 0; i < tasks; ++i) work(s, i);
      }
      return;
    }
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
  bool has_omp_dynamic() const override { return loop_; }
  void run_omp_dynamic(unsigned) override {
    i64* s = slot_.data();
    const i64 tasks = tasks_, reps = reps_, chunk = loop_omp_chunk;
#pragma omp parallel
    for (i64 r = 0; r < reps; ++r) {
#pragma omp for schedule(dynamic, chunk)
      for (i64 i = 0; i < tasks; ++i) work(s, i);
    }
  }
  bool has_pstl() const override { return loop_; }
  void run_pstl(unsigned) override {
    i64* s = slot_.data();
    for (i64 r = 0; r < reps_; ++r) std::for_each(std::execution::par, index_.begin(), index_.end(), [s](long i) { work(s, i); });
  }
  slawbench::outcome check() override {
    for (i64 i = 0; i < tasks_; ++i)
      if (slot_[i] != reps_)
        return {false, "task " + std::to_string(i) + " ran " + std::to_string(slot_[i]) + " times, expected " +
                           std::to_string(reps_)};
    return {true, std::to_string(tasks_ * reps_) + " task executions (" + std::to_string(reps_) +
                      " x tasks=" + std::to_string(tasks_) + ", form=" + (rec_ ? "rec" : loop_ ? "loop" : "flat") +
                      ")"};
  }

 private:
  template <class Partitioner>
  void tbb_loop(const Partitioner& part, i64 grain) {
    i64* s = slot_.data();
    for (i64 r = 0; r < reps_; ++r)
      tbb::parallel_for(
          tbb::blocked_range<i64>(0, tasks_, static_cast<std::size_t>(grain)),
          [s](const tbb::blocked_range<i64>& b) {
            for (i64 i = b.begin(); i < b.end(); ++i) work(s, i);
          },
          part);
  }

  i64 tasks_, reps_;
  bool rec_, loop_;
  std::vector<i64> slot_;
  std::vector<long> index_;  // form=loop: the pstl row's indices
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
     {"form", "flat (one loop spawns every task, as fj), rec (recursive halving, a finish per node, as "
              "fj-rec) or loop (one parallel loop over the tasks, as fj-loop)"}}});

SLAW_BENCHMARK(slawbench::benchmark{
    "fj-rec",
    "fork-join of tiny tasks spawned by recursive halving (a finish per node), repeated reps times",
    {{"tasks", "1024"}, {"reps", "50"}, {"form", "rec"}},
    {{"tasks", "1024"}, {"reps", "5000"}, {"form", "rec"}},
    {{"tasks", "1024"}, {"reps", "50000"}, {"form", "rec"}},
    [](const slawbench::params& p) { return std::make_unique<fj_instance>(p); },
    {{"tasks", "tasks per fork-join, in [1, 2^24]"},
     {"reps", "fork-joins per run, in [1, 10^9]"},
     {"form", "flat (one loop spawns every task, as fj), rec (recursive halving, a finish per node, as "
              "fj-rec) or loop (one parallel loop over the tasks, as fj-loop)"}}});

SLAW_BENCHMARK(slawbench::benchmark{
    "fj-loop",
    "parallel loop of tiny iterations: the fj tasks as one loop per repetition (slaw::for_each_index, "
    "parallel_for, omp for, std::for_each(par)), repeated reps times",
    {{"tasks", "1024"}, {"reps", "50"}, {"form", "loop"}},
    {{"tasks", "1024"}, {"reps", "50000"}, {"form", "loop"}},
    {{"tasks", "1024"}, {"reps", "500000"}, {"form", "loop"}},
    [](const slawbench::params& p) { return std::make_unique<fj_instance>(p); },
    {{"tasks", "tasks per fork-join, in [1, 2^24]"},
     {"reps", "fork-joins per run, in [1, 10^9]"},
     {"form", "flat (one loop spawns every task, as fj), rec (recursive halving, a finish per node, as "
              "fj-rec) or loop (one parallel loop over the tasks, as fj-loop)"}}});

}  // namespace
