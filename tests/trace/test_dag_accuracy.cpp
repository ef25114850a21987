// SLAW_RECORD's strand times: the recorder charges nothing of its own to the program's strands.
//
// fib(n) is recorded at one worker through the runtime's record path and read back with the
// simulator's reader (src/dag/), and two things are checked against what the recorder must not do:
//
// * No tail of the recorder's making. A strand that pays for the recorder's own work (a log growing,
//   a page of the log touched for the first time) stands out from fib's strands, which are all alike:
//   the 99.9th percentile of the strands stays within a small multiple of their median. Outside
//   interruptions (the OS taking the core away, a timer interrupt) hit a handful of strands, far below
//   the 0.1 % that the quantile leaves out.
// * fib's shape survives. The recorded fib's parallelism (work over span, dag_work_span) is within 2x
//   of the generated fib:n's (the simulator's workload, src/sim/wl_fib.cpp) with the recording's own
//   costs per inner call and per leaf: one strand that absorbs a copy of the log, or a few that absorb
//   its page faults, is the span, and takes the parallelism down by orders of magnitude.
//
// The recording is wall time on a real machine, and fib's span is a few microseconds: one interruption
// of the worker anywhere in the run lengthens it as much as the recorder's own work used to. So the
// recording is tried several times, and one clean recording passes (a recorder that charges its own
// work does so on every attempt, deterministically). The recorded run calls fib(n) twice and the
// second call is the one measured: the first touches the frames, caches and branch predictors that
// a freshly woken worker finds cold. Those are real costs of the program, but not the recorder's,
// and the generated fib has none of them.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <string>
#include <vector>

#include "../support/fib.hpp"
#include "dag/dag_reader.hpp"
#include "dag/dag_work_span.hpp"
#include "dag/dag_writer.hpp"
#include "sim/costs.hpp"
#include "sim/engine.hpp"
#include "sim/workloads.hpp"
#include "slaw/slaw.hpp"

