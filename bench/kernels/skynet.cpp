// skynet: a 10-way fan-out task tree (the "skynet" benchmark, github.com/atemerev/skynet).
// node(num, size) returns num if size == 1, otherwise spawns 10 children node(num + i*size/10,
// size/10), i = 0..9, each writing its result into a slot of a 10-element array in the parent's frame,
// waits for them (a finish per node; the parent itself runs none of them) and returns their sum.
// With `tasks` leaves (a power of 10) that is (10*tasks - 1)/9 tasks. Stresses spawn and join of many
// short-lived tasks with a wide, shallow fan-out and result delivery through slots.
// Inputs: none but tasks (skynet's original size is 10^6).
// Oracle: the sum of the leaf numbers 0..tasks-1, tasks*(tasks-1)/2.
#include <cstdint>
#include <string>

#include <omp.h>
#include <tbb/task_group.h>

#include "harness/benchmark.hpp"

namespace {

using i64 = std::int64_t;

i64 node_serial(i64 num, i64 size) {
  if (size == 1) return num;
  i64 slot[10], child = size / 10, sum = 0;
  for (int i = 0; i < 10; ++i) slot[i] = node_serial(num + i * child, child);
  for (int i = 0; i < 10; ++i) sum += slot[i];
  return sum;
}

slaw::task<i64> node_slaw(i64 num, i64 size) {
  if (size == 1) co_return num;
  i64 slot[10], child = size / 10, sum = 0;
  auto f = co_await slaw::start_finish();
  for (int i = 0; i < 10; ++i) co_await slaw::async(&slot[i], node_slaw, num + i * child, child);
  co_await slaw::end_finish(f);
  for (int i = 0; i < 10; ++i) sum += slot[i];
  co_return sum;
}

i64 node_tbb(i64 num, i64 size) {
  if (size == 1) return num;
  i64 slot[10], child = size / 10, sum = 0;
  tbb::task_group g;
  for (int i = 0; i < 10; ++i) g.run([&slot, i, num, child] { slot[i] = node_tbb(num + i * child, child); });
  g.wait();
  for (int i = 0; i < 10; ++i) sum += slot[i];
  return sum;
}

i64 node_omp(i64 num, i64 size) {
  if (size == 1) return num;
  i64 slot[10], child = size / 10, sum = 0;
  for (int i = 0; i < 10; ++i) {
#pragma omp task shared(slot) firstprivate(i, num, child)
    slot[i] = node_omp(num + i * child, child);
  }
#pragma omp taskwait
  for (int i = 0; i < 10; ++i) sum += slot[i];
  return sum;
}

class skynet_instance : public slawbench::instance {
 public:
  explicit skynet_instance(const slawbench::params& p) : tasks_(p.integer("tasks", 1, 1000000000)) {
    i64 t = tasks_;
    while (t % 10 == 0) t /= 10;
    if (t != 1)
      throw slawbench::bench_error("tasks=" + std::to_string(tasks_) +
                                   ": expected a power of 10 in [1, 1000000000]");
  }
  void reset() override { result_ = -1; }
  void run_serial() override { result_ = node_serial(0, tasks_); }
  void run_slaw(slaw::runtime& rt) override { result_ = rt.run(node_slaw(0, tasks_)); }
  bool has_tbb() const override { return true; }
  void run_tbb(unsigned) override { result_ = node_tbb(0, tasks_); }
  bool has_omp() const override { return true; }
  void run_omp(unsigned) override {
    i64 r = -1;
    const i64 tasks = tasks_;
#pragma omp parallel
#pragma omp single
    r = node_omp(0, tasks);
    result_ = r;
  }
  slawbench::outcome check() override {
    i64 want = tasks_ * (tasks_ - 1) / 2;
    return {result_ == want, "skynet(" + std::to_string(tasks_) + ") = " + std::to_string(result_) +
                                 (result_ == want ? "" : ", expected " + std::to_string(want))};
  }

 private:
  i64 tasks_;
  i64 result_ = -1;
};

SLAW_BENCHMARK(slawbench::benchmark{
    "skynet",
    "10-way fan-out task tree, results summed through per-node slots (a finish per node)",
    {{"tasks", "100000"}},
    {{"tasks", "1000000"}},
    {{"tasks", "10000000"}},
    [](const slawbench::params& p) { return std::make_unique<skynet_instance>(p); },
    {{"tasks", "leaves, a power of 10 in [1, 10^9] ((10 tasks - 1) / 9 tasks in all)"}}});

}  // namespace
