// spawncost: the cost of spawning and joining k tiny tasks (SLAW Table 5.4 microbenchmark).
// One run is `reps` repetitions of
//     finish { for i in 1..k-1: async T_i;  T_0 }
// where T_i adds i+1 into its own slot (a noinline call, the same in every variant; the parent runs
// T_0 itself). Stresses spawn, steal and finish costs with no useful work to hide them.
// Inputs: none but k and reps (synthetic, after SLAW's Table 5.4).
// Oracle: every slot i holds reps*(i+1), i.e. each T_i ran exactly `reps` times (count and sum).
#include <cstdint>
#include <string>
#include <vector>

#include <omp.h>
#include <tbb/task_group.h>

#include "harness/benchmark.hpp"

namespace {

using i64 = std::int64_t;

[[gnu::noinline]] void work(i64* slot, i64 i) { slot[i] += i + 1; }

slaw::task<> work_task(i64* slot, i64 i) {
  work(slot, i);
  co_return;
}

slaw::task<> spawncost_slaw(i64* slot, i64 k, i64 reps) {
  for (i64 r = 0; r < reps; ++r) {
    auto f = co_await slaw::start_finish();
    for (i64 i = 1; i < k; ++i) co_await slaw::async(work_task, slot, i);
    work(slot, 0);
    co_await slaw::end_finish(f);
  }
}

class spawncost_instance : public slawbench::instance {
 public:
  explicit spawncost_instance(const slawbench::params& p)
      : k_(p.integer("k", 1, 1 << 24)), reps_(p.integer("reps", 1, 10000000)), slot_(k_) {}
  void reset() override { slot_.assign(k_, 0); }
  void run_serial() override {
    i64* s = slot_.data();
    for (i64 r = 0; r < reps_; ++r) {
      for (i64 i = 1; i < k_; ++i) work(s, i);
      work(s, 0);
    }
  }
  void run_slaw(slaw::runtime& rt) override { rt.run(spawncost_slaw(slot_.data(), k_, reps_)); }
  bool has_tbb() const override { return true; }
  void run_tbb(unsigned) override {
    i64* s = slot_.data();
    for (i64 r = 0; r < reps_; ++r) {
      tbb::task_group g;
      for (i64 i = 1; i < k_; ++i) g.run([s, i] { work(s, i); });
      work(s, 0);
      g.wait();
    }
  }
  bool has_omp() const override { return true; }
  void run_omp(unsigned) override {
    i64* s = slot_.data();
    const i64 k = k_, reps = reps_;
#pragma omp parallel
#pragma omp single
    for (i64 r = 0; r < reps; ++r) {
      for (i64 i = 1; i < k; ++i) {
#pragma omp task firstprivate(s, i)
        work(s, i);
      }
      work(s, 0);
#pragma omp taskwait
    }
  }
  slawbench::outcome check() override {
    i64 sum = 0;
    for (i64 i = 0; i < k_; ++i) {
      if (slot_[i] != reps_ * (i + 1))
        return {false, "slot " + std::to_string(i) + " = " + std::to_string(slot_[i]) + ", expected " +
                           std::to_string(reps_ * (i + 1)) + " (T_" + std::to_string(i) + " ran " +
                           std::to_string(slot_[i] / (i + 1)) + " times, not " + std::to_string(reps_) + ")"};
      sum += slot_[i];
    }
    return {true, std::to_string(k_ * reps_) + " task executions (" + std::to_string(reps_) + " x k=" +
                      std::to_string(k_) + "), slot sum " + std::to_string(sum)};
  }

 private:
  i64 k_, reps_;
  std::vector<i64> slot_;
};

SLAW_BENCHMARK(slawbench::benchmark{
    "spawncost",
    "spawn/join cost of k tiny tasks: finish { async T_1..T_k-1; T_0 }, repeated reps times",
    {{"k", "64"}, {"reps", "100"}},
    {{"k", "1024"}, {"reps", "2000"}},
    {{"k", "1024"}, {"reps", "20000"}},
    [](const slawbench::params& p) { return std::make_unique<spawncost_instance>(p); },
    {{"k", "tasks per finish (the parent runs one of them), in [1, 2^24]"},
     {"reps", "finishes per run, in [1, 10^7]"}}});

}  // namespace