namespace {

using slaw_test::fib;

struct removed_file {
  std::string path;
  ~removed_file() { std::remove(path.c_str()); }
};

slaw::task<long> twice(int n) {
  const long warm = co_await fib(n);
  co_return warm + co_await fib(n);
}

using slaw::dag::dag_op;
using slaw::dag::event;

std::vector<event> events_of(const slaw::dag::dag_file& f, std::uint64_t task) {
  std::vector<event> out(f.event_count(task));
  std::uint64_t pos = f.first_event(task);
  for (event& e : out) pos = f.decode(pos, e);
  return out;
}

// The subtree of `root` as a DAG of its own (root = task 0), through the project's writer and reader.
slaw::dag::dag_file subtree(const slaw::dag::dag_file& f, std::uint64_t root) {
  std::vector<slaw::dag::task_record> tasks;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> todo{{root, 0}};  // (old id, new id)
  tasks.emplace_back();
  while (!todo.empty()) {
    const auto [old_id, new_id] = todo.back();
    todo.pop_back();
    tasks[new_id].frame_bytes = f.frame_bytes(old_id);
    std::vector<event> ev = events_of(f, old_id);
    for (event& e : ev)
      if (e.op == dag_op::spawn || e.op == dag_op::call) {
        todo.push_back({e.arg, tasks.size()});
        e.arg = tasks.size();
        tasks.emplace_back();
      }
    tasks[new_id].events = std::move(ev);
  }
  return slaw::dag::parse_dag(slaw::dag::encode_dag(tasks, 0, 1), "the second fib");
}

struct recording {
  std::uint64_t median = 0, q99 = 0, q995 = 0, q999 = 0, events = 0;
  std::string longest;  // the longest strands and where they are: "NS@TASK.EVENT"
  double parallelism = 0, generated = 0;
  std::string describe() const {
    return std::to_string(events) + " strands: median " + std::to_string(median) + " ns, 99th/99.5th/99.9th percentiles " +
           std::to_string(q99) + "/" + std::to_string(q995) + "/" + std::to_string(q999) + " ns, longest" + longest + "; the second fib's parallelism " +
           std::to_string(parallelism) + ", the generator's with its costs " + std::to_string(generated);
  }
};

// Records twice(n) in a process of its own (fork; this one has no threads between runtimes): each
// attempt starts with memory the recorder has never touched, as a program's recording does.
recording record_fib(int n, const std::string& path) {
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child == 0) {
    slaw::config cfg;
    cfg.workers = 1;
    cfg.record_path = path;
    long r = 0;
    {
      slaw::runtime rt(cfg);
      r = rt.run(twice(n));
    }
    ::_exit(r > 0 ? 0 : 3);
  }
  recording r;
  int status = 0;
  EXPECT_NE(child, -1) << "fork: " << std::strerror(errno);
  if (child == -1) return r;
  EXPECT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the recording process ended with status " << status;
  if (::testing::Test::HasFailure()) return r;
  const slaw::dag::dag_file f = slaw::dag::read_dag(path);
  // (a) every strand of the recording.
  struct where {
    std::uint64_t ns, task, event;
  };
  std::vector<where> all;
  for (std::uint64_t t = 0; t < f.task_count(); ++t) {
    const std::vector<event> ev = events_of(f, t);
    for (std::size_t i = 0; i < ev.size(); ++i) all.push_back({ev[i].work_ns, t, i});
  }
  std::sort(all.begin(), all.end(), [](const where& a, const where& b) { return a.ns < b.ns; });
  r.events = all.size();
  r.median = all[all.size() / 2].ns;
  r.q99 = all[all.size() * 99 / 100].ns;
  r.q995 = all[all.size() * 995 / 1000].ns;
  r.q999 = all[all.size() * 999 / 1000].ns;
  for (std::size_t i = 0; i < 8 && i < all.size(); ++i) {
    const where& w = all[all.size() - 1 - i];
    r.longest += " " + std::to_string(w.ns) + "@" + std::to_string(w.task) + "." + std::to_string(w.event);
  }
  // (b) the second fib: task 0 is run()'s frame, which calls twice(), which calls fib(n) twice.
  const std::vector<event> root = events_of(f, 0);
  const std::vector<event> body = events_of(f, root.at(0).arg);
  EXPECT_EQ(body.size(), 3u);
  if (body.size() != 3) return r;
  const slaw::dag::dag_file second = subtree(f, body[1].arg);
  r.parallelism = slaw::dag::analyze(second).parallelism();
  // Its costs per inner call and per leaf, as the generator takes them (node=, leaf=).
  double inner = 0, leaves = 0;
  std::uint64_t inner_n = 0, leaf_n = 0;
  for (std::uint64_t t = 0; t < second.task_count(); ++t) {
    std::uint64_t w = 0;
    const std::vector<event> ev = events_of(second, t);
    for (const event& e : ev) w += e.work_ns;
    (ev.size() == 1 ? leaves : inner) += static_cast<double>(w);
    ++(ev.size() == 1 ? leaf_n : inner_n);
  }
  slaw::sim::run_config sc;
  sc.workers = 1;
  auto gen = slaw::sim::make_workload("fib:" + std::to_string(n) + ",node=" + std::to_string(inner / inner_n) +
                                      ",leaf=" + std::to_string(leaves / leaf_n));
  r.generated = slaw::sim::simulate(*gen, slaw::sim::costs::named("unit"), sc).dag.parallelism();
  return r;
}

TEST(DagRecordAccuracy, FibStrandsCarryNothingOfTheRecorders) {
  constexpr int n = 16;
  constexpr int attempts = 40;
  removed_file file{::testing::TempDir() + "slaw_dag_accuracy_" + std::to_string(::getpid()) + ".dag"};
  std::string tried;
  for (int a = 0; a < attempts; ++a) {
    const recording r = record_fib(n, file.path);
    if (HasFailure()) return;
    const bool tail_ok = r.q999 <= 10 * r.median + 250;
    const bool shape_ok = r.parallelism >= r.generated / 2 && r.parallelism <= r.generated * 2;
    tried += "  attempt " + std::to_string(a + 1) + ": " + r.describe() + (tail_ok ? "" : " [tail]") +
             (shape_ok ? "" : " [parallelism]") + "\n";
    if (tail_ok && shape_ok) {
      std::printf("%s", tried.c_str());
      return;
    }
  }
  ADD_FAILURE() << "no recording of fib(" << n << ") without a tail (99.9th percentile at most 10x the median + 250 "
                << "ns) and with the generated fib's shape (parallelism within 2x):\n"
                << tried;
}

}  // namespace
